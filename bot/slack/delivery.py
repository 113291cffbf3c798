"""Workflow events as Slack DMs and cards: requester updates, approver cards, cards closed after decisions."""

from __future__ import annotations

from datetime import date

import structlog
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.notifier import told_by_final_notice
from bot.slack import blocks, blocks_digest
from bot.slack.identity import SlackIdentity
from workflow.config import Person
from workflow.engine import Engine
from workflow.keys import delivery, request_cards
from workflow.models import EventType, Request
from workflow.outbox import OutboxEvent
from workflow.store import hmget_record, versioned

log = structlog.get_logger("notifier")
KEY_TTL_S = 30 * 86_400
METADATA_TYPE = "approvals_outbox"


class SlackDelivery:
    """Delivers outbox events to people who are on Slack (others are left to other platforms)."""

    platform = "slack"

    def __init__(self, engine: Engine, client: AsyncWebClient, identity: SlackIdentity) -> None:
        self.engine = engine
        self.client = client
        self.identity = identity
        self.redis = identity.redis
        self._team: str | None = None

    async def team_id(self) -> str:
        if self._team is None:
            self._team = (await self.client.auth_test())["team_id"]
        return self._team

    async def deliver(self, event: OutboxEvent) -> None:
        engine = self.engine
        if event.type is EventType.DAILY_DIGEST:
            person = engine.person(event.data["person"])
            pending = await engine.my_approvals(person.id)
            if pending:  # decided since it was queued: nothing to nag about
                await self._send(
                    event, person, blocks_digest.digest_dm(pending, engine, person.locale)
                )
            return
        if event.type is EventType.WEEKLY_OUT:
            person = engine.person(event.data["person"])
            start, end = (
                date.fromisoformat(event.data["start"]),
                date.fromisoformat(event.data["end"]),
            )
            out = await engine.who_is_out(person.id, start, end, event.data.get("team"))
            await self._send(
                event, person, blocks_digest.weekly_out_dm(out, start, end, person.locale)
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
                    msg = blocks.requester_dm(event.type.value, req, engine, requester.locale, data)
                    await self._send(event, requester, msg)
                if event.type is not EventType.REQUEST_SUBMITTED:
                    await self._close_cards(req)
            case EventType.TASK_ASSIGNED:
                assignee = engine.person(data["assignee"])
                step = data.get("step")
                if req.current_step == step and req.open_step() is not None:
                    view = await engine.request_view(req.id, assignee.id)
                    msg = blocks.approval_card(view, engine, assignee.locale)
                else:  # decided before this event was delivered: no live buttons
                    msg = blocks.approval_card_closed(req, engine, assignee.locale, step)
                await self._send(event, assignee, msg, card_step=step)
                if data.get("routed_reason"):
                    note = blocks.requester_dm("task_assigned", req, engine, requester.locale, data)
                    await self._send(event, requester, note)
            case EventType.REQUEST_WITHDRAWN:
                await self._close_cards(req)
                if data.get("assignee"):
                    assignee = engine.person(data["assignee"])
                    await self._send(
                        event,
                        assignee,
                        blocks.requester_dm(
                            "request_withdrawn", req, engine, assignee.locale, data
                        ),
                    )
            case EventType.STEP_ESCALATED:
                assignee = engine.person(data["assignee"])
                if req.open_step() is not None and req.current_step == data.get("step"):
                    view = await engine.request_view(req.id, assignee.id)
                    await self._send(
                        event,
                        assignee,
                        blocks.approval_card(view, engine, assignee.locale),
                        card_step=data.get("step"),
                    )
                previous = engine.person(data["previous"])
                await self._send(
                    event,
                    previous,
                    blocks_digest.escalated_dm(
                        req, engine, previous.locale, assignee.id, data.get("sla_hours", 0)
                    ),
                )
                await self._send(
                    event,
                    requester,
                    blocks.requester_dm("step_escalated", req, engine, requester.locale, data),
                )
            case EventType.REQUEST_EXPIRED:
                await self._close_cards(req)
                await self._send(
                    event,
                    requester,
                    blocks_digest.expired_dm(req, engine, requester.locale, for_requester=True),
                )
                if data.get("assignee"):
                    holder = engine.person(data["assignee"])
                    await self._send(
                        event,
                        holder,
                        blocks_digest.expired_dm(req, engine, holder.locale, for_requester=False),
                    )
            case EventType.REMINDER_SENT:
                step = req.open_step()
                if step is None or step.assignee != data["assignee"]:
                    return  # decided or handed on since: a reminder would only mislead
                assignee = engine.person(data["assignee"])
                view = await engine.request_view(req.id, assignee.id)
                msg = blocks.reminder_card(view, engine, assignee.locale, data.get("note"))
                await self._send(event, assignee, msg, card_step=data.get("step"))
            case _:
                log.info("event_not_for_slack", type=event.type.value)

    async def _send(
        self,
        event: OutboxEvent,
        person: Person,
        msg: blocks.SlackMessage,
        card_step: int | None = None,
    ) -> None:
        """Post once per (event, person): skip when the key says sent, or Slack already shows it."""
        key = delivery("slack", self.engine.keys.org, event.id, person.id)
        if await self.redis.get(key):
            return
        team = await self.team_id()
        channel = await self.identity.dm_channel(team, person)
        if channel is None:
            log.info("person_not_on_slack", person=person.id, event_id=event.id)
            return
        ts = await self._already_posted(channel, event, person) if event.deliveries > 1 else None
        if ts is None:
            posted = await self.client.chat_postMessage(
                channel=channel,
                text=msg.text,
                blocks=msg.blocks,
                metadata={
                    "event_type": METADATA_TYPE,
                    "event_payload": {"event_id": event.id, "recipient": person.id},
                },
            )
            ts = posted["ts"]
            log.info("slack_dm_sent", event_id=event.id, type=event.type.value, recipient=person.id)
        else:
            log.info("slack_dm_found_already_sent", event_id=event.id, recipient=person.id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(key, f"{channel}:{ts}", ex=KEY_TTL_S)
            if card_step is not None:
                cards = request_cards("slack", self.engine.keys.org, event.request_id)
                # the step and who holds the card: it is closed later in their language
                pipe.hset(cards, f"{channel}:{ts}", f"{card_step}|{person.id}")
                pipe.expire(cards, KEY_TTL_S)
            await pipe.execute()

    async def _already_posted(self, channel: str, event: OutboxEvent, person: Person) -> str | None:
        """A redelivered event may have reached Slack before we crashed: look for it in the DM."""
        history = await self.client.conversations_history(
            channel=channel, limit=50, include_all_metadata=True
        )
        for message in history.get("messages", []):
            meta = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if (
                meta.get("event_type") == METADATA_TYPE
                and payload.get("event_id") == event.id
                and payload.get("recipient") == person.id
            ):
                return message["ts"]
        return None

    async def _close_cards(self, req: Request) -> None:
        """Replace the buttons of every card of this request whose step is decided or no longer open."""
        cards = request_cards("slack", self.engine.keys.org, req.id)
        open_step = req.current_step if req.open_step() else None
        for ref, step in (await self.redis.hgetall(cards)).items():
            step_part, _, holder = step.partition("|")
            step_index = int(step_part)
            if step_index == open_step:
                continue
            channel, _, ts = ref.partition(":")
            person_locale = "en"
            assignee = holder or req.steps[step_index].assignee
            if assignee:
                person_locale = self.engine.person(assignee).locale
            closed = blocks.approval_card_closed(req, self.engine, person_locale, step_index)
            try:
                await self.client.chat_update(
                    channel=channel, ts=ts, text=closed.text, blocks=closed.blocks
                )
            except SlackApiError as e:
                if e.response.get("error") != "message_not_found":
                    raise
            await self.redis.hdel(cards, ref)
