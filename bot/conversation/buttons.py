"""Button values, built and parsed in one place for every platform.

A button names an action and carries a reference: a pending action (and the conversation
it belongs to) or one step of a request. Slack carries the reference as the button's value
string (`P-…`, `R-…:<step>`); Feishu as the value object (`{"action": …, "pending_id": …}`).
A value that does not parse is a stale card or a forgery: `ValueError`, and the click is
answered "This button is not valid any more."
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

PENDING_CONFIRM = "pending_confirm"
PENDING_CANCEL = "pending_cancel"
REQUEST_APPROVE = "request_approve"
REQUEST_REJECT = "request_reject"
REQUEST_REJECT_SUBMIT = "request_reject_submit"  # Feishu: the reason form's Reject
REQUEST_BACK = "request_back"  # Feishu: leave the reason form
HOME_WITHDRAW = "home_withdraw"  # Slack's Home tab
OPEN_LEAVE_FORM = "open_leave_form"
LEAVE_FORM_SUBMIT = "leave_form_submit"  # Feishu: the leave form card's Submit
FEED_CREATE = "calendar_feed_create"  # a new team calendar link (Slack's Home tab, Feishu's card)
FEED_REVOKE = "calendar_feed_revoke"  # turn the link off
BULK_APPROVE = "bulk_approve"  # [Approve selected] under a digest's or the Home tab's ticks
BULK_ITEMS = "bulk_items"  # the ticks' field (Slack checkboxes, Feishu multi-select)
# Buttons that act on the clicker alone: no pending action or request to refer to.
SELF_ACTIONS = frozenset({LEAVE_FORM_SUBMIT, FEED_CREATE, FEED_REVOKE, BULK_APPROVE})
COUNTER_OPEN = "counter_open"  # the approver's [Suggest other dates]: opens the small form
COUNTER_SUBMIT = "counter_submit"  # Feishu: that form card's Send
COUNTER_ACCEPT = "counter_accept"  # the requester's [Accept] of the suggested dates
COUNTER_DECLINE = "counter_decline"
COUNTER_ACTIONS = frozenset({COUNTER_OPEN, COUNTER_SUBMIT, COUNTER_ACCEPT, COUNTER_DECLINE})
PENDING_ACTIONS = frozenset({PENDING_CONFIRM, PENDING_CANCEL})
STEP_ACTIONS = (
    frozenset({REQUEST_APPROVE, REQUEST_REJECT, REQUEST_REJECT_SUBMIT, REQUEST_BACK})
    | COUNTER_ACTIONS
)
ACTIONS = PENDING_ACTIONS | STEP_ACTIONS


class PendingRef(BaseModel):
    """A confirm card's buttons: the pending action, and the thread whose history hears the outcome."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    pending_id: str = Field(min_length=1, max_length=64)
    thread: str | None = Field(default=None, max_length=300)


class StepRef(BaseModel):
    """An approver card's buttons: one step of one request."""

    model_config = ConfigDict(frozen=True, extra="ignore")
    request_id: str = Field(min_length=1, max_length=64)
    step: int = Field(ge=0, lt=100)


# --- Slack: the reference as the button's value string -------------------------------------------


def step_value(request_id: str, step: int) -> str:
    return f"{request_id}:{step}"


def parse_step_value(value: str) -> StepRef:
    """`R-…:<step>` → StepRef; ValueError for anything else."""
    request_id, _, step = value.rpartition(":")
    try:
        return StepRef(request_id=request_id, step=int(step))
    except ValidationError as e:
        raise ValueError(f"not a step button value: {value[:80]!r}") from e


# --- Feishu: the reference inside the value object ---------------------------------------------


def feishu_value(action: str, ref: PendingRef | StepRef) -> dict[str, Any]:
    return {"action": action, **ref.model_dump(exclude_none=True)}


def parse_feishu_value(value: dict[str, Any]) -> tuple[str, PendingRef | StepRef]:
    """(action, reference) of a Feishu button value; ValueError for a value we never built."""
    action = value.get("action")
    try:
        if action in PENDING_ACTIONS:
            return action, PendingRef.model_validate(value)
        if action in STEP_ACTIONS:
            return action, StepRef.model_validate(value)
    except ValidationError as e:
        raise ValueError(f"not a valid {action} button value") from e
    raise ValueError(f"not one of our buttons: {str(action)[:40]!r}")
