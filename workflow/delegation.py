"""Delegation: while someone is away, their delegate holds and decides their approval steps."""

from __future__ import annotations

from datetime import date, datetime, time
from typing import TYPE_CHECKING
from zoneinfo import ZoneInfo

import structlog

from workflow import away
from workflow.errors import FieldProblem, ValidationFailed
from workflow.models import Delegation, EventType, Request, RoutedReason, RoutingCode
from workflow.store import Tx
from workflow.transitions import Change, schedule_step, task_score, unschedule_step

if TYPE_CHECKING:
    from workflow.engine import Engine

log = structlog.get_logger("workflow")


def check(engine: Engine, actor: str, delegate: str, start: date, end: date) -> None:
    """Refuse a delegation that cannot work, with the reason."""
    engine.person(actor)
    engine.person(delegate)
    if delegate == actor:
        raise ValidationFailed(
            "You cannot delegate to yourself.",
            zh="不能委托给自己。",
            problems={"delegate": FieldProblem("delegate_self", "is you")},
        )
    if end < start:
        raise ValidationFailed(
            f"The end date {end} is before the start date {start}.",
            zh=f"结束日期 {end} 早于开始日期 {start}。",
            problems={"end": FieldProblem("before_start", "is before start", start=start)},
        )
    if end < engine.today_for(actor):
        raise ValidationFailed(
            f"The delegation would end on {end}, which has passed.",
            zh=f"委托的结束日期 {end} 已经过去。",
            problems={"end": FieldProblem("delegation_past", "has passed", end=end)},
        )


async def store(engine: Engine, d: Delegation, tx: Tx | None = None) -> Tx:
    """Record the delegation; schedule the hand-over of open steps for its first day if that is later."""
    tx = tx or Tx()
    keys = engine.keys
    tx.hset(keys.delegations, f"{d.person}|{d.id}", d.model_dump_json())
    today = engine.today_for(d.person)
    away.add_delegation(tx, keys, d, engine.directory, today)
    if d.start > today:
        tz = ZoneInfo(engine.person(d.person).timezone)
        starts = datetime.combine(d.start, time(0, 0), tz)
        tx.zadd(
            keys.due,
            int(starts.timestamp() * 1000),
            f"delegate|{d.person}|{d.id}",
        )
    return tx


async def reassign(
    engine: Engine, d: Delegation, *, tx: Tx | None = None, release: str | None = None
) -> int:
    """Move the person's open steps to the delegate (when the delegation is in force today)."""
    keys, directory = engine.keys, engine.directory
    if not d.active_on(engine.today_for(d.person)):
        tx = tx or Tx()
        if release:
            tx.zrem(keys.due_leases, release)
        await engine.store.apply(tx)
        return 0
    [ids] = await engine.store.read(("zrange", [keys.user_open(d.person), 0, -1]))
    requests: list[Request] = await engine._requests(list(ids))
    tx = tx or Tx()
    now = engine.clock.now(directory.timezone_of(d.person))
    moved = 0
    why = RoutedReason(code=RoutingCode.DELEGATED, from_=d.person, to=d.delegate, until=d.end)
    for req in requests:
        step = req.open_step()
        if step is None or step.assignee != d.person or d.delegate in (req.requester, req.filed_by):
            continue
        change = Change(req, now, tx=tx)
        unschedule_step(change, step, engine.setting)
        tx.zrem(keys.user_open(d.person), req.id)
        tx.zadd(keys.user_open(d.delegate), task_score(req), req.id)
        step.assignee, step.assigned_at, step.reminders, step.routed_reason = (
            d.delegate,
            now,
            0,
            why,
        )
        change.log(None, "routed", step=step.index, reason=why)
        change.emit(
            EventType.TASK_ASSIGNED,
            step=step.index,
            assignee=d.delegate,
            approver=step.approver,
            routed_reason="delegated",
            routed_from=d.person,
        )
        schedule_step(change, step, engine.setting)
        change.finish(engine.setting)
        moved += 1
    if release:
        tx.zrem(keys.due_leases, release)
    await engine.store.apply(tx)
    log.info("delegation_applied", person=d.person, delegate=d.delegate, moved=moved)
    return moved
