"""The stored records: requests with their steps and history, pending actions, leave entries."""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RequestStatus(StrEnum):
    DRAFT = "draft"
    PENDING = "pending"
    APPROVED = "approved"
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"

    @property
    def is_final(self) -> bool:
        return self in (
            RequestStatus.APPROVED,
            RequestStatus.REJECTED,
            RequestStatus.WITHDRAWN,
            RequestStatus.EXPIRED,
        )


class StepStatus(StrEnum):
    WAITING = "waiting"  # not reached yet
    PENDING = "pending"  # the open step
    APPROVED = "approved"
    REJECTED = "rejected"
    AUTO_APPROVED = "auto_approved"
    CANCELLED = "cancelled"  # the request ended before this step was reached


class Decision(StrEnum):
    APPROVE = "approve"
    REJECT = "reject"


class PendingKind(StrEnum):
    SUBMIT = "submit"
    DECIDE = "decide"
    WITHDRAW = "withdraw"
    REMIND = "remind"
    DELEGATE = "delegate"
    COUNTER = "counter"  # an approver's suggestion of other dates, for their click


class PendingStatus(StrEnum):
    OPEN = "open"
    CONFIRMED = "confirmed"
    CANCELLED = "cancelled"


class EventType(StrEnum):
    """What the outbox carries; the notifier turns each into DMs and card updates."""

    REQUEST_SUBMITTED = "request_submitted"
    TASK_ASSIGNED = "task_assigned"
    STEP_APPROVED = "step_approved"
    REQUEST_APPROVED = "request_approved"
    REQUEST_REJECTED = "request_rejected"
    REQUEST_WITHDRAWN = "request_withdrawn"
    STEP_ESCALATED = "step_escalated"
    REMINDER_SENT = "reminder_sent"
    REQUEST_EXPIRED = "request_expired"
    DELEGATION_SET = "delegation_set"
    DAILY_DIGEST = "daily_digest"
    WEEKLY_OUT = "weekly_out"
    PENDING_CANCELLED = "pending_cancelled"
    COUNTER_PROPOSED = "counter_proposed"  # an approver suggests other dates to the requester
    COUNTER_ANSWERED = "counter_answered"  # the requester accepted or declined them
    ACTED_FOR = "acted_for"  # HR filed or withdrew someone's request: that person is told


class _Record(BaseModel):
    model_config = ConfigDict(extra="ignore")


class RoutingCode(StrEnum):
    """Why a step is held by someone other than the approver the chain names."""

    DELEGATED = "delegated"  # the approver delegated their approvals
    ON_LEAVE = "on_leave"  # the approver is on leave: their manager holds it
    ESCALATED = "escalated"  # no decision within the SLA: sent up


class RoutedReason(_Record):
    """Why a step was routed, as a code and its values; each reader's wording renders it.

    Stored as `{"code": "escalated", "from": "wangfang", "to": "david", "hours": 16}`:
    person ids, never names or sentences.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True, serialize_by_alias=True)

    code: RoutingCode
    from_: str = Field(alias="from")  # the person the step was taken from
    to: str  # the person who holds it now
    until: date | None = None  # delegated / on_leave: the last day
    hours: float | None = None  # escalated: the SLA in working hours


class Step(_Record):
    """One step of a request's approval chain as resolved for this request."""

    index: int
    name: str
    name_zh: str
    approver: str  # who the chain names
    assignee: str | None = None  # who holds it now (a delegate, a manager when out of office)
    status: StepStatus = StepStatus.WAITING
    # why the assignee is not the approver; a str is a sentence stored before reasons were codes
    routed_reason: RoutedReason | str | None = None
    auto_approve: bool = False
    sla_hours: float = 48
    remind_after_hours: float = 24
    max_reminders: int = 2
    escalate_to: str = "manager"
    reminders: int = 0  # automatic reminders sent for the current assignee
    escalations: int = 0
    assigned_at: datetime | None = None
    decided_by: str | None = None
    decided_at: datetime | None = None
    comment: str | None = None


class HistoryEntry(_Record):
    """One line of a request's audit trail."""

    at: datetime
    actor: str | None  # None: the system (auto-approval, routing)
    action: str
    step: int | None = None
    comment: str | None = None
    reason: RoutedReason | None = None  # on "routed" and "escalated" entries


class CounterStatus(StrEnum):
    OPEN = "open"  # awaiting the requester's answer
    ACCEPTED = "accepted"  # the request now has these dates
    DECLINED = "declined"  # the request kept its dates
    LAPSED = "lapsed"  # the step was decided (or the request ended) before an answer


