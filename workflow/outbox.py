"""Reading the outbox: workflow events delivered to consumer groups, at least once, acked when done.

Transitions append events in the same Lua call as the state change (see transitions.py), so
an event exists exactly when its change does. A consumer (the notifier) reads them through a
consumer group, acks each one only after it was handled, and reclaims events a crashed
consumer left unacknowledged; its own idempotency keys make redelivery harmless.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions

from workflow.keys import OrgKeys
from workflow.models import EventType


@dataclass(frozen=True)
class OutboxEvent:
    """One workflow event as stored in the stream."""

    id: str  # the stream id: unique, ordered, the natural idempotency key
    type: EventType
    request_id: str
    at: str
    data: dict[str, Any]
    deliveries: int = 1

    @classmethod
    def from_entry(cls, entry_id: str, fields: dict[str, str], deliveries: int = 1) -> OutboxEvent:
        return cls(
            id=entry_id,
            type=EventType(fields["type"]),
            request_id=fields["request_id"],
            at=fields["at"],
            data=json.loads(fields.get("data") or "{}"),
            deliveries=deliveries,
        )


class Outbox:
    """Consumer-group access to one organisation's outbox stream."""

    def __init__(self, redis: aioredis.Redis, keys: OrgKeys, group: str) -> None:
        self.redis = redis
        self.stream = keys.outbox
        self.group = group

    async def ensure_group(self) -> None:
        """Create the consumer group (from the stream's start) if it does not exist yet."""
        try:
            await self.redis.xgroup_create(self.stream, self.group, id="0", mkstream=True)
        except redis.exceptions.ResponseError as e:
            if "BUSYGROUP" not in str(e):
                raise

    async def read(
        self, consumer: str, count: int = 50, block_ms: int | None = None
    ) -> list[OutboxEvent]:
        """New events for this consumer; each event goes to one consumer of the group."""
        reply = await self.redis.xreadgroup(
            self.group, consumer, {self.stream: ">"}, count=count, block=block_ms
        )
        return [OutboxEvent.from_entry(i, f) for _, entries in reply or [] for i, f in entries]

    async def reclaim(self, consumer: str, min_idle_ms: int, count: int = 50) -> list[OutboxEvent]:
        """Take over events another consumer read but never acked (it crashed) after `min_idle_ms`."""
        _, entries, *_ = await self.redis.xautoclaim(
            self.stream,
            self.group,
            consumer,
            min_idle_time=min_idle_ms,
            start_id="0-0",
            count=count,
        )
        if not entries:
            return []
        counts = {
            p["message_id"]: p["times_delivered"]
            for p in await self.redis.xpending_range(
                self.stream, self.group, min=entries[0][0], max=entries[-1][0], count=len(entries)
            )
        }
        return [OutboxEvent.from_entry(i, f, counts.get(i, 2)) for i, f in entries if f]

    async def ack(self, *event_ids: str) -> int:
        """Mark events handled; they are never delivered to this group again."""
        return await self.redis.xack(self.stream, self.group, *event_ids) if event_ids else 0

    async def lag(self) -> int:
        """Events not yet acked by the group (read-but-unacked plus never read)."""
        try:
            groups = await self.redis.xinfo_groups(self.stream)
        except redis.exceptions.ResponseError as e:
            if "no such key" in str(e).lower():  # nothing was ever written: nothing waits
                return 0
            raise
        for g in groups:
            if g["name"] == self.group:
                pending = int(g.get("pending") or 0)
                lag = g.get("lag")
                return pending + int(lag or 0)
        return await self.redis.xlen(self.stream)
