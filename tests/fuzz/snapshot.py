"""Everything a hostile request must leave untouched: a full dump of Redis, the platform's writes, the log."""

from __future__ import annotations

from typing import Any

import redis.asyncio as aioredis

from workflow.keys import verify_failures

# the failed-verification counter (bot/budget.py) is the one thing a refused request must move
BUDGET_PREFIX = verify_failures(0).removesuffix("0")

# what a bot may ask Slack without changing anything; every other method writes
SLACK_READS = frozenset(
    {
        "auth.test",
        "users.info",
        "users.lookupByEmail",
        "conversations.open",
        "conversations.history",
        "conversations.replies",
        "chat.getPermalink",
    }
)
FEISHU_READS = frozenset({"token"})
TRACEBACK_MARKERS = ("Traceback", "background_task_failed", "Error handling request")


async def redis_dump(redis: aioredis.Redis) -> dict[str, Any]:
    """Every key with its type, value and whether it expires (a full dump, for before/after).

    A stream's value is its entries and its consumer groups' positions and pending counts.
    Left out: the shared count of failed verifications, which a refused request must add to.
    """
    out: dict[str, Any] = {}
    async for key in redis.scan_iter(count=1000):
        if key.startswith(BUDGET_PREFIX):
            continue
        kind = await redis.type(key)
        match kind:
            case "string":
                value: Any = await redis.get(key)
            case "hash":
                value = await redis.hgetall(key)
            case "set":
                value = sorted(await redis.smembers(key))
            case "zset":
                value = await redis.zrange(key, 0, -1, withscores=True)
            case "list":
                value = await redis.lrange(key, 0, -1)
            case "stream":
                # its entries and where each reader is (a refused request must not move them)
                groups = [
                    (g["name"], g["last-delivered-id"], g["pending"])
                    for g in await redis.xinfo_groups(key)
                ]
                value = (await redis.xrange(key), sorted(groups))
            case _:  # a type this dump has no reader for: its serialized form
                value = await redis.dump(key)
        out[key] = (kind, value, (await redis.ttl(key)) >= 0)
    return out


def tracebacks(text: str, records: list[Any]) -> list[str]:
    """Traceback-like lines in captured output and log records with exception info."""
    found = [line for line in text.splitlines() if any(m in line for m in TRACEBACK_MARKERS)]
    found += [r.getMessage() for r in records if r.exc_info]
    return found
