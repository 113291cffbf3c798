"""Who hears what about a workflow event: one plan for every platform.

The notifier's platforms only render a plan's notices (Slack blocks, Feishu cards) and send
each once; which people are told, with which kind of message, lives here alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

import structlog

from workflow.engine import Engine
from workflow.models import EventType, Request, RequestStatus, StepStatus
from workflow.outbox import OutboxEvent
from workflow.queries import OutEntry, RequestView
from workflow.store import hmget_record, versioned

log = structlog.get_logger("notifier")


class Kind(StrEnum):
    UPDATE = "update"  # the request's news in a sentence (`event_type` picks the wording)
    APPROVAL_CARD = "approval_card"  # the holder's card: live buttons with a view, else closed
    REMINDER_CARD = "reminder_card"
    ESCALATED_FROM = "escalated_from"  # to the holder the step was taken from
    EXPIRED = "expired"
    DIGEST = "digest"
    WEEKLY_OUT = "weekly_out"


@dataclass(frozen=True)
class Notice:
    """One message for one person."""

    kind: Kind
    person: str
    event_type: str = ""
    step: int | None = None  # set on approval cards: registered so a decision can close them
    view: RequestView | None = None
    for_requester: bool = False


@dataclass
class Plan:
    """What an event means: the notices to send and whether the request's cards are now stale."""

    request: Request | None
    notices: list[Notice] = field(default_factory=list)
    close_cards: bool = False
    pending: list[Request] = field(default_factory=list)  # a digest's requests
    out: list[OutEntry] = field(default_factory=list)  # a weekly who's-out
    start: date | None = None
    end: date | None = None


def told_by_final_notice(event: OutboxEvent, request: Request) -> bool:
    """A step approval that ended the request: its 'approved' notice says it all (one DM, not two)."""
    if event.type is not EventType.STEP_APPROVED or request.status is not RequestStatus.APPROVED:
        return False
    step = int(event.data.get("step", -1))
    return all(s.status is StepStatus.AUTO_APPROVED for s in request.steps[step + 1 :])


async def plan_notices(event: OutboxEvent, engine: Engine) -> Plan:
    """The notices an event calls for, from the request as it is now (it may have moved on)."""
    data = event.data
    if event.type is EventType.DAILY_DIGEST:
        person = data["person"]
        pending = await engine.my_approvals(person)
        # decided since it was queued: nothing to nag about
        return Plan(None, [Notice(Kind.DIGEST, person)] if pending else [], pending=pending)
    if event.type is EventType.WEEKLY_OUT:
        person = data["person"]
        start, end = date.fromisoformat(data["start"]), date.fromisoformat(data["end"])
        out = await engine.who_is_out(person, start, end, data.get("team"))
        return Plan(None, [Notice(Kind.WEEKLY_OUT, person)], out=out, start=start, end=end)
    [raw] = await engine.store.read(hmget_record(engine.keys.request(event.request_id)))
    req = versioned(Request, raw)
    if req is None:
        log.warning("event_for_missing_request", event_id=event.id, request_id=event.request_id)
        return Plan(None)
    plan = Plan(req)
    requester, notices = req.requester, plan.notices

    async def card_for(holder: str, step: int | None) -> Notice:
        live = req.open_step() is not None and req.current_step == step
        view = await engine.request_view(req.id, holder) if live else None
        return Notice(Kind.APPROVAL_CARD, holder, step=step, view=view)

    match event.type:
        case (
            EventType.REQUEST_SUBMITTED
            | EventType.STEP_APPROVED
            | EventType.REQUEST_APPROVED
            | EventType.REQUEST_REJECTED
        ):
            if not told_by_final_notice(event, req):
                notices.append(Notice(Kind.UPDATE, requester, event.type.value))
            plan.close_cards = event.type is not EventType.REQUEST_SUBMITTED
        case EventType.TASK_ASSIGNED:
            notices.append(await card_for(data["assignee"], data.get("step")))
            if data.get("routed_reason"):
                notices.append(Notice(Kind.UPDATE, requester, "task_assigned"))
        case EventType.REQUEST_WITHDRAWN:
            plan.close_cards = True
            if data.get("assignee"):
                notices.append(Notice(Kind.UPDATE, data["assignee"], "request_withdrawn"))
        case EventType.STEP_ESCALATED:
            step = data.get("step")
            if req.open_step() is not None and req.current_step == step:
                notices.append(await card_for(data["assignee"], step))
            notices.append(Notice(Kind.ESCALATED_FROM, data["previous"]))
            notices.append(Notice(Kind.UPDATE, requester, "step_escalated"))
        case EventType.REQUEST_EXPIRED:
            plan.close_cards = True
            notices.append(Notice(Kind.EXPIRED, requester, for_requester=True))
            if data.get("assignee"):
                notices.append(Notice(Kind.EXPIRED, data["assignee"]))
        case EventType.REMINDER_SENT:
            step = req.open_step()
            # decided or handed on since: a reminder would only mislead
            if step is not None and step.assignee == data["assignee"]:
                view = await engine.request_view(req.id, step.assignee)
                notices.append(
                    Notice(Kind.REMINDER_CARD, step.assignee, step=step.index, view=view)
                )
    return plan
