"""`approvals-bot demo`: the engine end to end on the demo organisation, narrated in the terminal.

Stands in for the chat platforms until they exist: every step below is what a click in Slack
will do, and every refusal is the engine's, not a prompt's.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

import redis.asyncio as aioredis

from bot.wording import history_note
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.errors import WorkflowError

DEMO_NOW = datetime(2026, 12, 2, 9, 0)  # a Wednesday morning, wherever each person is


async def run_demo(
    config: OrgConfig, redis: aioredis.Redis, out: Callable[[str], None] = print
) -> int:
    """Play one approved and one rejected leave request, with the refusals along the way."""
    engine = Engine(config, redis, FixedClock(DEMO_NOW))
    name = lambda pid: engine.person(pid).name  # noqa: E731

    async def refused(what: str, coro) -> None:
        try:
            await coro
        except WorkflowError as e:
            out(f"   ✗ {what}: refused — {e}")
        else:  # pragma: no cover - the demo proves a rule; reaching here is a bug
            raise AssertionError(f"{what} was not refused")

    out(
        f"Today is {DEMO_NOW:%A %Y-%m-%d}, 09:00 for everyone. Organisation: {config.organisation.name}.\n"
    )
    out("1. 张三 (Shanghai) asks for sick leave from Thu 3 to Thu 10 December.")
    p = await engine.prepare_submit(
        "zhangsan",
        "leave",
        {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-10", "reason": "胃肠炎"},
    )
    req = p.request
    out(
        f"   draft {req.id}: {req.derived['working_days']:g} working days (the weekend does not count)"
    )
    out(
        f"   approval chain: {' → '.join(name(s.approver) for s in req.steps)} (HR because it is over 3 days)"
    )
    out(
        f"   sick leave left after it: {p.balance_after.available:g} days"
        if p.balance_after
        else ""
    )
    out(f"   pending action {p.pending.id}: awaiting {name(p.pending.actor)}'s click on Submit")
    await refused("李四 clicks 张三's Submit", engine.confirm(p.pending.id, "lisi"))
    outcome = await engine.confirm(p.pending.id, "zhangsan")
    step = outcome.request.open_step()
    out(f"   ✓ submitted; step {step.index + 1} of {len(req.steps)} is with {name(step.assignee)}")
    again = await engine.confirm(p.pending.id, "zhangsan")
    out(
        f"   ✓ a double click returns the first result (repeated={again.repeated}); nothing changes twice"
    )

    out("\n2. The decisions.")
    await refused("张三 approves his own request", engine.decide(req.id, 0, "zhangsan", "approve"))
    await refused(
        "李四 approves it (not the assignee)", engine.decide(req.id, 0, "lisi", "approve")
    )
    await engine.decide(req.id, 0, "wangfang", "approve", "早日康复")
    out("   ✓ 王芳 approves step 1")
    await refused(
        "王芳 clicks Approve on step 1 again, as Reject",
        engine.decide(req.id, 0, "wangfang", "reject", "oops"),
    )
    view = await engine.request_view(req.id, "liuyang")
    out(
        f"   刘洋's card: balance after {view.balance_after:g} days; team out then: "
        f"{', '.join(o.name for o in view.team_out) or 'nobody'}"
    )
    final = await engine.decide(req.id, 1, "liuyang", "approve")
    out(f"   ✓ 刘洋 approves step 2 → request {final.status.value}")

    out("\n3. Oliver (London) asks for annual leave over Christmas; Emma rejects it.")
    p2 = await engine.prepare_submit(
        "oliver", "leave", {"leave_type": "annual", "start": "2026-12-21", "end": "2027-01-04"}
    )
    by_year = ", ".join(f"{d:g} in {y}" for y, d in p2.request.derived["days_by_year"].items())
    out(
        f"   {p2.request.derived['working_days']:g} working days ({by_year}): "
        "Christmas, Boxing Day and New Year's Day are English bank holidays"
    )
    await engine.confirm(p2.pending.id, "oliver")
    await refused(
        "Emma rejects without a reason", engine.decide(p2.request.id, 0, "emma", "reject")
    )
    rejected = await engine.decide(
        p2.request.id, 0, "emma", "reject", "Year-end close: please move it to January"
    )
    out(f"   ✓ rejected with reason; request {rejected.status.value}, the days are released")

    out("\n4. What the engine knows now.")
    for b in await engine.balances("zhangsan", 2026):
        if b.allowance is not None:
            out(f"   张三 {b.leave_type}: {b.available:g} of {b.allowance:g} left")
    outs = await engine.who_is_out("lisi", date(2026, 12, 1), date(2026, 12, 31))
    out(
        "   who is out in December (names and dates only): "
        + "; ".join(f"{o.name} {o.start}–{o.end}" for o in outs.entries)
    )
    out("   history of " + req.id + ":")
    for h in final.history:
        who = name(h.actor) if h.actor else "system"
        note = history_note(h, engine, "en")
        out(f"     {h.at:%H:%M} {who}: {h.action}" + (f" — {note}" if note else ""))
    events = await redis.xrange(engine.keys.outbox)
    out(
        f"   outbox ({len(events)} events, written atomically with each change): "
        + ", ".join(e[1]["type"] for e in events)
    )
    return 0
