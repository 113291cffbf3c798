"""The pieces every transition shares: history lines, chain advance, ledger and index writes.

Functions here change a Request in memory and add the matching writes and outbox events
to a Tx; the engine reads, calls them, and applies the Tx atomically.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from workflow import away, whos_out
from workflow.clock import Clock, today_in
from workflow.config import Policy
from workflow.directory import Directory
from workflow.keys import OrgKeys, month_of
from workflow.leave import LEAVE_PREFIX, entry_for, ledger_value, reserved_field, used_field
from workflow.models import (
    CounterStatus,
    EventType,
    HistoryEntry,
    Request,
    RequestStatus,
    RoutedReason,
    Step,
    StepStatus,
)
from workflow.routing import Availability, route
from workflow.store import Tx
from workflow.worktime import add_working_hours


@dataclass
class Change:
    """A transition being built: the request, its writes, its events."""

    request: Request
    now: datetime
    tx: Tx = field(default_factory=Tx)
    events: list[dict[str, Any]] = field(default_factory=list)

    def log(
        self,
        actor: str | None,
        action: str,
        *,
        step: int | None = None,
        comment: str | None = None,
        reason: RoutedReason | None = None,
    ) -> None:
        self.request.history.append(
            HistoryEntry(
                at=self.now, actor=actor, action=action, step=step, comment=comment, reason=reason
            )
        )

    def emit(self, type_: EventType, **data: Any) -> None:
        self.events.append({"type": type_.value, **data})

    def finish(self, s: Setting) -> Tx:
        """Write the request (guarded by the version it was read at) and queue the events.

        An open request also keeps the people its routing can reach (away.REACH_FIELD), so the
        next transition reads the availability of those people only; a decided one drops it.
        """
        req, keys = self.request, s.keys
        key = keys.request(req.id)
        lapse_stale_counter(req)
        self.tx.expect(key, req.version).put(key, req)
        if req.submitted_at is not None:  # its month's kept rows are stale from now on
            self.tx.hincrby(keys.month_changes, month_of(req.submitted_at), 1)
        if req.status.is_final:
            self.tx.hdel(key, away.REACH_FIELD)
        else:
            self.tx.hset(key, away.REACH_FIELD, away.request_reach(s.directory, req))
        for event in self.events:
            data = {k: v for k, v in event.items() if k != "type"}
            self.tx.xadd(
                keys.outbox,
                {
                    "type": event["type"],
                    "request_id": req.id,
                    "org": keys.org,
                    "at": self.now.isoformat(),
                    "data": json.dumps(data, default=str, separators=(",", ":")),
                },
            )
        return self.tx


def lapse_stale_counter(req: Request) -> None:
    """A suggestion of other dates lapses when its step is decided or the request ends unanswered."""
    c = req.counter
    open_ = c is not None and c.status is CounterStatus.OPEN
    if open_ and (req.status is not RequestStatus.PENDING or req.current_step != c.step):
        c.status = CounterStatus.LAPSED


@dataclass(frozen=True)
class Setting:
    """What every transition needs besides the request: who people are, the time, the keys, the rules."""

    directory: Directory
    clock: Clock
    keys: OrgKeys
    policy: Policy


def due_member(kind: str, request_id: str, step: int | None = None) -> str:
    """A scheduled item: what to do, to which request (and step)."""
    return f"{kind}|{request_id}|{'' if step is None else step}"


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


def schedule_step(change: Change, step: Step, s: Setting, *, reminder_only: bool = False) -> None:
    """Plan the open step's next reminder (from now) and its escalation (from when it was assigned).

    Both are counted in the holder's working hours, in their timezone and country.
    """
    holder = s.directory.get(step.assignee or step.approver)
    hours = s.policy.working_hours
    escalate_at = add_working_hours(step.assigned_at or change.now, step.sla_hours, holder, hours)
    if step.reminders < step.max_reminders:
        remind_at = add_working_hours(change.now, step.remind_after_hours, holder, hours)
        if remind_at < escalate_at:
            change.tx.zadd(
                s.keys.due, _ms(remind_at), due_member("remind", change.request.id, step.index)
            )
    if not reminder_only:
        change.tx.zadd(
            s.keys.due, _ms(escalate_at), due_member("escalate", change.request.id, step.index)
        )


def unschedule_step(change: Change, step: Step, s: Setting) -> None:
    change.tx.zrem(s.keys.due, due_member("remind", change.request.id, step.index))
    change.tx.zrem(s.keys.due, due_member("escalate", change.request.id, step.index))


def task_score(req: Request) -> int:
    """A request's place in its holder's open list (`keys.user_open`): when it was submitted."""
    return _ms(req.submitted_at or req.created_at)


def advance(change: Change, start_index: int, s: Setting, availability: Availability) -> None:
    """Open the next step from `start_index` (auto-approving where the chain says), or approve."""
    directory, clock, keys = s.directory, s.clock, s.keys
    req = change.request
    for step in req.steps[start_index:]:
        if step.auto_approve:
            step.status = StepStatus.AUTO_APPROVED
            step.decided_at = change.now
            change.log(
                None,
                "auto_approved",
                step=step.index,
                comment="Approved automatically by the process rules.",
            )
            continue
        today = today_in(clock, directory.timezone_of(step.approver))
        r = route(step.approver, req.requester, today, directory, availability, req.filed_by)
        step.assignee = r.assignee
        step.status = StepStatus.PENDING
        step.assigned_at = change.now
        step.routed_reason = r.reason_record()
        req.current_step = step.index
        if step.routed_reason is not None:
            change.log(None, "routed", step=step.index, reason=step.routed_reason)
        change.tx.zadd(keys.user_open(r.assignee), task_score(req), req.id)
        schedule_step(change, step, s)
        change.emit(
            EventType.TASK_ASSIGNED,
            step=step.index,
            assignee=r.assignee,
            approver=step.approver,
            routed_reason=r.reason,
            routed_from=r.via,
        )
        return
    req.status = RequestStatus.APPROVED
    req.current_step = None
    req.decided_at = change.now
    change.tx.zrem(keys.due, due_member("expire", req.id))
    change.log(None, "approved")
    change.emit(EventType.REQUEST_APPROVED)


def close_open_steps(change: Change, s: Setting) -> None:
    """Mark every step not yet decided as cancelled, take the task off its holder's list, drop its schedule."""
    keys = s.keys
    change.tx.zrem(keys.due, due_member("expire", change.request.id))
    for step in change.request.steps:
        if step.status is StepStatus.PENDING and step.assignee:
            change.tx.zrem(keys.user_open(step.assignee), change.request.id)
            unschedule_step(change, step, s)
        if step.status in (StepStatus.PENDING, StepStatus.WAITING):
            step.status = StepStatus.CANCELLED
    change.request.current_step = None


