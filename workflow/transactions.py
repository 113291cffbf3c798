"""Several small transactions, each on the keys of one hash slot, in one round trip where Redis allows.

A turn writes a few small things to different slots (a thread's draft, its DM's draft, a
confirm card, what the turn posted), each as its own transaction so that a Redis Cluster can
run it. On one Redis there are no slots to respect: all of them go in one MULTI, one round
trip instead of one each (and still all or nothing). On a cluster each group stays its own
transaction, all sent at once.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import redis.asyncio as aioredis

# Queues one transaction's commands on a pipeline; every key it names shares one hash slot.
Group = Callable[[Any], None]


def is_cluster(redis: Any) -> bool:
    return type(redis).__name__ == "RedisCluster"


async def transact(redis: aioredis.Redis, *groups: Group) -> None:
    """Run each group as a transaction: on one Redis, all in one MULTI (one round trip)."""
    if not groups:
        return
    if is_cluster(redis):
        await asyncio.gather(*(_multi(redis, g) for g in groups))
    else:
        await _multi(redis, *groups)


async def _multi(redis: Any, *groups: Group) -> None:
    """The groups in one MULTI: one round trip, all or nothing."""
    async with redis.pipeline(transaction=True) as pipe:
        for group in groups:
            group(pipe)
        await pipe.execute()


def hset_for(key: str, field: str, value: str, ttl_s: int | None) -> Group:
    """One field of a hash, and the hash's expiry (None: leave the expiry as it is)."""

    def queue(pipe: Any) -> None:
        pipe.hset(key, field, value)
        if ttl_s is not None:
            pipe.expire(key, ttl_s)

    return queue
