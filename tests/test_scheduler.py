"""The worker's schedule with a fixed clock: reminders in working hours, escalation, expiry, delegation windows, races."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from tests.conftest import delete_org, open_real_redis
from tests.helpers import ANNUAL_2_DAYS, TEAM_LUNCH, submitted
from workflow.clock import FixedClock
from workflow.counter import Dates
from workflow.engine import Engine
from workflow.models import RequestStatus
from workflow.scheduler import Scheduler
from workflow.store import Tx
from workflow.worktime import add_working_hours

SHANGHAI, LONDON = ZoneInfo("Asia/Shanghai"), ZoneInfo("Europe/London")


def at(tz: ZoneInfo, *args: int) -> FixedClock:
    """A clock standing at a local time (an instant, so every timezone agrees)."""
    return FixedClock(datetime(*args, tzinfo=tz).astimezone(UTC))


async def due(engine: Engine) -> dict[str, datetime]:
    items = await engine.store.redis.zrange(engine.keys.due, 0, -1, withscores=True)
    return {m: datetime.fromtimestamp(s / 1000, UTC) for m, s in items}


async def events(engine: Engine, kind: str) -> list[dict]:
    return [
        {"request_id": f["request_id"], **json.loads(f["data"])}
        for _, f in await engine.store.redis.xrange(engine.keys.outbox)
        if f["type"] == kind
    ]


def use_clock(engine: Engine, clock: FixedClock) -> FixedClock:
    engine.clock = clock
    engine.setting = engine.setting.__class__(
        engine.directory, clock, engine.keys, engine.config.policy
    )
    return clock


async def test_a_reminder_falls_24_working_hours_later_across_the_weekend_in_the_approvers_timezone(
    engine: Engine,
):
    """Submitted Friday 16:00 in Shanghai: 2 h Friday + 9 h Monday + 9 h Tuesday + 4 h → Wednesday 13:00 local."""
    use_clock(engine, at(SHANGHAI, 2026, 12, 4, 16, 0))
    req = await submitted(
        engine, fields={"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    plan = await due(engine)
    assert plan[f"remind|{req.id}|0"].astimezone(SHANGHAI) == datetime(
        2026, 12, 9, 13, 0, tzinfo=SHANGHAI
    )
    # SLA 48 working hours: 2 + 9·5 (Mon–Fri) + 1 → the Monday after, 10:00
    assert plan[f"escalate|{req.id}|0"].astimezone(SHANGHAI) == datetime(
        2026, 12, 14, 10, 0, tzinfo=SHANGHAI
    )
    assert f"expire|{req.id}|" in plan


async def test_a_london_approver_is_reminded_in_london_working_hours(engine: Engine):
    """Oliver submits Friday 17:00 London; Emma's reminder is Wednesday 14:00 London, not a Shanghai hour."""
    use_clock(engine, at(LONDON, 2026, 12, 4, 17, 0))
    req = await submitted(
        engine,
        actor="oliver",
        fields={"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"},
    )
    remind = (await due(engine))[f"remind|{req.id}|0"].astimezone(LONDON)
    assert remind == datetime(2026, 12, 9, 14, 0, tzinfo=LONDON)


async def test_a_reminder_when_due_then_escalation_at_the_sla(engine: Engine):
    """Nothing before it is due; then one reminder; none that would fall after the SLA; then the step moves to 王芳's manager."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    scheduler = Scheduler(engine)
    assert await scheduler.run_due() == 0
    clock.advance(timedelta(days=3))  # Saturday 09:00: the Friday 09:00 reminder is due
    assert await scheduler.run_due() == 1
    reminders = await events(engine, "reminder_sent")
    assert [(r["assignee"], r["automatic"], r["n"]) for r in reminders] == [("wangfang", True, 1)]
    clock.advance(timedelta(days=4))  # Wednesday 09:00: the next reminder would fall after the SLA
    await scheduler.run_due()
    assert len(await events(engine, "reminder_sent")) == 1
    clock.advance(timedelta(days=1))  # Thursday: past 48 working hours (Wednesday 12:00)
    await scheduler.run_due()
    escalated = await events(engine, "step_escalated")
    assert [(e["previous"], e["assignee"]) for e in escalated] == [("wangfang", "david")]
    now = await engine.get_request(req.id, "zhangsan")
    assert now.steps[0].assignee == "david" and now.steps[0].escalations == 1
    escalated_to = {"code": "escalated", "from": "wangfang", "to": "david", "hours": 48.0}
    assert now.steps[0].routed_reason.model_dump(exclude_none=True) == escalated_to
    assert [h.reason for h in now.history if h.action == "escalated"] == [
        now.steps[0].routed_reason
    ]
    assert [r.id for r in (await engine.my_approvals("david")).requests] == [req.id]
    assert (await engine.my_approvals("wangfang")).requests == []
    done = await engine.decide(req.id, 0, "david", "approve")
    assert done.status is RequestStatus.APPROVED
    assert await due(engine) == {}  # a decided request leaves nothing scheduled


async def test_a_decision_cancels_the_reminders(engine: Engine):
    """Once decided, the due reminder does nothing."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(req.id, 0, "wangfang", "approve")
    clock.advance(timedelta(days=10))
    await Scheduler(engine).run_due()
    assert await events(engine, "reminder_sent") == []


