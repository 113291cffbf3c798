"""Transactions of one loop tick share one round trip, and each caller keeps its own outcome."""

from __future__ import annotations

import asyncio
from typing import Any

import fakeredis
import pytest
import redis.exceptions
from redis.asyncio.client import Pipeline
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from tests.helpers import CountingRedis
from workflow.transactions import Group, hset_for, transact


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


@pytest.mark.parametrize(
    "refused",
    [
        pytest.param(lambda pipe: pipe.execute_command("HSET", "k"), id="wrong-arity"),
        pytest.param(hset_for("k", "f", None, None), id="cannot-encode"),  # type: ignore[arg-type]
    ],
)
async def test_a_command_redis_refuses_to_queue_fails_its_own_caller_and_the_others_land(
    refused: Group,
):
    """A command Redis will not queue (EXECABORT) or redis-py cannot write aborts the tick's
    MULTI as a whole: each caller is sent again on its own, so only the one at fault fails."""
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    async with asyncio.timeout(2):
        results = await asyncio.gather(
            transact(client, hset_for("ok1", "f", "1", None)),
            transact(client, refused),
            transact(client, hset_for("ok2", "f", "1", None), hset_for("ok3", "f", "1", 60)),
            return_exceptions=True,
        )
    assert results[0] is None and results[2] is None
    assert isinstance(results[1], redis.exceptions.ResponseError | redis.exceptions.DataError)
    assert [await client.hget(k, "f") for k in ("ok1", "ok2", "ok3")] == ["1", "1", "1"]
    assert not await client.exists("k")


async def test_a_redis_that_cannot_be_reached_fails_every_caller_of_the_tick():
    server = fakeredis.FakeServer()
    server.connected = False
    client = fakeredis.FakeAsyncRedis(server=server)
    async with asyncio.timeout(2):  # a caller left waiting fails here instead of hanging
        results = await asyncio.gather(
            *(transact(client, hset_for(f"k{i}", "f", "1", None)) for i in range(3)),
            return_exceptions=True,
        )
    assert all(isinstance(r, redis.exceptions.ConnectionError) for r in results)


async def test_a_multi_whose_reply_is_lost_is_not_sent_again(monkeypatch: pytest.MonkeyPatch):
    """Redis ran the MULTI and the reply was lost: the client's Retry must not send it again
    (a thread's history would get its message twice); its callers are told instead."""
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    client.connection_pool.connection_kwargs["retry"] = Retry(NoBackoff(), 3)  # as connect's
    ran = Pipeline._execute_transaction
    lost = [True]

    async def reply_lost(self: Pipeline, *args: Any, **kwargs: Any) -> Any:
        replies = await ran(self, *args, **kwargs)
        if lost:
            lost.pop()
            raise redis.exceptions.ConnectionError("reply lost")
        return replies

    monkeypatch.setattr(Pipeline, "_execute_transaction", reply_lost)
    async with asyncio.timeout(2):
        results = await asyncio.gather(
            transact(client, lambda pipe: pipe.rpush("history", "hello")),
            transact(client, hset_for("k", "f", "1", None)),
            return_exceptions=True,
        )
    assert all(isinstance(r, redis.exceptions.ConnectionError) for r in results)
    assert await client.lrange("history", 0, -1) == ["hello"]  # made once
    conn = await client.connection_pool.get_connection()
    assert conn.retry.get_retries() == 3  # the client's other calls keep their Retry
    await client.connection_pool.release(conn)
