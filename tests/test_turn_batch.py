"""A burst's enqueues share round trips, and batching changes nothing about what is queued."""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from typing import Any

import fakeredis
import pytest
import redis.exceptions as redis_errors

from bot.queue import QueueUnavailable, TurnQueue
from bot.queue.batch import ScriptBatcher
from tests.helpers import CountingRedis


@pytest.fixture
def redis() -> CountingRedis:
    CountingRedis.pipelines = 0
    return CountingRedis(decode_responses=True)


def _enqueue(queue: TurnQueue, key: str, thread: str = "t") -> Any:
    return queue.enqueue("slack", key, "dm", thread, {"text": key}, seen_ttl_s=60)


async def test_two_hundred_messages_at_once_are_queued_in_one_round_trip(redis: CountingRedis):
    queue = TurnQueue(redis, "acme")
    await queue.warm()  # as serve does at start-up: the script is loaded before any burst
    ids = await asyncio.gather(*(_enqueue(queue, f"ev{i}", f"t{i % 7}") for i in range(200)))
    assert len(set(ids)) == 200 and all(ids)
    assert CountingRedis.pipelines == 1
    assert await redis.xlen(queue.stream) == 200


async def test_a_retry_in_the_same_burst_is_queued_once(redis: CountingRedis):
    """Slack's retry arriving beside its original: one entry, the other call told it is a repeat."""
    queue = TurnQueue(redis, "acme")
    first, again = await asyncio.gather(_enqueue(queue, "ev1"), _enqueue(queue, "ev1"))
    assert [first is None, again is None].count(True) == 1
    assert await redis.xlen(queue.stream) == 1


async def test_after_redis_forgot_the_script_each_message_is_still_queued_once(
    redis: CountingRedis,
):
    """A restarted Redis answers NOSCRIPT: the script is loaded and only those calls sent again."""
    queue = TurnQueue(redis, "acme")
    await asyncio.gather(*(_enqueue(queue, f"ev{i}") for i in range(5)))
    await redis.script_flush()
    again = await asyncio.gather(*(_enqueue(queue, f"ev{i}") for i in range(3, 10)))
    assert again[:2] == [None, None] and all(again[2:])
    assert await redis.xlen(queue.stream) == 10


async def test_an_unreachable_redis_fails_every_message_of_the_batch():
    server = fakeredis.FakeServer()
    server.connected = False
    queue = TurnQueue(fakeredis.FakeAsyncRedis(server=server, decode_responses=True), "acme")
    results = await asyncio.gather(
        *(_enqueue(queue, f"ev{i}") for i in range(3)), return_exceptions=True
    )
    assert all(isinstance(r, QueueUnavailable) for r in results)


async def test_on_a_real_redis_a_burst_is_queued_once_each_and_repeats_are_recognised():
    """The batch as serve sends it to a real Redis (RESP written by hand, replies read in order)."""
    from tests.conftest import open_real_redis

    client = await open_real_redis()
    org = "t" + secrets.token_hex(6)
    queue = TurnQueue(
        client, org, deadline_s=10.0
    )  # what is queued, not how fast, on a busy machine
    try:
        await queue.warm()
        keys = [f"{org}-ev{i}" for i in range(300)]
        ids = await asyncio.gather(*(_enqueue(queue, k, f"t{i % 7}") for i, k in enumerate(keys)))
        assert len(set(ids)) == 300 and all(ids)
        again = await asyncio.gather(*(_enqueue(queue, k) for k in [*keys[:5], f"{org}-new"]))
        assert again[:5] == [None] * 5 and again[5]
        assert await client.xlen(queue.stream) == 301
        entry = (await client.xrange(queue.stream, count=1))[0][1]
        assert entry["key"] == keys[0] and json.loads(entry["data"]) == {"text": keys[0]}
    finally:
        await queue.aclose()
        async for key in client.scan_iter(match="{turns:" + org + "}:*", count=500):
            await client.delete(key)
        await client.aclose()


async def test_on_a_real_redis_a_script_it_does_not_know_is_loaded_and_each_call_runs_once():
    from tests.conftest import open_real_redis

    client = await open_real_redis()
    source = f"return ARGV[1] .. '-' .. KEYS[1]  -- {secrets.token_hex(8)}"  # never loaded
    sha = hashlib.sha1(source.encode()).hexdigest()
    batcher = ScriptBatcher(client, source, sha, deadline_s=10.0)
    try:
        replies = await asyncio.gather(*(batcher([f"k{i}"], [i]) for i in range(4)))
        assert replies == [f"{i}-k{i}" for i in range(4)]
    finally:
        await batcher.aclose()
        await client.aclose()


async def test_a_caller_whose_callback_fails_does_not_keep_the_others_from_their_replies(
    redis: CountingRedis,
):
    """`call`'s callbacks are told one by one: a bug in one is logged, the rest still hear."""
    from structlog.testing import capture_logs

    source = "return KEYS[1]"
    batcher = ScriptBatcher(redis, source, hashlib.sha1(source.encode()).hexdigest())
    await redis.script_load(source)
    told: list[Any] = []

    def broken(_: Any) -> None:
        raise RuntimeError("a caller's bug")

    with capture_logs() as logs:
        batcher.call(["a"], [], told.append)
        batcher.call(["b"], [], broken)
        batcher.call(["c"], [], told.append)
        for _ in range(200):  # ("c" is told after "b", in the batch's order)
            if len(told) == 2:
                break
            await asyncio.sleep(0.01)
    assert told == ["a", "c"]
    assert [e["event"] for e in logs] == ["batch_reply_failed"]