async def test_an_undecided_request_expires_and_releases_its_days(engine: Engine):
    """After expire_after_days the request expires, the balance comes back and both sides are told."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(
        engine, fields={"leave_type": "annual", "start": "2027-01-11", "end": "2027-01-12"}
    )
    clock.advance(timedelta(days=31))
    scheduler = Scheduler(engine)
    while await scheduler.run_due():
        pass
    now = await engine.get_request(req.id, "zhangsan")
    assert now.status is RequestStatus.EXPIRED
    [annual] = [b for b in await engine.balances("zhangsan", 2027) if b.leave_type == "annual"]
    assert annual.reserved == 0
    expired = await events(engine, "request_expired")
    assert len(expired) == 1 and expired[0]["assignee"] in ("david", "wangfang")


async def test_a_delegation_for_next_week_moves_open_steps_on_its_first_day(engine: Engine):
    """Before its first day nothing moves; on that day (local midnight) 王芳's open step goes to 陈静."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(engine, actor="lisi", fields=ANNUAL_2_DAYS)
    await engine.set_delegation("wangfang", "chenjing", date(2026, 12, 7), date(2026, 12, 11))
    scheduler = Scheduler(engine)
    await scheduler.run_due()
    assert (await engine.get_request(req.id, "lisi")).steps[0].assignee == "wangfang"
    clock.advance(timedelta(days=4, hours=15, minutes=1))  # Monday 00:01 Shanghai
    await scheduler.run_due()
    assert (await engine.get_request(req.id, "lisi")).steps[0].assignee == "chenjing"
    assigned = [e for e in await events(engine, "task_assigned") if e["assignee"] == "chenjing"]
    assert assigned and assigned[0]["routed_reason"] == "delegated"


async def test_a_delegation_confirmed_on_a_card_applies_once(engine: Engine):
    """prepare_delegation + confirm sets it; a second click returns the first result."""
    use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    p = await engine.prepare_delegation("wangfang", "lisi", date(2026, 12, 2), date(2026, 12, 4))
    first = await engine.confirm(p.pending.id, "wangfang")
    again = await engine.confirm(p.pending.id, "wangfang")
    assert first.delegation is not None and again.repeated
    assert len(await engine.delegations()) == 1


async def test_digest_and_weekly_out_are_queued_once_each(engine: Engine):
    """At 09:00 local an approver with pending items gets one digest; Friday 15:00 a manager gets one who's-out."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 4, 8, 0))
    await submitted(engine, fields=ANNUAL_2_DAYS)
    scheduler = Scheduler(engine)
    assert await scheduler.periodic() == 0  # 08:00 in Shanghai: too early
    clock.advance(timedelta(hours=1, minutes=5))
    await scheduler.periodic()
    await Scheduler(engine).periodic()  # a second worker does not queue it again
    digests = await events(engine, "daily_digest")
    assert [(d["person"], d["count"]) for d in digests] == [("wangfang", 1)]
    clock.advance(timedelta(hours=6))  # Friday 15:05 Shanghai
    await scheduler.periodic()
    weekly = {e["person"] for e in await events(engine, "weekly_out")}
    assert "wangfang" in weekly and "emma" not in weekly  # London is still on Friday morning


@pytest.mark.redis
async def test_two_workers_racing_for_the_same_due_item_send_one_reminder(config):
    """Two workers on separate connections claim at the same moment: one reminder is sent."""
    clients = [await open_real_redis() for _ in range(2)]
    try:
        clock = at(SHANGHAI, 2026, 12, 2, 9, 0)
        engines = [Engine(config, c, clock) for c in clients]
        await submitted(engines[0], fields=ANNUAL_2_DAYS)
        clock.advance(timedelta(days=3))
        schedulers = [Scheduler(e) for e in engines]
        for _ in range(20):
            await asyncio.gather(*(s.run_due() for s in schedulers))
        assert len(await events(engines[0], "reminder_sent")) == 1
    finally:
        await delete_org(clients[0], config.organisation.id)
        for c in clients:
            await c.aclose()


async def test_a_worker_killed_mid_run_is_replaced_and_the_item_is_handled_once(engine: Engine):
    """A worker that claimed an item and died: after the lease runs out another worker handles it, once."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    await submitted(engine, fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(days=3))
    dead = Scheduler(engine, lease_ms=60_000)
    claimed = await dead.claim()
    assert len(claimed) == 1  # ... and the worker dies here
    other = Scheduler(engine, lease_ms=60_000)
    assert await other.run_due() == 0  # the lease still holds
    clock.advance(timedelta(minutes=2))
    assert await other.run_due() == 1
    assert await other.run_due() == 0
    assert len(await events(engine, "reminder_sent")) == 1


