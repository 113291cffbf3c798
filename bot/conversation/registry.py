"""The card registry: every card the bot has posted about a request, on every platform.

Each card is recorded with who reads it, in which language, and what it is about (the
requester's thread card, an approver's card for one step, a reminder card, every notice the
worker sent about the request: "submitted to X", "escalated to Y", …), so that after
each transition the lifecycle can bring every one of them to the request's current state.
Confirm cards are recorded by pending action until their click, so a newer draft can retire them.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import redis.asyncio as aioredis
from pydantic import BaseModel, ConfigDict, ValidationError

from workflow.keys import card_registry, pending_cards
from workflow.transactions import Group, hset_for, transact

KEEP_S = 30 * 86_400  # a month: long past any request's expiry


class Role(StrEnum):
    THREAD = "thread"  # the requester's card in their conversation (the confirmed draft)
    APPROVER = "approver"  # the DM card of whoever holds (or held) one step
    REMINDER = "reminder"  # a reminder card for one step
    CONFIRM = "confirm"  # a confirm card awaiting its click
    NOTICE = "notice"  # a notice about the request (submitted to X, escalated, withdrawn, …)


class CardRef(BaseModel):
    """Where one card is and how to redraw it."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    platform: str  # slack | feishu | …: the platform that can update it
    address: str  # slack "<channel>:<ts>", feishu "<message_id>"
    role: Role
    holder: str  # the person who reads it
    locale: str  # the language it is shown in
    step: int | None = None
    shown: str = ""  # the request state it shows (the lifecycle skips cards already up to date)
    summary: str = ""  # the line it was posted with, kept when it is redrawn (a notice's news)
    outcome: str = ""  # a notice's news as an outcome (approved, info, …): its mark
    notice: str = ""  # a notice's kind (bot.notices.Kind) and the event it told of, with its data
    event: str = ""
    data: dict[str, Any] = {}

    @property
    def field(self) -> str:
        return f"{self.platform}|{self.address}"


def _load(raw: dict[str, str]) -> list[CardRef]:
    out = []
    for value in raw.values():
        try:
            out.append(CardRef.model_validate_json(value))
        except ValidationError:
            continue  # written by an older version: it is re-registered by its next send
    return out


class CardRegistry:
    """Cards by request and confirm cards by pending action, in Redis."""

    def __init__(self, redis: aioredis.Redis, org: str) -> None:
        self.redis = redis
        self.org = org

    async def _put(self, key: str, card: CardRef, *also: Group) -> None:
        await transact(self.redis, hset_for(key, card.field, card.model_dump_json(), KEEP_S), *also)

    async def add(self, request_id: str, card: CardRef) -> None:
        await self._put(card_registry(self.org, request_id), card)

    async def cards(self, request_id: str, platform: str | None = None) -> list[CardRef]:
        found = _load(await self.redis.hgetall(card_registry(self.org, request_id)))
        return [c for c in found if platform is None or c.platform == platform]

    async def forget(self, request_id: str, card: CardRef) -> None:
        """A card that is gone (deleted by its reader): never updated again."""
        await self.redis.hdel(card_registry(self.org, request_id), card.field)

    async def add_confirm(self, pending_id: str, card: CardRef, *also: Group) -> None:
        """Record a confirm card; `also`: other writes on this registry's client, sent in the
        same round trip (each its own transaction on a cluster)."""
        await self._put(pending_cards(self.org, pending_id), card, *also)

    async def confirm_cards(self, pending_id: str, platform: str | None = None) -> list[CardRef]:
        found = _load(await self.redis.hgetall(pending_cards(self.org, pending_id)))
        return [c for c in found if platform is None or c.platform == platform]
