"""Typed data between layers: one model per pending-action kind and per outbox event type.

Pending actions and outbox events are stored as JSON objects (their digests and the stream
format stay as they are); readers parse them here into a discriminated union instead of
reading `dict[str, Any]` by string keys, so a missing or mistyped field is an error at the
edge, with its name, not a KeyError deep in a handler.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from workflow.models import Decision, PendingAction
from workflow.outbox import OutboxEvent


class _Data(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


# --- pending actions ------------------------------------------------------------------------------


class SubmitPayload(_Data):
    kind: Literal["submit"] = "submit"
    fields: dict[str, Any]
    derived: dict[str, Any] = Field(default_factory=dict)
    approvers: list[str] = Field(default_factory=list)


class DecidePayload(_Data):
    kind: Literal["decide"] = "decide"
    step: int = Field(ge=0)
    decision: Decision
    comment: str | None = None


class WithdrawPayload(_Data):
    kind: Literal["withdraw"] = "withdraw"
    reason: str | None = None


class RemindPayload(_Data):
    kind: Literal["remind"] = "remind"
    note: str | None = None


class DelegatePayload(_Data):
    kind: Literal["delegate"] = "delegate"
    delegate: str
    start: date
    end: date
    reason: str | None = None


class CounterPayload(_Data):
    kind: Literal["counter"] = "counter"
    step: int = Field(ge=0)
    start: date
    end: date
    start_half: bool = False
    end_half: bool = False
    comment: str | None = None


PendingPayload = Annotated[
    SubmitPayload
    | DecidePayload
    | WithdrawPayload
    | RemindPayload
    | DelegatePayload
    | CounterPayload,
    Field(discriminator="kind"),
]
_PENDING: TypeAdapter[PendingPayload] = TypeAdapter(PendingPayload)


def pending_payload(pending: PendingAction) -> PendingPayload:
    """A pending action's payload as the model of its kind.

    Raises:
        pydantic.ValidationError: the stored payload does not fit its kind.
    """
    return _PENDING.validate_python({**pending.payload, "kind": pending.kind.value})


# --- outbox events --------------------------------------------------------------------------------

# A routing reason: a code with its values (`{"code": "escalated", …}`), or older prose.
Reason = dict[str, Any] | str | None


class RequestSubmitted(_Data):
    type: Literal["request_submitted"]


class TaskAssigned(_Data):
    type: Literal["task_assigned"]
    step: int
    assignee: str
    approver: str | None = None
    routed_reason: Reason = None
    routed_from: str | None = None


class StepApproved(_Data):
    type: Literal["step_approved"]
    step: int
    by: str | None = None
    comment: str | None = None


class RequestApproved(_Data):
    type: Literal["request_approved"]


class RequestRejected(_Data):
    type: Literal["request_rejected"]
    step: int
    by: str | None = None
    comment: str | None = None


class RequestWithdrawn(_Data):
    type: Literal["request_withdrawn"]
    assignee: str | None = None
    reason: str | None = None


class StepEscalated(_Data):
    type: Literal["step_escalated"]
    step: int
    assignee: str
    previous: str
    sla_hours: float = 0


class ReminderSent(_Data):
    type: Literal["reminder_sent"]
    step: int
    assignee: str
    note: str | None = None
    by: str | None = None
    automatic: bool = False
    n: int | None = None


class RequestExpired(_Data):
    type: Literal["request_expired"]
    assignee: str | None = None


class DelegationSet(_Data):
    type: Literal["delegation_set"]


class DailyDigest(_Data):
    type: Literal["daily_digest"]
    person: str
    count: int = 0
    request_ids: list[str] = Field(default_factory=list)


class WeeklyOut(_Data):
    type: Literal["weekly_out"]
    person: str
    start: date
    end: date
    team: str | None = None


class PendingCancelled(_Data):
    type: Literal["pending_cancelled"]


class CounterProposed(_Data):
    type: Literal["counter_proposed"]
    step: int
    by: str
    start: date
    end: date
    start_half: bool = False
    end_half: bool = False
    working_days: float = 0
    comment: str | None = None


class CounterAnswered(_Data):
    type: Literal["counter_answered"]
    step: int
    by: str  # the approver who suggested the dates
    accepted: bool
    assignee: str | None = None  # who holds the step now (decides it on the new dates)


class ActedFor(_Data):
    type: Literal["acted_for"]
    by: str  # HR who acted
    person: str  # whose request it is
    action: Literal["submitted", "withdrawn"]


EventData = Annotated[
    RequestSubmitted
    | TaskAssigned
    | StepApproved
    | RequestApproved
    | RequestRejected
    | RequestWithdrawn
    | StepEscalated
    | ReminderSent
    | RequestExpired
    | DelegationSet
    | DailyDigest
    | WeeklyOut
    | PendingCancelled
    | CounterProposed
    | CounterAnswered
    | ActedFor,
    Field(discriminator="type"),
]
_EVENTS: TypeAdapter[EventData] = TypeAdapter(EventData)


def event_data(event: OutboxEvent) -> EventData:
    """An outbox event's data as the model of its type.

    Raises:
        pydantic.ValidationError: the stored data does not fit its type.
    """
    return _EVENTS.validate_python({**event.data, "type": event.type.value})
