"""Workflow events as Feishu cards: requester notices, approver cards, cards closed after decisions.

Exactly once per (event, recipient): a Redis key records the message a delivery produced, and
every send carries a uuid derived from the event id and the recipient, so an event redelivered
after a crash (between Feishu's answer and our key) is the same message to Feishu, not a second
one. People without a `feishu_open_id` are skipped: they may be on Slack.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import redis.asyncio as aioredis
import structlog

from agent.i18n import fmt_range
from agent.tools.describe import what
from bot import wording
from bot.feishu import cards
from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError
from bot.feishu.turns import send_uuid
from bot.notifier import told_by_final_notice
from workflow.config import Person
from workflow.engine import Engine
from workflow.keys import delivery, request_cards
from workflow.models import EventType, Request
from workflow.outbox import OutboxEvent
from workflow.store import hmget_record, versioned

log = structlog.get_logger("notifier")
KEY_TTL_S = 30 * 86_400


class FeishuDelivery:
    """Delivers outbox events to people who are on Feishu (others are left to other platforms)."""

    platform = "feishu"

    def __init__(self, engine: Engine, client: FeishuClient, redis: aioredis.Redis) -> None:
        self.engine = engine
        self.client = client
        self.redis = redis

    async def deliver(self, event: OutboxEvent) -> None:
        """Send what this event means to the people it concerns; raise to have it retried."""
        engine = self.engine
        if event.type is EventType.DAILY_DIGEST:
            person = engine.person(event.data["person"])
            pending = await engine.my_approvals(person.id)
            if pending:  # decided since it was queued: nothing to nag about
                lines = [
                    f"{engine.person(r.requester).name}: {what(r, engine.config, person.locale)} ({r.id})"
                    for r in pending
                ]
                await self._send(
                    event,
                    person,
                    cards.notice_card(wording.digest_title(len(pending), person.locale), lines),
                )
            return
        if event.type is EventType.WEEKLY_OUT:
            person = engine.person(event.data["person"])
            start, end = (
                date.fromisoformat(event.data["start"]),
                date.fromisoformat(event.data["end"]),
            )
            out = await engine.who_is_out(person.id, start, end, event.data.get("team"))
            lines = [
                f"{o.name}: {fmt_range(o.start, o.end, o.start_half, o.end_half, person.locale)}"
                for o in out
            ]
            title = wording.weekly_out_title(start, end, person.locale)
            await self._send(
                event,
                person,
                cards.notice_card(title, lines or [wording.nobody_out(person.locale)]),
            )
            return
        [raw] = await engine.store.read(hmget_record(engine.keys.request(event.request_id)))
        req = versioned(Request, raw)
        if req is None:
            log.warning("event_for_missing_request", event_id=event.id, request_id=event.request_id)
            return
        requester = engine.person(req.requester)
        data = event.data
        match event.type:
            case (
                EventType.REQUEST_SUBMITTED
                | EventType.STEP_APPROVED
                | EventType.REQUEST_APPROVED
                | EventType.REQUEST_REJECTED
            ):
                if not told_by_final_notice(event, req):
                    card = cards.requester_notice(
                        event.type.value, req, engine, requester.locale, data
                    )
                    await self._send(event, requester, card)
                if event.type is not EventType.REQUEST_SUBMITTED:
                    await self._close_cards(req)
            case EventType.TASK_ASSIGNED:
                assignee = engine.person(data["assignee"])
                step = data.get("step")
                if req.current_step == step and req.open_step() is not None:
                    view = await engine.request_view(req.id, assignee.id)
                    card = cards.approval_card(view, engine, assignee.locale)
                else:  # decided before this event was delivered: no live buttons
                    card = cards.approval_card_closed(req, engine, assignee.locale, step or 0)
                await self._send(event, assignee, card, card_step=step)
                if data.get("routed_reason"):
                    note = cards.requester_notice(
                        "task_assigned", req, engine, requester.locale, data
                    )
                    await self._send(event, requester, note)
            case EventType.REQUEST_WITHDRAWN:
                await self._close_cards(req)
                if data.get("assignee"):
                    assignee = engine.person(data["assignee"])
                    card = cards.requester_notice(
                        "request_withdrawn", req, engine, assignee.locale, data
                    )
                    await self._send(event, assignee, card)
            case EventType.STEP_ESCALATED:
                assignee = engine.person(data["assignee"])
                if req.open_step() is not None and req.current_step == data.get("step"):
                    view = await engine.request_view(req.id, assignee.id)
                    card = cards.approval_card(view, engine, assignee.locale)
                    await self._send(event, assignee, card, card_step=data.get("step"))
                previous = engine.person(data["previous"])
                text = wording.escalated_text(
                    req, engine, previous.locale, assignee.id, data.get("sla_hours", 0)
                )
                await self._send(
                    event,
                    previous,
                    cards.notice_card(wording.title_of(req, engine, previous.locale), [text]),
                )
                note = cards.requester_notice("step_escalated", req, engine, requester.locale, data)
                await self._send(event, requester, note)
            case EventType.REQUEST_EXPIRED:
                await self._close_cards(req)
                for person_id, mine in ((req.requester, True), (data.get("assignee"), False)):
                    if person_id:
                        person = engine.person(person_id)
                        text = wording.expired_text(req, engine, person.locale, for_requester=mine)
                        title = wording.title_of(req, engine, person.locale)
                        await self._send(event, person, cards.notice_card(title, [text], "grey"))
            case EventType.REMINDER_SENT:
                step = req.open_step()
                if step is None or step.assignee != data["assignee"]:
                    return  # decided or handed on since: a reminder would only mislead
                assignee = engine.person(data["assignee"])
                view = await engine.request_view(req.id, assignee.id)
                card = cards.reminder_card(view, engine, assignee.locale, data.get("note"))
                await self._send(event, assignee, card, card_step=data.get("step"))
            case _:
                log.info("event_not_for_feishu", type=event.type.value)

    async def _send(
        self,
        event: OutboxEvent,
        person: Person,
        card: dict[str, Any],
        card_step: int | None = None,
    ) -> None:
        """Send once per (event, person): skip when the key says sent; the uuid covers a crash."""
        if not person.feishu_open_id:
            log.info("person_not_on_feishu", person=person.id, event_id=event.id)
            return
        key = delivery("feishu", self.engine.keys.org, event.id, person.id)
        if await self.redis.get(key):
            return
        sent = await self.client.send(
            person.feishu_open_id,
            "interactive",
            card,
            uuid=send_uuid("outbox", event.id, person.id),
        )
        message_id = str(sent.get("message_id") or "")
        log.info(
            "feishu_card_sent",
            event_id=event.id,
            type=event.type.value,
            recipient=person.id,
            repeated=event.deliveries > 1,
        )
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, message_id or "-", ex=KEY_TTL_S)
            if card_step is not None and message_id:
                refs = request_cards("feishu", self.engine.keys.org, event.request_id)
                pipe.hset(refs, message_id, f"{card_step}|{person.id}")  # closed in their language
                pipe.expire(refs, KEY_TTL_S)
            await pipe.execute()

    async def _close_cards(self, req: Request) -> None:
        """Take the buttons off every card of this request whose step is decided or no longer open."""
        refs = request_cards("feishu", self.engine.keys.org, req.id)
        open_step = req.current_step if req.open_step() else None
        for message_id, step in (await self.redis.hgetall(refs)).items():
            step_part, _, card_holder = step.partition("|")
            index = int(step_part)
            if index == open_step:
                continue
            assignee = card_holder or (
                req.steps[index].assignee if 0 <= index < len(req.steps) else None
            )
            holder = self.engine.directory.find(assignee) if assignee else None
            locale = holder.locale if holder else "en"
            closed = cards.approval_card_closed(req, self.engine, locale, index)
            try:
                await self.client.patch_card(message_id, closed)
            except FeishuError as e:
                if e.retryable:
                    raise  # the event is retried later
                log.warning("feishu_card_close_failed", message_id=message_id, error=str(e))
            await self.redis.hdel(refs, message_id)

    async def aclose(self) -> None:
        """Close the open-API client's HTTP session."""
        await self.client.close()
