"""Small helpers shared by the engine tests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import fakeredis

from workflow.engine import Engine
from workflow.models import Request, RequestStatus

SICK_6_DAYS = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-10", "reason": "flu"}
ANNUAL_2_DAYS = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
TEAM_LUNCH = {
    "amount": 120,
    "currency": "CNY",
    "category": "meals",
    "spent_on": "2026-12-01",
    "description": "team lunch",
}


async def submitted(
    engine: Engine,
    actor: str = "zhangsan",
    fields: dict[str, Any] | None = None,
    process: str = "leave",
) -> Request:
    """Prepare and confirm a request as its requester would with two clicks."""
    proposal = await engine.prepare_submit(actor, process, fields or SICK_6_DAYS)
    outcome = await engine.confirm(proposal.pending.id, actor)
    return outcome.request


async def approved(engine: Engine, actor: str, fields: dict[str, Any]) -> Request:
    """Submit a leave as its requester and approve every step as its assignee."""
    proposal = await engine.prepare_submit(actor, "leave", fields)
    req = (await engine.confirm(proposal.pending.id, actor)).request
    while (step := req.open_step()) is not None:
        req = await engine.decide(req.id, step.index, step.assignee, "approve")
    return req


async def state(engine: Engine, *people: str) -> dict[str, Any]:
    """Everything a refused action must leave untouched: outbox, ledgers, tasks, calendar."""
    r = engine.store.redis
    k = engine.keys
    snap: dict[str, Any] = {
        "outbox": await r.xlen(k.outbox),
        "calendar": [
            o.as_dict()
            for o in (
                await engine.who_is_out("liuyang", date(2026, 11, 1), date(2027, 3, 1))
            ).entries
        ],
    }
    for p in people or ("zhangsan", "wangfang", "liuyang", "lisi"):
        snap[f"ledger:{p}"] = await r.hgetall(k.ledger(p))
        snap[f"tasks:{p}"] = await r.zrange(k.user_open(p), 0, -1)
        snap[f"requests:{p}"] = await r.zrange(k.user_requests(p), 0, -1)
    return snap


async def events(engine: Engine) -> list[tuple[str, str]]:
    """(type, request id) of every outbox event, in order."""
    entries = await engine.store.redis.xrange(engine.keys.outbox)
    return [(f["type"], f["request_id"]) for _, f in entries]


def leave_request(
    fields: dict[str, Any], working_days: float, requester: str = "zhangsan"
) -> Request:
    """A leave request as its cards describe it, with no engine: its fields and working days."""
    return Request(
        id="R-ABCD1234",
        process="leave",
        kind="leave",
        requester=requester,
        status=RequestStatus.DRAFT,
        fields=fields,
        derived={"working_days": working_days},
        steps=[],
        created_at=datetime(2026, 12, 2, tzinfo=UTC),
    )


class CountingRedis(fakeredis.FakeAsyncRedis):
    """Counts the pipelines sent (each is one round trip)."""

    pipelines = 0

    def pipeline(self, transaction: bool = True, shard_hint: Any = None) -> Any:
        pipe = super().pipeline(transaction, shard_hint)
        execute = pipe.execute

        async def counted(raise_on_error: bool = True) -> Any:
            CountingRedis.pipelines += 1
            return await execute(raise_on_error=raise_on_error)

        pipe.execute = counted
        return pipe
