"""Workflow events as Slack DMs and cards: requester updates, approver cards, cards closed after decisions."""

from __future__ import annotations

import structlog
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import CardLifecycle, CardRegistry
from bot.conversation.notify import deliver_event
from bot.conversation.redraw import CardRedraw
from bot.slack import blocks
from bot.slack.blocks_cards import render
from bot.slack.errors import SlackCallFailed
from bot.slack.identity import SlackIdentity
from bot.slack.render import address
from workflow.config import Person
from workflow.engine import Engine
from workflow.keys import delivery
from workflow.outbox import OutboxEvent

log = structlog.get_logger("notifier")
KEY_TTL_S = 30 * 86_400
METADATA_TYPE = "approvals_outbox"


class SlackDelivery:
    """Delivers outbox events to people who are on Slack (others are left to other platforms)."""

    platform = "slack"

    def __init__(
        self,
        engine: Engine,
        client: AsyncWebClient,
        identity: SlackIdentity,
        cards: CardRedraw[blocks.SlackMessage],
    ) -> None:
        self.engine = engine
        self.client = client
        self.identity = identity
        self.redis = identity.redis
        self.cards = cards  # the bot's: a card is redrawn one way, whoever moves the request
        self.lifecycle = CardLifecycle(engine, CardRegistry(self.redis, engine.keys.org))
        self._team: str | None = None

    async def team_id(self) -> str:
        if self._team is None:
            self._team = (await self.client.auth_test())["team_id"]
        return self._team

    async def deliver(self, event: OutboxEvent) -> None:
        """Send each notice of the event's plan to its person once; raise to have it retried."""
        await deliver_event(event, self.engine, self.lifecycle, self.cards, render, self._send)

    async def _send(
        self, event: OutboxEvent, person: Person, msg: blocks.SlackMessage
    ) -> str | None:
        """Post once per (event, person): skip when the key says sent, or Slack already shows it.

        Returns where the message is (`channel:ts`) when this call posted or found it.
        """
        key = delivery("slack", self.engine.keys.org, event.id, person.id)
        if await self.redis.get(key):
            return None
        team = await self.team_id()
        channel = await self.identity.dm_channel(team, person)
        if channel is None:
            log.info("person_not_on_slack", person=person.id, event_id=event.id)
            return None
        ts = await self._already_posted(channel, event, person) if event.deliveries > 1 else None
        if ts is None:
            ts = await self._post(channel, event, person, msg)
            log.info("slack_dm_sent", event_id=event.id, type=event.type.value, recipient=person.id)
        else:
            log.info("slack_dm_found_already_sent", event_id=event.id, recipient=person.id)
        await self.redis.set(key, address(channel, ts), ex=KEY_TTL_S)
        return address(channel, ts)

    async def _post(
        self, channel: str, event: OutboxEvent, person: Person, msg: blocks.SlackMessage
    ) -> str:
        """Post the DM; after an answer that leaves it open whether Slack posted it (a 5xx, a
        connection lost after sending), look for it in the DM before anything posts it again."""
        try:
            posted = await self.client.chat_postMessage(
                channel=channel,
                text=msg.text,
                blocks=msg.blocks,
                metadata={
                    "event_type": METADATA_TYPE,
                    "event_payload": {"event_id": event.id, "recipient": person.id},
                },
            )
        except SlackCallFailed as e:
            if not e.ambiguous:
                raise
            ts = await self._already_posted(channel, event, person)
            if ts is None:
                raise  # not there: the outbox tries again later (and looks again first)
            log.info("slack_dm_posted_despite_error", event_id=event.id, error=e.code)
            return ts
        return posted["ts"]

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
