"""Who hears what about a workflow event: one plan for every platform.

The notifier's platforms only render a plan's notices (Slack blocks, Feishu cards) and send
each once; which people are told, with which kind of message, lives here alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import date
from enum import StrEnum
from typing import Any

import structlog

from workflow.engine import Engine
from workflow.models import EventType, Request, RequestStatus, StepStatus
from workflow.outbox import OutboxEvent
from workflow.payloads import (
    ActedFor,
    CounterAnswered,
    CounterProposed,
    DailyDigest,
    ReminderSent,
    RequestExpired,
    RequestWithdrawn,
    StepApproved,
    StepEscalated,
    TaskAssigned,
    WeeklyOut,
    event_data,
)
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
    COUNTER_OFFER = "counter_offer"  # the requester's [Accept] [Decline] of suggested dates


@dataclass(frozen=True)
class Notice:
    """One message for one person."""

    kind: Kind
    person: str
    event_type: str = ""
    step: int | None = None  # the step a card is about: registered so a decision can close it
    view: RequestView | None = None
    for_requester: bool = False


@dataclass
class Plan:
    """What an event means: the notices to send (every card of the request is redrawn after)."""

    request: Request | None
    notices: list[Notice] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)  # the event's data (who, comment, note, …)
    pending: list[Request] = field(default_factory=list)  # a digest's requests (the oldest)
    pending_total: int = 0  # how many wait in all
    out: list[OutEntry] = field(default_factory=list)  # a weekly who's-out
    start: date | None = None
    end: date | None = None


# Events whose news is a sentence to the requester.
_REQUESTER_NEWS = frozenset(
    {
        EventType.REQUEST_SUBMITTED,
        EventType.STEP_APPROVED,
        EventType.REQUEST_APPROVED,
        EventType.REQUEST_REJECTED,
    }
)


def told_by_final_notice(event: OutboxEvent, request: Request) -> bool:
    """A step approval that ended the request: its 'approved' notice says it all (one DM, not two)."""
    data = event_data(event)
    if not isinstance(data, StepApproved) or request.status is not RequestStatus.APPROVED:
        return False
    return all(s.status is StepStatus.AUTO_APPROVED for s in request.steps[data.step + 1 :])


async def plan_notices(event: OutboxEvent, engine: Engine) -> Plan:
    """The notices an event calls for, from the request as it is now (it may have moved on)."""
    data = event_data(event)
    if isinstance(data, DailyDigest):
        mine = await engine.my_approvals(data.person)
        # decided since it was queued: nothing to nag about
        notices = [Notice(Kind.DIGEST, data.person)] if mine.requests else []
        return Plan(None, notices, pending=mine.requests, pending_total=mine.total)
    if isinstance(data, WeeklyOut):
        # a manager's weekly note is about their team (the scheduler names it): a whole list
        team = data.team or engine.directory.team_of(data.person)
        out = (await engine.who_is_out(data.person, data.start, data.end, team)).entries
        notices = [Notice(Kind.WEEKLY_OUT, data.person)]
        return Plan(None, notices, out=out, start=data.start, end=data.end)
    [raw] = await engine.store.read(hmget_record(engine.keys.request(event.request_id)))
    req = versioned(Request, raw)
    if req is None:
        log.warning("event_for_missing_request", event_id=event.id, request_id=event.request_id)
        return Plan(None)
    plan = Plan(req, data=dict(event.data))
    requester, notices = req.requester, plan.notices

    async def card_for(holder: str, step: int | None) -> Notice:
        live = req.open_step() is not None and req.current_step == step
        view = await engine.request_view(req.id, holder) if live else None
        return Notice(Kind.APPROVAL_CARD, holder, step=step, view=view)

    match data:
        case TaskAssigned():
            notices.append(await card_for(data.assignee, data.step))
            if data.routed_reason:
                notices.append(Notice(Kind.UPDATE, requester, "task_assigned"))
        case CounterProposed():
            view = await engine.request_view(req.id, requester)
            notices.append(Notice(Kind.COUNTER_OFFER, requester, step=data.step, view=view))
        case CounterAnswered() if data.accepted and data.assignee:
            # a fresh card with the new dates, headed by the news, to decide in one click
            card = await card_for(data.assignee, data.step)
            notices.append(replace(card, event_type="counter_answered"))
        case CounterAnswered():  # declined (or the step moved on): the one who suggested is told
            notices.append(Notice(Kind.UPDATE, data.by, "counter_answered"))
        case ActedFor():  # HR acted for the person: they hear it from us, with who did it
            notices.append(Notice(Kind.UPDATE, data.person, "acted_for"))
        case RequestWithdrawn():
            if data.assignee:
                notices.append(Notice(Kind.UPDATE, data.assignee, "request_withdrawn"))
        case StepEscalated():
            if req.open_step() is not None and req.current_step == data.step:
                notices.append(await card_for(data.assignee, data.step))
            notices.append(Notice(Kind.ESCALATED_FROM, data.previous, step=data.step))
            notices.append(Notice(Kind.UPDATE, requester, "step_escalated"))
        case RequestExpired():
            notices.append(Notice(Kind.EXPIRED, requester, for_requester=True))
            if data.assignee:
                notices.append(Notice(Kind.EXPIRED, data.assignee))
        case ReminderSent():
            step = req.open_step()
            # decided or handed on since: a reminder would only mislead
            if step is not None and step.assignee == data.assignee:
                view = await engine.request_view(req.id, step.assignee)
                notices.append(
                    Notice(Kind.REMINDER_CARD, step.assignee, step=step.index, view=view)
                )
        case _ if event.type in _REQUESTER_NEWS:
            if event.type is EventType.REQUEST_SUBMITTED and req.filed_by:
                return plan  # HR filed it: the acted_for notice tells the person, once
            if not told_by_final_notice(event, req):
                notices.append(Notice(Kind.UPDATE, requester, event.type.value))
    return plan
