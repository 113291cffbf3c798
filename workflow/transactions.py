"""Several small transactions, each on the keys of one hash slot, in one round trip where Redis allows.

A turn writes a few small things to different slots (a thread's draft, its DM's draft, a
confirm card, what the turn posted), each as its own transaction so that a Redis Cluster can
run it. On one Redis there are no slots to respect: all of them go in one MULTI, one round
trip instead of one each (and still all or nothing). On a cluster each group stays its own
transaction, all sent at once.

On one Redis, the transactions of every caller in one event-loop tick go in one MULTI too
(workflow/ticks.py): a runner's turns save their memory, cards and journals many to a tick,
and each used to be a round trip of its own. Each caller still gets its own outcome: an error
in one of its commands is raised to it alone (Redis runs a transaction's other commands
either way). A MULTI Redis refused as a whole (a command it would not queue: EXECABORT) or
that could not be written (a value redis-py cannot encode) applied nothing, so each caller's
transaction is then sent again on its own: the caller at fault is told its error, the others'
writes land. A lost connection is raised to every caller of that tick.

Such a MULTI is sent once: the client's Retry (workflow/store.py's connect) would send it again
when its reply is lost, after Redis ran it, and a transaction's RPUSH (a thread's history) would
be made twice. A lost reply fails its callers instead (a turn is run again from its journal).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import DataError, ResponseError

from workflow.ticks import TickBatch, per_caller

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
        return
    batch = _ticks.get(redis)
    if batch is None:
        batch = _ticks[redis] = TickBatch(_send_with(redis))
    await batch(groups)


# one batch a client (a client that is dropped takes its batch with it)
_ticks: weakref.WeakKeyDictionary[Any, TickBatch[Sequence[Group], None]] = (
    weakref.WeakKeyDictionary()
)


def _send_with(
    redis: aioredis.Redis,
) -> Callable[[list[Sequence[Group]]], Any]:
    ref = weakref.ref(redis)  # (the batch must not keep its client alive)

    async def send(calls: list[Sequence[Group]]) -> list[BaseException | None]:
        """The calls' groups in one MULTI; per call, None or the first error among its replies."""
        client = ref()
        assert client is not None, "a batch outlived its client"
        try:
            async with client.pipeline(transaction=True) as pipe:
                sizes = []
                for groups in calls:
                    queued = len(pipe)
                    for group in groups:
                        group(pipe)
                    sizes.append(len(pipe) - queued)
                replies = await _execute_once(pipe, raise_on_error=False)
        except (ResponseError, DataError):
            # (with raise_on_error=False, only a MULTI that never ran raises these: nothing
            # was applied) each caller alone, so only the one at fault is told
            return list(
                await asyncio.gather(
                    *(_multi(client, *g, once=True) for g in calls), return_exceptions=True
                )
            )
        return [e if isinstance(e, BaseException) else None for e in per_caller(replies, sizes)]

    return send


_NO_RETRY = Retry(NoBackoff(), 0)


async def _execute_once(pipe: Any, *, raise_on_error: bool) -> list[Any]:
    """`pipe.execute`, never sent twice: the pipeline's connection goes without its client's
    Retry for this call (a lost reply raises instead of sending the MULTI again)."""
    if pipe.connection is None:
        pipe.connection = await pipe.connection_pool.get_connection()  # (released by its reset)
    conn = pipe.connection
    retry, conn.retry = conn.retry, _NO_RETRY
    try:
        return list(await pipe.execute(raise_on_error=raise_on_error))
    finally:
        conn.retry = retry


async def _multi(redis: Any, *groups: Group, once: bool = False) -> None:
    """The groups in one MULTI: one round trip, all or nothing; with `once`, never sent twice."""
    async with redis.pipeline(transaction=True) as pipe:
        for group in groups:
            group(pipe)
        if once:
            await _execute_once(pipe, raise_on_error=True)
        else:
            await pipe.execute()


def hset_for(key: str, field: str, value: str, ttl_s: int | None) -> Group:
    """One field of a hash, and the hash's expiry (None: leave the expiry as it is)."""

    def queue(pipe: Any) -> None:
        pipe.hset(key, field, value)
        if ttl_s is not None:
            pipe.expire(key, ttl_s)

    return queue
