"""Transactions of one loop tick share one round trip, and each caller keeps its own outcome."""

from __future__ import annotations

import asyncio

import fakeredis
import redis.exceptions

from tests.helpers import CountingRedis
from workflow.transactions import hset_for, transact


async def test_the_transactions_of_one_tick_go_in_one_round_trip():
    """Fifty callers writing at once: one MULTI, and every write made with its expiry."""
    client = CountingRedis(decode_responses=True)
    CountingRedis.pipelines = 0
    await asyncio.gather(
        *(
            transact(
                client, hset_for(f"k{i}", "f", str(i), 60), hset_for("all", f"f{i}", "1", None)
            )
            for i in range(50)
        )
    )
    assert CountingRedis.pipelines == 1
    assert [await client.hget(f"k{i}", "f") for i in range(50)] == [str(i) for i in range(50)]
    assert 0 < await client.ttl("k7") <= 60 and await client.hlen("all") == 50
    await transact(client, hset_for("later", "f", "1", None))  # the next tick: its own
    assert CountingRedis.pipelines == 2


async def test_a_command_that_fails_fails_its_own_caller_only():
    """A caller whose write Redis refuses (a key of another type) is told; the others are not."""
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    await client.rpush("a-list", "x")
    results = await asyncio.gather(
        transact(client, hset_for("ok1", "f", "1", None)),
        transact(client, hset_for("a-list", "f", "1", None)),
        transact(client, hset_for("ok2", "f", "1", None)),
        return_exceptions=True,
    )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], redis.exceptions.ResponseError)
    assert await client.hget("ok1", "f") == "1" and await client.hget("ok2", "f") == "1"


async def test_a_redis_that_cannot_be_reached_fails_every_caller_of_the_tick():
    server = fakeredis.FakeServer()
    server.connected = False
    client = fakeredis.FakeAsyncRedis(server=server)
    results = await asyncio.gather(
        *(transact(client, hset_for(f"k{i}", "f", "1", None)) for i in range(3)),
        return_exceptions=True,
    )
    assert all(isinstance(r, redis.exceptions.ConnectionError) for r in results)