async def test_no_more_reminders_than_the_process_allows(engine: Engine):
    """With a long SLA, reminders stop at max_reminders (2 in the demo)."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    stored = await engine.get_request(req.id, "zhangsan")
    stored.steps[0].sla_hours = 500
    await engine.store.apply(Tx().put(engine.keys.request(req.id), stored))
    await engine.store.redis.zadd(engine.keys.due, {f"escalate|{req.id}|0": 10**15})
    scheduler = Scheduler(engine)
    for _ in range(30):
        clock.advance(timedelta(days=1))
        await scheduler.run_due()
    assert [e["n"] for e in await events(engine, "reminder_sent")] == [1, 2]


async def run_hourly(engine: Engine, clock: FixedClock, until: datetime) -> dict[str, datetime]:
    """Run the schedule every hour up to `until`; when each kind of event first came out."""
    scheduler, first = Scheduler(engine), {}
    seen = {k: len(await events(engine, k)) for k in ("reminder_sent", "step_escalated")}
    while clock.now(UTC) < until:
        clock.advance(timedelta(hours=1))
        if not await scheduler.run_due():
            continue
        for kind, n in seen.items():
            if kind not in first and len(await events(engine, kind)) > n:
                first[kind] = clock.now(UTC)
    return first


@pytest.mark.parametrize("accept", [True, False], ids=["accepted", "declined"])
async def test_the_approvers_clock_stands_still_while_the_requester_weighs_other_dates(
    engine: Engine, accept: bool
):
    """王芳 suggests other dates an hour after 张三 asks; for ten days 张三 does not answer and
    王芳 is neither reminded nor escalated past. His answer restarts her clock: the reminder
    comes 24 working hours after it, the escalation to David 48."""
    clock = use_clock(engine, at(SHANGHAI, 2026, 12, 2, 9, 0))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(hours=1))
    await engine.counter("wangfang", req.id, 0, Dates(date(2026, 12, 16), date(2026, 12, 17)))
    assert await run_hourly(engine, clock, clock.now(UTC) + timedelta(days=10)) == {}
    held = await engine.get_request(req.id, "zhangsan")
    assert held.steps[0].assignee == "wangfang" and held.steps[0].reminders == 0
    assert not {"reminded", "escalated"} & {h.action for h in held.history}
    assert all(t > clock.now(UTC) for t in (await due(engine)).values())  # put back, not dropped
    answered = clock.now(UTC)
    await engine.answer_counter("zhangsan", req.id, accept=accept)
    first = await run_hourly(engine, clock, answered + timedelta(days=14))
    wang = engine.person("wangfang")
    hours = engine.config.policy.working_hours
    for kind, span in (("reminder_sent", 24), ("step_escalated", 48)):
        restart = add_working_hours(answered, span, wang, hours)
        assert restart <= first[kind] < restart + timedelta(hours=1), kind
    [escalated] = await events(engine, "step_escalated")
    assert (escalated["previous"], escalated["assignee"]) == ("wangfang", "david")


async def test_the_digest_counts_every_waiting_step_and_looks_past_the_oldest_page(
    engine: Engine,
):
    """Sarah (finance) holds 21 claims: the oldest 20 reached her this morning after 09:00 (they
    came with their own cards), the newest has waited since yesterday. Her digest is queued
    all the same, and counts all 21 (not the 20 of the oldest page)."""
    clock = use_clock(engine, at(LONDON, 2026, 12, 2, 10, 0))
    scheduler = Scheduler(engine)
    await scheduler.periodic()  # the digests fall due from tomorrow 09:00 on
    claim = {**TEAM_LUNCH, "amount": 1500}  # over 1,000: the manager, then finance
    claims = []
    for _ in range(21):
        claims.append(await submitted(engine, fields=claim, process="expense"))
        clock.advance(timedelta(minutes=1))
    await engine.decide(claims[-1].id, 0, "wangfang", "approve")
    clock.advance(timedelta(hours=23))  # Thursday 09:5x London: after the digest time
    for c in claims[:-1]:
        await engine.decide(c.id, 0, "wangfang", "approve")
    mine = await engine.my_approvals("sarah")
    assert mine.total == 21 and claims[-1].id not in [r.id for r in mine.requests]
    assert await scheduler.periodic() >= 1
    digests = await events(engine, "daily_digest")
    assert [(d["person"], d["count"]) for d in digests] == [("sarah", 21)]
