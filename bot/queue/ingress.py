"""Ingress: queue a turn within a deadline, or say it could not be queued — never ack and drop.

The ingress Redis client is separate from the one turns use: a short socket timeout, no
automatic retry (a retried SET NX after a timeout is how a new message used to be taken
for a duplicate and dropped), and a small pool made before the first burst. A call that
misses its deadline raises QueueUnavailable; the HTTP edge answers 503 and the platform
delivers the event again later.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.queue.runner import RunnerLimits, TurnRunner
from bot.queue.stream import QueueUnavailable, TurnQueue

log = structlog.get_logger("turns")
INGRESS_CONNECTIONS = 64


def connect_ingress(url: str | None, deadline_s: float, main: aioredis.Redis) -> aioredis.Redis:
    """A client for the ingress path: short timeouts, no retries; `main` itself for fakeredis."""
    if url is None:
        return main
    kwargs: dict[str, Any] = {
        "decode_responses": True,
        "socket_timeout": deadline_s,
        "socket_connect_timeout": deadline_s,
        "retry": Retry(NoBackoff(), 0),
        "max_connections": INGRESS_CONNECTIONS,
    }
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        from redis.asyncio.cluster import RedisCluster

        kwargs.pop("max_connections")
        return RedisCluster.from_url(url.replace("+cluster", "", 1), **kwargs)
    pool = aioredis.BlockingConnectionPool.from_url(url, timeout=deadline_s, **kwargs)
    return aioredis.Redis(connection_pool=pool)


async def warm_pool(client: aioredis.Redis, connections: int, deadline_s: float = 2.0) -> int:
    """Open `connections` pooled connections now, so a burst does not pay for them; how many answered."""
    if connections <= 0:
        return 0
    try:
        async with asyncio.timeout(deadline_s):
            replies = await asyncio.gather(
                *(client.ping() for _ in range(connections)), return_exceptions=True
            )
    except TimeoutError:
        return 0
    return sum(1 for r in replies if r is True)


class Turns:
    """The queue, this process's runner, and the ingress step that feeds them."""

    def __init__(self, queue: TurnQueue, runner: TurnRunner, deadline_s: float = 1.0) -> None:
        self.queue = queue
        self.runner = runner
        self.deadline_s = deadline_s

    @classmethod
    def build(
        cls,
        redis: aioredis.Redis,
        org: str,
        ingress: aioredis.Redis | None = None,
        *,
        deadline_s: float = 1.0,
        limits: RunnerLimits | None = None,
    ) -> Turns:
        queue = TurnQueue(redis, org, ingress, deadline_s=deadline_s)
        return cls(queue, TurnRunner(queue, limits=limits), deadline_s)

    async def submit(
        self,
        platform: str,
        key: str,
        kind: str,
        thread: str,
        data: dict[str, Any],
        *,
        seen_ttl_s: int,
    ) -> bool:
        """Queue a turn (True) or recognise a retry of a queued one (False).

        Raises:
            QueueUnavailable: Redis did not answer within the deadline, or failed.
        """
        try:
            entry = await self.queue.enqueue(
                platform, key, kind, thread, data, seen_ttl_s=seen_ttl_s
            )
        except QueueUnavailable as e:
            log.error("turn_not_queued", platform=platform, key=key, error=str(e))
            raise QueueUnavailable(
                "The message could not be queued (the database did not answer in time); "
                "the platform will deliver it again."
            ) from e
        if entry is None:
            log.info("turn_duplicate", platform=platform, key=key)
            return False
        self.runner.ingress_seen()
        self.runner.wake()
        return True


async def ping_within(client: aioredis.Redis, deadline_s: float) -> str | None:
    """None when Redis answers a PING within `deadline_s`; otherwise what went wrong (no address)."""
    try:
        async with asyncio.timeout(deadline_s):
            await client.ping()
    except TimeoutError:
        return f"no answer within {deadline_s:g} s"
    except (redis.exceptions.RedisError, OSError) as e:
        return type(e).__name__  # the message may name the host: not for an open endpoint
    return None