async def test_a_batch_that_fails_on_a_bug_refuses_its_callers_instead_of_leaving_them_waiting():
    """An argument RESP cannot carry fails the batch: each caller is told it is not queued
    (the edge answers 503 and Slack retries), none waits forever."""
    from structlog.testing import capture_logs

    from tests.conftest import open_real_redis

    client = await open_real_redis()
    source = f"return KEYS[1]  -- {secrets.token_hex(8)}"
    batcher = ScriptBatcher(client, source, hashlib.sha1(source.encode()).hexdigest(), 10.0)
    try:
        with capture_logs() as logs:
            replies = await asyncio.wait_for(
                asyncio.gather(batcher(["a"], [None]), batcher(["b"], []), return_exceptions=True),
                5,
            )
        assert [type(r) for r in replies] == [QueueUnavailable, QueueUnavailable]
        assert [e["event"] for e in logs] == ["batch_failed"]
    finally:
        await batcher.aclose()
        await client.aclose()


class ScriptCountingRedis(fakeredis.FakeAsyncRedis):
    """Counts the scripts run (each EVALSHA sent on its own is one round trip; a first one
    that Redis did not know yet, loaded and sent again, counts once)."""

    scripts = 0

    async def evalsha(self, *args: Any) -> Any:
        reply = await super().evalsha(*args)
        ScriptCountingRedis.scripts += 1
        return reply


async def test_turns_started_and_finished_together_take_one_call_each_and_each_thread_moves_on():
    """A runner's turns of one loop tick acquire their leases in one script call and are
    finished in one: each answer is the one a call of its own would give."""
    redis = ScriptCountingRedis(decode_responses=True)
    queue = TurnQueue(redis, "acme")
    await queue.ensure_group()
    for i, thread in enumerate(["t0", "t1", "t2", "t0"]):
        await _enqueue(queue, f"ev{i}", thread)
    turns = await queue.read("c", 10)
    ScriptCountingRedis.scripts = 0
    states = await asyncio.gather(*(queue.acquire(t, f"tok-{t.id}", 10_000) for t in turns))
    assert states == [1, 1, 1, -1]  # the thread's second message waits for its first
    assert ScriptCountingRedis.scripts == 1
    await asyncio.gather(*(queue.finish(t, f"tok-{t.id}") for t in turns[:3]))
    assert ScriptCountingRedis.scripts == 2
    assert await redis.xlen(queue.stream) == 1  # acked and deleted, but for t0's second
    assert (await redis.xpending(queue.stream, "turns"))["pending"] == 1
    assert await queue.acquire(turns[3], "tok-next", 10_000) == 1  # t0 moves on at once
    assert not any([await redis.exists(f"{{turns:acme}}:lease:{t}") for t in ("t1", "t2")])
    assert await redis.hgetall("{turns:acme}:attempts") == {turns[3].id: "1"}


async def test_a_finish_that_fails_tells_every_turn_of_its_batch():
    """Redis failing a batched finish fails each of its turns (left pending: reclaimed later)."""
    server = fakeredis.FakeServer()
    redis = fakeredis.FakeAsyncRedis(server=server, decode_responses=True)
    queue = TurnQueue(redis, "acme")
    await queue.ensure_group()
    for i in range(2):
        await _enqueue(queue, f"ev{i}", f"t{i}")
    turns = await queue.read("c", 10)
    server.connected = False
    async with asyncio.timeout(2):  # a turn left waiting fails here instead of hanging
        results = await asyncio.gather(
            *(queue.finish(t, "tok") for t in turns), return_exceptions=True
        )
    assert all(isinstance(r, redis_errors.ConnectionError) for r in results)


async def test_an_acquire_sent_again_gets_the_same_answer_and_counts_one_attempt():
    """The client retries a call whose reply it lost: the acquire ran already and holds the
    leases under its tokens. Sent again, it must answer the same, not "held by another
    runner" (each turn would wait out its own lease and come back an attempt further on)."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    queue = TurnQueue(redis, "acme")
    await queue.ensure_group()
    for i, thread in enumerate(["t0", "t1", "t0"]):
        await _enqueue(queue, f"ev{i}", thread)
    turns = await queue.read("c", 10)
    calls = [(t, f"tok-{t.id}", 10_000) for t in turns]
    first = await queue._acquire_all(calls)
    again = await queue._acquire_all(calls)  # the same script call, replayed
    assert first == again == [1, 1, -1]
    assert await redis.hgetall("{turns:acme}:attempts") == {turns[0].id: "1", turns[1].id: "1"}
    assert await queue.acquire(turns[0], "another-runner", 10_000) == 0  # still held


async def test_a_burial_sent_again_leaves_one_dead_letter():
    """The client sends a call again when it lost the reply: the turn is buried once."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    queue = TurnQueue(redis, "acme")
    await queue.ensure_group()
    await _enqueue(queue, "ev0", "t0")
    (turn,) = await queue.read("c", 10)
    assert await queue.acquire(turn, "tok", 10_000) == 1
    for _ in range(2):
        await queue.finish(turn, "tok", dead={"reason": "failed 3 times"})
    assert len(await queue.dead_letters()) == 1 and await queue.depth() == 0
