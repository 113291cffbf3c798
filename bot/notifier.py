"""The notifier: workflow events from the outbox, delivered to each platform, acked only when done.

Delivery is at least once from the outbox and exactly once to people: each platform keeps an
idempotency key per (event, recipient) and checks for evidence of an earlier send before
re-sending a redelivered event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

import redis.exceptions
import structlog

from bot.metrics import NOTIFIER_FAILURES, NOTIFIER_RETRIES
from workflow.outbox import Outbox, OutboxEvent

log = structlog.get_logger("notifier")


class Delivery(Protocol):
    """One platform's way of telling people about a workflow event."""

    platform: str

    async def deliver(self, event: OutboxEvent) -> None:
        """Send what this event means on this platform; raise to have it retried later."""
        ...


class OutboxWorker:
    """Consumes the outbox as one member of a consumer group; several workers share the events."""

    def __init__(
        self,
        outbox: Outbox,
        deliveries: Sequence[Delivery],
        consumer: str,
        *,
        reclaim_idle_ms: int = 30_000,
        batch: int = 50,
        block_ms: int = 1000,
    ) -> None:
        self.outbox = outbox
        self.deliveries = list(deliveries)
        self.consumer = consumer
        self.reclaim_idle_ms = reclaim_idle_ms
        self.batch = batch
        self.block_ms = block_ms

    async def handle(self, event: OutboxEvent) -> bool:
        """Deliver one event everywhere; ack it only if every platform succeeded."""
        if event.deliveries > 1:
            NOTIFIER_RETRIES.inc()
        try:
            for delivery in self.deliveries:
                await delivery.deliver(event)
        except Exception as e:
            NOTIFIER_FAILURES.inc()  # any failure leaves the event pending; it is reclaimed and retried
            log.warning(
                "delivery_failed",
                event_id=event.id,
                type=event.type.value,
                attempt=event.deliveries,
                error=repr(e)[:300],
            )
            return False
        await self.outbox.ack(event.id)
        log.info(
            "event_delivered", event_id=event.id, type=event.type.value, request_id=event.request_id
        )
        return True

    async def run_once(self, block: bool = False) -> int:
        """Retry stale events, then handle new ones; returns how many were delivered."""
        events = await self.outbox.reclaim(self.consumer, self.reclaim_idle_ms, self.batch)
        events += await self.outbox.read(
            self.consumer, self.batch, self.block_ms if block and not events else None
        )
        done = 0
        for event in events:
            done += await self.handle(event)
        return done

    async def run(self, stop: asyncio.Event) -> None:
        """Deliver until `stop` is set."""
        await self.outbox.ensure_group()
        while not stop.is_set():
            try:
                await self.run_once(block=True)
            except (redis.exceptions.RedisError, OSError) as e:
                log.error("outbox_unreachable", error=repr(e)[:200])
                await asyncio.sleep(1)
