"""Races on the real Redis: many clicks, replicas and retries at once still change things exactly once.

Every test drives several Engines, each over its own Redis client (its own connection pool),
as separate bot replicas would, against the organisation's shared keys.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import redis.asyncio as aioredis

from tests.conftest import delete_org, open_real_redis
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine, Outcome
from workflow.errors import InsufficientBalance, InvalidState, NotAllowed
from workflow.leave import LEAVE_PREFIX, parse_ledger_value
from workflow.models import PendingStatus, Request, RequestStatus, StepStatus
from workflow.store import Conflict, Tx

pytestmark = pytest.mark.redis

REPLICAS = 8
CALLS = 200
SICK_6_DAYS = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-10", "reason": "flu"}
SICK_5_DAYS = {"leave_type": "sick", "start": "2026-12-14", "end": "2026-12-18", "reason": "flu"}


@pytest.fixture
async def clients(config: OrgConfig) -> AsyncIterator[list[aioredis.Redis]]:
    """Separate real-Redis clients, one per replica; the organisation's keys are removed after."""
    opened: list[aioredis.Redis] = []
    try:
        for _ in range(REPLICAS):
            opened.append(await open_real_redis())
        yield opened
    finally:
        if opened:
            await delete_org(opened[0], config.organisation.id)
        for c in opened:
            await c.aclose()


@pytest.fixture
def engines(config: OrgConfig, clock: FixedClock, clients: list[aioredis.Redis]) -> list[Engine]:
    return [Engine(config, c, clock) for c in clients]


class ConflictSpy:
    """Records the key of every version-guard failure seen by the spied engines."""

    def __init__(self, engines: list[Engine]) -> None:
        self.keys: list[str] = []
        for e in engines:
            e.store.apply = self._wrap(e.store.apply)  # type: ignore[method-assign]

    def _wrap(self, apply: Callable[[Tx], Awaitable[list[str]]]):
        async def spied(tx: Tx) -> list[str]:
            try:
                return await apply(tx)
            except Conflict as c:
                self.keys.append(c.key)
                raise

        return spied


async def settle(calls: list[Awaitable[Any]]) -> list[Any]:
    """Run every call at once; each result is a value or the exception it raised."""
    return await asyncio.gather(*calls, return_exceptions=True)


def unexpected(results: list[Any], allowed: tuple[type[BaseException], ...] = ()) -> list[Any]:
    return [r for r in results if isinstance(r, BaseException) and not isinstance(r, allowed)]


async def submitted(engine: Engine, actor: str, fields: dict[str, Any]) -> Request:
    p = await engine.prepare_submit(actor, "leave", fields)
    return (await engine.confirm(p.pending.id, actor)).request


async def request_events(engine: Engine, request_id: str) -> Counter[tuple[str, int | None]]:
    """(event type, step) → how many times the outbox carries it for this request."""
    entries = await engine.store.redis.xrange(engine.keys.outbox)
    return Counter(
        (f["type"], json.loads(f["data"]).get("step"))
        for _, f in entries
        if f["request_id"] == request_id
    )


async def sick_balance(engine: Engine, person: str = "zhangsan") -> tuple[float, float]:
    """(reserved, used) sick days of 2026."""
    [b] = [b for b in await engine.balances(person, 2026) if b.leave_type == "sick"]
    return b.reserved, b.used


def decisions(request: Request, step: int) -> list[str]:
    """History lines that record a person's decision on a step."""
    return [
        h.action
        for h in request.history
        if h.step == step and h.actor is not None and h.action.startswith(("approved", "rejected"))
    ]