def move_leave(
    change: Change, s: Setting, before: RequestStatus, ledger_version: int | None
) -> None:
    """Keep the requester's ledger, the leave calendar and the away index in step with the request.

    Submitting reserves the days, approval turns them into used days, a rejection or a
    withdrawal releases them. `ledger_version` guards the ledger when the change adds days.
    The ledger keeps only leave that a new request could still overlap: entries that ended
    before the earliest day one may be booked (policy.max_days_back) are dropped as it is written.
    """
    req, keys = change.request, s.keys
    if not req.is_leave or before == req.status:
        return
    today = change.now.date()
    ledger = keys.ledger(req.requester)
    tx = change.tx
    if ledger_version is not None:
        tx.expect(ledger, ledger_version)
    tx.hincrby(ledger, "v", 1)  # so a concurrent submit by the same person sees the change
    leave_type = req.fields["leave_type"]
    by_year = {int(y): float(d) for y, d in req.derived.get("days_by_year", {}).items()}
    entry = entry_for(req.id, req.requester, req.fields, req.status)
    was_reserved = before is RequestStatus.PENDING
    for year, days in by_year.items():
        if was_reserved:
            tx.hincrbyfloat(ledger, reserved_field(year, leave_type), -days)
        if req.status is RequestStatus.PENDING:
            tx.hincrbyfloat(ledger, reserved_field(year, leave_type), days)
        elif req.status is RequestStatus.APPROVED:
            tx.hincrbyfloat(ledger, used_field(year, leave_type), days)
    booked = req.status in (RequestStatus.PENDING, RequestStatus.APPROVED)
    if booked:
        tx.hset(ledger, LEAVE_PREFIX + req.id, ledger_value(entry))
    else:
        tx.hdel(ledger, LEAVE_PREFIX + req.id)
    whos_out.write(
        tx,
        keys,
        person=req.requester,
        name=s.directory.get(req.requester).name,
        team=s.directory.team_of(req.requester),
        request_id=req.id,
        fields=req.fields,
        booked=booked,
        tentative=req.status is RequestStatus.PENDING,
        now=change.now,
    )
    span = (req.requester, req.fields["start"], req.fields["end"], req.id, today)
    if req.status is RequestStatus.APPROVED:
        away.add_away(tx, keys, *span)
    elif before is RequestStatus.APPROVED:
        away.drop_away(tx, keys, *span)
    horizon = today - timedelta(days=s.policy.max_days_back + away.KEEP_DAYS)
    tx.lprune(ledger, LEAVE_PREFIX, horizon.isoformat())
