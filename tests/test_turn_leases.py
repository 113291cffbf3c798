"""Thread leases while turns run: kept however long a turn takes, renewed together, lost → stopped."""

from __future__ import annotations

import asyncio

import fakeredis
import pytest

from bot.queue import RunnerLimits, Turn, TurnJournal, TurnQueue, TurnRunner
from bot.tasks import BackgroundTasks
from workflow.keys import turn_attempts, turn_lease


class Slow:
    """A platform handler whose turns take `seconds`, or until stopped."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.ran: list[str] = []
        self.stopped: list[str] = []

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        try:
            await asyncio.sleep(self.seconds)
        except asyncio.CancelledError:
            self.stopped.append(turn.thread)
            raise
        self.ran.append(turn.thread)

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
        raise AssertionError("nothing fails here")


async def _running(handler: Slow, threads: list[str]) -> tuple[TurnQueue, TurnRunner]:
    queue = TurnQueue(fakeredis.FakeAsyncRedis(decode_responses=True), "acme")
    await queue.ensure_group()
    for t in threads:
        await queue.enqueue("test", f"ev-{t}", "dm", t, {}, seen_ttl_s=60)
    runner = TurnRunner(queue, limits=RunnerLimits(lease_s=0.3, reclaim_idle_s=30))
    runner.register("test", handler, BackgroundTasks())
    runner.start(await queue.read(runner.consumer, 10))
    return queue, runner


async def test_turns_longer_than_their_lease_keep_their_threads_renewed_in_one_call_each_time():
    """Three turns of 1 s under 0.3 s leases: nobody else can start them, and each renewal
    renews the three leases in one call (one round trip a runner, not one a turn)."""
    handler = Slow(1.0)
    threads = ["t1", "t2", "t3"]
    queue, runner = await _running(handler, threads)
    calls: list[int] = []
    renew = queue.renew

    async def counted(held: list[tuple[Turn, str]], lease_ms: int) -> list[bool]:
        calls.append(len(held))
        return await renew(held, lease_ms)

    queue.renew = counted  # type: ignore[method-assign]
    await asyncio.sleep(0.7)  # more than two leases' length
    for t in threads:  # a second runner finds each thread held
        assert await queue.redis.get(turn_lease("acme", t)) is not None
    assert runner.tasks is not None
    await runner.tasks.idle()
    assert sorted(handler.ran) == threads and handler.stopped == []
    assert calls and max(calls) == 3 and len(calls) <= 12  # ~every 0.1 s for 1 s, all at once
    assert await queue.depth() == 0


async def test_a_turn_whose_lease_another_runner_took_is_stopped_and_left_to_it():
    """The lease taken over (this runner was presumed dead): its turn stops, unfinished here."""
    handler = Slow(30.0)
    queue, runner = await _running(handler, ["t1", "t2"])
    await asyncio.sleep(0.05)
    await queue.redis.set(turn_lease("acme", "t1"), "another-runner", px=5000)
    await asyncio.sleep(0.3)  # a renewal or two
    assert handler.stopped == ["t1"]
    assert await queue.redis.get(turn_lease("acme", "t1")) == "another-runner"
    assert await queue.depth() == 2  # t1's entry is the other runner's to finish
    assert runner.tasks is not None
    await runner.tasks.drain(0.01)  # shutdown: t2 gives its thread back
    assert await queue.redis.get(turn_lease("acme", "t2")) is None


class FailsOnce(Slow):
    """t1's first attempt fails at once; every other turn takes `seconds`."""

    def __init__(self, seconds: float) -> None:
        super().__init__(seconds)
        self.failed = asyncio.Event()

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        if turn.thread == "t1" and not self.failed.is_set():
            self.failed.set()
            raise RuntimeError("the model timed out")
        await super().run_turn(turn, journal)


async def test_a_failed_turns_lease_is_not_renewed_while_it_waits_to_retry():
    """Released after a failure, the lease stays free until the retry (renewing it again for the
    ended attempt made the retry wait for it to lapse); the retry then runs the turn."""
    handler = FailsOnce(0.6)
    queue, runner = await _running(handler, ["t1", "t2"])  # t2 keeps the renewals going
    await asyncio.wait_for(handler.failed.wait(), 1)
    await asyncio.sleep(0.15)  # a renewal (every 0.1 s) within the 0.2 s wait before the retry
    assert await queue.redis.get(turn_lease("acme", "t1")) is None
    assert runner.tasks is not None
    await runner.tasks.idle()
    assert sorted(handler.ran) == ["t1", "t2"]


async def _one_turn(thread: str = "t1") -> tuple[TurnQueue, Turn]:
    queue = TurnQueue(fakeredis.FakeAsyncRedis(decode_responses=True), "acme")
    await queue.ensure_group()
    await queue.enqueue("test", f"ev-{thread}", "dm", thread, {}, seen_ttl_s=60)
    (turn,) = await queue.read("c", 10)
    return queue, turn


async def test_an_acquire_cancelled_on_its_way_gives_back_what_it_took():
    """Shutdown while a turn's acquire waits in its batch: the batch is sent anyway and takes
    the lease; the runner gives it back and the attempt does not count."""
    queue, turn = await _one_turn()
    runner = TurnRunner(queue, limits=RunnerLimits(lease_s=5))
    acquiring = asyncio.ensure_future(runner._acquire(turn, "tok"))
    await asyncio.sleep(0)  # queued in this tick's batch
    acquiring.cancel()
    with pytest.raises(asyncio.CancelledError):
        await acquiring
    assert await queue.redis.get(turn_lease("acme", "t1")) is None
    assert await queue.redis.hget(turn_attempts("acme"), turn.id) in (None, "0")
    assert await queue.acquire(turn, "next", 5000) == 1  # the next run is its first attempt


async def test_a_release_refunds_only_an_attempt_whose_lease_it_holds_and_only_once():
    queue, turn = await _one_turn()
    assert await queue.acquire(turn, "tok", 5000) == 1
    await queue.release(turn, "not-ours", refund=True)
    assert await queue.redis.hget(turn_attempts("acme"), turn.id) == "1"
    for _ in range(2):  # (the second: the client sending it again after a lost reply)
        await queue.release(turn, "tok", refund=True)
    assert await queue.redis.hget(turn_attempts("acme"), turn.id) == "0"
    assert await queue.redis.get(turn_lease("acme", "t1")) is None


async def test_a_renewal_that_arrives_after_its_turn_finished_does_not_hold_the_thread():
    """A lease that ran out is taken back while its turn still heads the thread; once the turn
    is finished, a late renewal leaves the thread free for its next turn."""
    queue, turn = await _one_turn()
    await queue.enqueue("test", "ev-next", "dm", "t1", {}, seen_ttl_s=60)
    (after,) = await queue.read("c", 10)
    assert await queue.acquire(turn, "tok", 5000) == 1
    await queue.redis.delete(turn_lease("acme", "t1"))  # ran out while Redis was paused
    assert await queue.renew([(turn, "tok")], 5000) == [True]  # taken back
    assert await queue.redis.get(turn_lease("acme", "t1")) == "tok"
    await queue.finish(turn, "tok")
    assert await queue.renew([(turn, "tok")], 5000) == [False]  # too late
    assert await queue.redis.get(turn_lease("acme", "t1")) is None
    assert await queue.acquire(after, "next", 5000) == 1  # the thread's next turn, at once