async def test_200_concurrent_approvals_by_the_approver_record_one_decision(
    engines: list[Engine],
):
    """200 simultaneous approvals of one step (direct clicks, confirmed cards, strangers) record one decision, one set of events and one ledger move."""
    e0 = engines[0]
    req = await submitted(e0, "zhangsan", SICK_6_DAYS)
    # 20 confirm cards for the same decision, prepared before anyone decided
    cards = [
        await engines[i % REPLICAS].prepare_decision("wangfang", req.id, "approve", f"card {i}")
        for i in range(20)
    ]
    card_ids = iter([c.pending.id for c in cards])
    spy = ConflictSpy(engines)
    calls: list[Awaitable[Any]] = []
    kinds: list[str] = []
    for i in range(CALLS):
        e = engines[i % REPLICAS]
        if i % 10 == 3:
            calls.append(e.confirm(next(card_ids), "wangfang"))
            kinds.append("card")
        elif i % 20 == 7:
            calls.append(e.decide(req.id, 0, "lisi", "approve"))  # not on the chain
            kinds.append("stranger")
        elif i % 20 == 17:
            calls.append(e.decide(req.id, 0, "zhangsan", "approve"))  # own request
            kinds.append("stranger")
        else:
            calls.append(e.decide(req.id, 0, "wangfang", "approve", None if i % 2 else f"ok {i}"))
            kinds.append("approver")
    results = await settle(calls)

    assert spy.keys, "the calls did not race: no version guard ever failed"
    for kind, r in zip(kinds, results, strict=True):
        if kind == "stranger":
            assert isinstance(r, NotAllowed | InvalidState), r
        else:
            got = r.request if isinstance(r, Outcome) else r
            assert isinstance(got, Request), r
            assert got.steps[0].status is StepStatus.APPROVED
            assert got.steps[0].decided_by == "wangfang"
            assert got.current_step == 1 and got.steps[1].assignee == "liuyang"

    final = await e0.get_request(req.id, "zhangsan")
    assert final.version == 3  # drafted, submitted, decided: one write for 200 clicks
    assert decisions(final, 0) == ["approved"]
    assert final.status is RequestStatus.PENDING and final.steps[1].status is StepStatus.PENDING
    assert await request_events(e0, req.id) == Counter(
        {
            ("request_submitted", None): 1,
            ("task_assigned", 0): 1,
            ("step_approved", 0): 1,
            ("task_assigned", 1): 1,
        }
    )
    assert await sick_balance(e0) == (6, 0)  # still reserved once, not doubled
    r = e0.store.redis
    assert req.id not in await r.zrange(e0.keys.user_open("wangfang"), 0, -1)
    assert req.id in await r.zrange(e0.keys.user_open("liuyang"), 0, -1)
    for card in cards:  # every card click is settled, none left open
        p = await e0.pending_action(card.pending.id, "wangfang")
        assert p.status is PendingStatus.CONFIRMED


async def test_200_concurrent_final_approvals_use_the_days_once(engines: list[Engine]):
    """200 simultaneous approvals of the last step approve the request once and turn the reserved days into used days once."""
    e0 = engines[0]
    req = await submitted(e0, "zhangsan", SICK_6_DAYS)
    await e0.decide(req.id, 0, "wangfang", "approve")
    spy = ConflictSpy(engines)
    results = await settle(
        [engines[i % REPLICAS].decide(req.id, 1, "liuyang", "approve") for i in range(CALLS)]
    )

    assert spy.keys
    assert not unexpected(results)
    assert all(r.status is RequestStatus.APPROVED for r in results)
    final = await e0.get_request(req.id, "zhangsan")
    assert final.version == 4
    assert decisions(final, 1) == ["approved"]
    assert [h.action for h in final.history].count("approved") == 3  # 2 steps, then the request
    assert await request_events(e0, req.id) == Counter(
        {
            ("request_submitted", None): 1,
            ("task_assigned", 0): 1,
            ("step_approved", 0): 1,
            ("task_assigned", 1): 1,
            ("step_approved", 1): 1,
            ("request_approved", None): 1,
        }
    )
    assert await sick_balance(e0) == (0, 6)
    ledger = await e0.store.redis.hgetall(e0.keys.ledger("zhangsan"))
    assert (
        parse_ledger_value(req.id, "zhangsan", ledger[LEAVE_PREFIX + req.id]).status == "approved"
    )


