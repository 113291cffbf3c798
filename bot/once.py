"""Write requests answered once: the same slash command, form or card click again gets the first answer.

Slack and Feishu retry, people double-click, and a signed request can be replayed. Events and
approval clicks were de-duplicated already; this covers every other write entry. The first
request with a given id runs and its answer (status, type, body) is kept for a day; a repeat
gets that answer back without running anything. A repeat that arrives while the first is
still running waits for its answer (a little under the platforms' 3 s), else gets an empty
200 and nothing is done twice.

When Redis cannot be reached the request goes ahead un-deduplicated (logged): answering
the person matters more than guarding against a replay during an outage.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import redis.asyncio as aioredis
import redis.exceptions
import structlog

from workflow.keys import answer_once

log = structlog.get_logger("edge")
KEEP_S = 86_400
RUNNING = "running"


@dataclass(frozen=True)
class Answer:
    """An HTTP answer as kept: status, content type and body text."""

    status: int
    content_type: str
    body: str

    def dumps(self) -> str:
        return json.dumps([self.status, self.content_type, self.body])

    @classmethod
    def loads(cls, raw: str) -> Answer | None:
        try:
            status, content_type, body = json.loads(raw)
            return cls(int(status), str(content_type), str(body))
        except (ValueError, TypeError):
            return None


EMPTY = Answer(200, "text/plain", "")


class Once:
    """Runs the work of a request id once and gives its answer to every repeat."""

    def __init__(
        self, redis: aioredis.Redis, platform: str, *, wait_s: float = 2.5, poll_s: float = 0.05
    ) -> None:
        self.redis = redis
        self.platform = platform
        self.wait_s = wait_s
        self.poll_s = poll_s

    async def run(self, request_id: str, work: Callable[[], Awaitable[Answer]]) -> Answer:
        key = answer_once(self.platform, request_id)
        try:
            first = await self.redis.set(key, RUNNING, nx=True, ex=KEEP_S)
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("once_unavailable", platform=self.platform, error=repr(e)[:200])
            return await work()
        if not first:
            log.info("request_repeated", platform=self.platform, request_id=request_id[:80])
            return await self._first_answer(key)
        try:
            answer = await work()
        except BaseException:
            await self._forget(key)  # it did not finish: a retry may run it
            raise
        try:
            await self.redis.set(key, answer.dumps(), ex=KEEP_S)
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("once_answer_not_kept", platform=self.platform, error=repr(e)[:200])
        return answer

    async def _first_answer(self, key: str) -> Answer:
        loop = asyncio.get_running_loop()
        until = loop.time() + self.wait_s
        while True:
            try:
                raw = await self.redis.get(key)
            except (redis.exceptions.RedisError, OSError):
                return EMPTY
            if raw is None:
                return EMPTY
            if raw != RUNNING:
                return Answer.loads(raw) or EMPTY
            if loop.time() >= until:
                return EMPTY
            await asyncio.sleep(self.poll_s)

    async def _forget(self, key: str) -> None:
        try:
            await self.redis.delete(key)
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("once_not_forgotten", platform=self.platform, error=repr(e)[:200])
