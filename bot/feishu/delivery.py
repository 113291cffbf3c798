"""Workflow events as Feishu cards: requester notices, approver cards, cards closed after decisions.

Exactly once per (event, recipient): a Redis key records the message a delivery produced, and
every send carries a uuid derived from the event id and the recipient, so an event redelivered
after a crash (between Feishu's answer and our key) is the same message to Feishu, not a second
one. People are found on Feishu by their open_id, else by email through the contact API;
people Feishu does not know are skipped: they may be on Slack.
"""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis
import structlog

from bot.conversation import CardLifecycle, CardRegistry
from bot.conversation.notify import deliver_event
from bot.conversation.redraw import CardRedraw
from bot.feishu import cards
from bot.feishu.client import FeishuClient
from bot.feishu.identity import FeishuIdentity
from bot.feishu.turns import send_uuid
from workflow.config import Person
from workflow.engine import Engine
from workflow.keys import delivery
from workflow.outbox import OutboxEvent

log = structlog.get_logger("notifier")
KEY_TTL_S = 30 * 86_400


class FeishuDelivery:
    """Delivers outbox events to people who are on Feishu (others are left to other platforms)."""

    platform = "feishu"

    def __init__(
        self,
        engine: Engine,
        client: FeishuClient,
        redis: aioredis.Redis,
        cards: CardRedraw[cards.Card],
    ) -> None:
        self.engine = engine
        self.client = client
        self.redis = redis
        self.identity = FeishuIdentity(engine.directory, redis, client)
        self.cards = cards  # the bot's: a card is redrawn one way, whoever moves the request
        self.lifecycle = CardLifecycle(engine, CardRegistry(redis, engine.keys.org))

    async def deliver(self, event: OutboxEvent) -> None:
        """Send each notice of the event's plan to its person once; raise to have it retried."""
        await deliver_event(
            event, self.engine, self.lifecycle, self.cards, cards.render, self._send
        )

    async def _send(self, event: OutboxEvent, person: Person, card: dict[str, Any]) -> str | None:
        """Send once per (event, person): skip when the key says sent; the uuid covers a crash.

        Returns the message id when this call sent it.
        """
        key = delivery("feishu", self.engine.keys.org, event.id, person.id)
        if await self.redis.get(key):
            return None
        open_id = await self.identity.open_id_for(person)
        if open_id is None:
            log.info("person_not_on_feishu", person=person.id, event_id=event.id)
            return None
        sent = await self.client.send(
            open_id,
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
        await self.redis.set(key, message_id or "-", ex=KEY_TTL_S)
        return message_id or None

    async def aclose(self) -> None:
        """Close the open-API client's HTTP session."""
        await self.client.close()