async def test_200_concurrent_approvals_and_rejections_let_exactly_one_win(
    engines: list[Engine],
):
    """When 100 approve and 100 reject clicks race on one step, one decision wins, the other kind is refused with InvalidState, and the ledger follows the winner."""
    e0 = engines[0]
    req = await submitted(e0, "zhangsan", SICK_6_DAYS)
    spy = ConflictSpy(engines)
    calls, verdicts = [], []
    for i in range(CALLS):
        verdict = "approve" if i % 2 == 0 else "reject"
        comment = f"ok {i}" if verdict == "approve" else f"no {i}: clashes with the release"
        calls.append(engines[i % REPLICAS].decide(req.id, 0, "wangfang", verdict, comment))
        verdicts.append(verdict)
    results = await settle(calls)

    assert spy.keys
    assert not unexpected(results, (InvalidState,))
    winners = {v for v, r in zip(verdicts, results, strict=True) if isinstance(r, Request)}
    losers = {v for v, r in zip(verdicts, results, strict=True) if isinstance(r, InvalidState)}
    assert len(winners) == 1 and losers == {"approve", "reject"} - winners
    won = winners.pop()
    assert sum(isinstance(r, Request) for r in results) == CALLS // 2
    assert all("already" in str(r) for r in results if isinstance(r, InvalidState))

    final = await e0.get_request(req.id, "zhangsan")
    assert final.version == 3
    assert decisions(final, 0) == [{"approve": "approved", "reject": "rejected"}[won]]
    step = final.steps[0]
    assert step.decided_by == "wangfang" and step.comment is not None
    assert step.comment.startswith("ok" if won == "approve" else "no")
    assert all(r.steps[0].comment == step.comment for r in results if isinstance(r, Request))
    events = await request_events(e0, req.id)
    r = e0.store.redis
    calendar = {
        o.person
        for o in (await e0.who_is_out("wangfang", req.leave_start(), req.leave_end())).entries
    }
    ledger = await r.hgetall(e0.keys.ledger("zhangsan"))
    if won == "approve":
        assert final.status is RequestStatus.PENDING and final.current_step == 1
        assert events == Counter(
            {
                ("request_submitted", None): 1,
                ("task_assigned", 0): 1,
                ("step_approved", 0): 1,
                ("task_assigned", 1): 1,
            }
        )
        assert await sick_balance(e0) == (6, 0)
        assert LEAVE_PREFIX + req.id in ledger and "zhangsan" in calendar
    else:
        assert final.status is RequestStatus.REJECTED
        assert final.steps[1].status is StepStatus.CANCELLED
        assert events == Counter(
            {("request_submitted", None): 1, ("task_assigned", 0): 1, ("request_rejected", 0): 1}
        )
        assert await sick_balance(e0) == (0, 0)
        assert LEAVE_PREFIX + req.id not in ledger and "zhangsan" not in calendar
    assert req.id not in await r.zrange(e0.keys.user_open("wangfang"), 0, -1)


async def test_50_concurrent_confirms_submit_once(engines: list[Engine]):
    """50 simultaneous clicks on one Submit card submit one request; the other 49 are told it was already done."""
    e0 = engines[0]
    p = await e0.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    spy = ConflictSpy(engines)
    results = await settle(
        [engines[i % REPLICAS].confirm(p.pending.id, "zhangsan") for i in range(50)]
    )

    assert spy.keys
    assert not unexpected(results)
    assert sorted(r.repeated for r in results) == [False] + [True] * 49
    assert {r.request.id for r in results} == {p.request.id}
    assert all(r.request.status is RequestStatus.PENDING for r in results)

    final = await e0.get_request(p.request.id, "zhangsan")
    assert final.version == 2
    assert [h.action for h in final.history].count("submitted") == 1
    assert await request_events(e0, p.request.id) == Counter(
        {("request_submitted", None): 1, ("task_assigned", 0): 1}
    )
    assert await sick_balance(e0) == (6, 0)
    r = e0.store.redis
    assert await r.zrange(e0.keys.user_requests("zhangsan"), 0, -1) == [p.request.id]
    assert await r.zrange(e0.keys.all_requests, 0, -1) == [p.request.id]
    assert await r.zrange(e0.keys.user_open("wangfang"), 0, -1) == [p.request.id]
    pending = await e0.pending_action(p.pending.id, "zhangsan")
    assert pending.status is PendingStatus.CONFIRMED
    assert (pending.request_id, pending.payload, pending.digest) == (p.request.id, {}, "")