class CounterOffer(_Record):
    """An approver's suggestion of other dates for a leave request, and what became of it."""

    by: str  # the approver who suggested them
    at: datetime
    step: int  # the step they hold: after an Accept it is decided on the new dates
    start: date
    end: date
    start_half: bool = False
    end_half: bool = False
    working_days: float
    comment: str | None = None
    status: CounterStatus = CounterStatus.OPEN
    answered_at: datetime | None = None
    # the dates the request had before an accepted suggestion: start, end, start_half, end_half
    was: dict[str, Any] | None = None


class Request(_Record):
    """A request from draft to its outcome; the record is replaced whole on each transition."""

    id: str
    process: str
    kind: str  # "leave" | "generic"
    requester: str
    status: RequestStatus
    fields: dict[str, Any]
    derived: dict[str, Any] = Field(default_factory=dict)  # working_days, days_by_year, ...
    steps: list[Step]
    current_step: int | None = None
    created_at: datetime
    submitted_at: datetime | None = None
    decided_at: datetime | None = None
    last_reminded_at: datetime | None = None
    replaces: str | None = None  # the draft this one supersedes
    filed_by: str | None = None  # HR who filed it on the requester's behalf
    counter: CounterOffer | None = None  # the latest suggestion of other dates
    history: list[HistoryEntry] = Field(default_factory=list)
    version: int = 0  # the stored version this record was read at (not part of the JSON)

    def open_step(self) -> Step | None:
        if self.status is RequestStatus.PENDING and self.current_step is not None:
            return self.steps[self.current_step]
        return None

    def on_chain(self, person_id: str) -> bool:
        """True for anyone who approves, holds or decided a step of this request."""
        return any(person_id in (s.approver, s.assignee, s.decided_by) for s in self.steps)

    @property
    def is_leave(self) -> bool:
        return self.kind == "leave"

    def leave_start(self) -> date:
        return date.fromisoformat(str(self.fields["start"]))

    def leave_end(self) -> date:
        return date.fromisoformat(str(self.fields["end"]))


# Kinds whose payload a click on the card still reads once the action is done: a repeat
# click on a delegation says whom it went to, and a confirmed decision's card is registered
# for its step. The others' payloads (a submit's is the whole form) are dropped when done.
KEEPS_PAYLOAD_WHEN_DONE = frozenset({PendingKind.DECIDE, PendingKind.DELEGATE})


class PendingAction(_Record):
    """A prepared action awaiting one person's click; data, so a restart loses nothing.

    Once confirmed or cancelled it is kept (until its key expires) only to answer a later
    click on its card truthfully, so `close` drops what only an open action needs.
    """

    id: str
    kind: PendingKind
    schema_version: int = 1
    actor: str  # the one person who may confirm or cancel it
    request_id: str
    payload: dict[str, Any] = Field(default_factory=dict)
    # hash of (kind, schema_version, request_id, payload): the exact contents; "" once done
    digest: str = ""
    status: PendingStatus = PendingStatus.OPEN
    created_at: datetime | None = None  # None once done
    expires_at: datetime | None = None  # None once done (an open action always has it)
    result: dict[str, Any] | None = None
    version: int = 0

    def close(self, status: PendingStatus, result: dict[str, Any] | None = None) -> None:
        """Mark it done, keeping what a later click reads: kind, actor, request, status, result.

        A done action is stored per request for days (a million requests: ~900 bytes each
        with the form in its payload, ~170 without), and nothing checks its contents again.
        """
        self.status, self.result = status, result
        if self.kind not in KEEPS_PAYLOAD_WHEN_DONE:
            self.payload = {}
        self.digest, self.created_at, self.expires_at = "", None, None

    def expired(self, now: datetime) -> bool:
        """An open action past its time (a done one has none: it is answered by its status)."""
        return self.expires_at is not None and now >= self.expires_at


class LeaveEntry(_Record):
    """A leave in someone's calendar: what overlap checks and "who's out" read."""

    request_id: str
    person: str
    start: date
    end: date
    start_half: bool = False
    end_half: bool = False
    status: RequestStatus

    def half_day_span(self) -> tuple[int, int]:
        """Inclusive range of half-day slots (2 per day) so half days overlap correctly."""
        first = self.start.toordinal() * 2 + (1 if self.start_half else 0)
        last = self.end.toordinal() * 2 + (0 if self.end_half else 1)
        return first, last

    def overlaps(self, other: LeaveEntry) -> bool:
        a0, a1 = self.half_day_span()
        b0, b1 = other.half_day_span()
        return max(a0, b0) <= min(a1, b1)

    def covers(self, day: date) -> bool:
        return self.start <= day <= self.end


class Delegation(_Record):
    """Between start and end (inclusive), `delegate` decides what is assigned to `person`."""

    id: str
    person: str
    delegate: str
    start: date
    end: date
    reason: str | None = None

    def active_on(self, day: date) -> bool:
        return self.start <= day <= self.end
