"""Ingress: queue a turn within a deadline, or say it could not be queued — never ack and drop.

The ingress Redis client is separate from the one turns use: a short socket timeout, no
automatic retry (a retried SET NX after a timeout is how a new message used to be taken
for a duplicate and dropped), and a small pool made before the first burst. A call that
misses its deadline raises QueueUnavailable; the HTTP edge answers 503 and the platform
delivers the event again later.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

import redis.asyncio as aioredis
import redis.exceptions
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from bot.queue.batch import settle
from bot.queue.runner import RunnerLimits, TurnRunner
from bot.queue.stream import QueueUnavailable, Turn, TurnQueue

log = structlog.get_logger("turns")
INGRESS_CONNECTIONS = 64
Submitted = bool | QueueUnavailable  # queued, a retry of a queued one, or not queued


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
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.submit_then(
            Turn("", platform, kind, thread, data, key), seen_ttl_s, partial(settle, future)
        )
        return await future  # type: ignore[no-any-return]

    def submit_then(self, turn: Turn, seen_ttl_s: int, then: Callable[[Submitted], None]) -> None:
        """`submit` for an ack answered from a callback (no task, no coroutine of its own):
        `then` is told True (queued), False (a retry of a queued one) or the QueueUnavailable."""
        self.queue.enqueue_then(turn, seen_ttl_s, partial(self._queued, turn, then))

    def _queued(
        self, turn: Turn, then: Callable[[Submitted], None], entry: str | QueueUnavailable | None
    ) -> None:
        platform, key = turn.platform, turn.key
        if isinstance(entry, QueueUnavailable):
            log.error("turn_not_queued", platform=platform, key=key, error=str(entry))
            refused = QueueUnavailable(
                "The message could not be queued (the database did not answer in time); "
                "the platform will deliver it again."
            )
            refused.__cause__ = entry
            then(refused)
        elif entry is None:
            log.info("turn_duplicate", platform=platform, key=key)
            then(False)
        else:
            self.runner.ingress_seen()
            self.runner.wake()
            then(True)


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