async def test_two_racing_submissions_beyond_the_balance_let_one_through(
    engines: list[Engine],
):
    """For five people at once, two simultaneous leave submissions that each fit but together exceed the allowance end with one submitted and one InsufficientBalance."""
    people = ["zhangsan", "lisi", "chenjing", "oliver", "priya"]  # 10 sick days each

    async def apply_for(engine: Engine, person: str, fields: dict[str, Any]) -> Request:
        return await submitted(engine, person, fields)

    calls = []
    for n, person in enumerate(people):
        calls.append(apply_for(engines[(2 * n) % REPLICAS], person, SICK_6_DAYS))
        calls.append(apply_for(engines[(2 * n + 1) % REPLICAS], person, SICK_5_DAYS))
    results = await settle(calls)

    assert not unexpected(results, (InsufficientBalance,))
    e0 = engines[0]
    entries = await e0.store.redis.xrange(e0.keys.outbox)
    submitted_ids = [f["request_id"] for _, f in entries if f["type"] == "request_submitted"]
    for n, person in enumerate(people):
        pair = results[2 * n : 2 * n + 2]
        wins = [r for r in pair if isinstance(r, Request)]
        assert len(wins) == 1, (person, pair)
        assert sum(isinstance(r, InsufficientBalance) for r in pair) == 1
        days = wins[0].derived["working_days"]
        assert await sick_balance(e0, person) == (days, 0)
        assert await e0.store.redis.zrange(e0.keys.user_requests(person), 0, -1) == [wins[0].id]
        assert wins[0].id in submitted_ids
    assert len(submitted_ids) == len(people)


async def test_a_submission_computed_from_a_stale_ledger_is_refused_by_the_guard(
    engines: list[Engine],
):
    """A confirm that read the ledger before another submission committed fails the ledger version guard, re-reads and ends in InsufficientBalance."""
    a, b = engines[0], engines[1]
    pa = await a.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    pb = await b.prepare_submit("zhangsan", "leave", SICK_5_DAYS)
    ledger_key = b.keys.ledger("zhangsan")
    b_has_read, a_is_done = asyncio.Event(), asyncio.Event()
    read = b.store.read

    async def read_then_stall(*calls: tuple[str, Any]) -> list[Any]:
        got = await read(*calls)
        if not b_has_read.is_set() and any(list(args)[:1] == [ledger_key] for _, args in calls):
            b_has_read.set()  # b now holds a ledger that is about to be stale
            await asyncio.wait_for(a_is_done.wait(), 30)
        return got

    b.store.read = read_then_stall  # type: ignore[method-assign]
    spy = ConflictSpy([b])

    async def confirm_a() -> Outcome:
        try:
            await asyncio.wait_for(b_has_read.wait(), 30)
            return await a.confirm(pa.pending.id, "zhangsan")
        finally:
            a_is_done.set()

    ra, rb = await settle([confirm_a(), b.confirm(pb.pending.id, "zhangsan")])

    assert isinstance(ra, Outcome) and not ra.repeated, ra
    assert isinstance(rb, InsufficientBalance), rb
    assert spy.keys == [ledger_key]  # b's first write was refused by the ledger guard alone
    assert await sick_balance(a) == (6, 0)
    draft = await a.get_request(pb.request.id, "zhangsan")
    assert draft.status is RequestStatus.DRAFT
    assert (await a.pending_action(pb.pending.id, "zhangsan")).status is PendingStatus.OPEN
