"""Turn runners: in serve a burst is acked before its turns start; runners share a burst."""

from __future__ import annotations

import asyncio
import time

import fakeredis

from bot.queue import RunnerLimits, Turn, TurnJournal, TurnQueue, TurnRunner, Turns
from bot.tasks import BackgroundTasks


class Recorder:
    """A platform handler that notes when each turn started."""

    def __init__(self) -> None:
        self.started: dict[str, float] = {}

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        self.started[turn.data["n"]] = time.monotonic()

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
        raise AssertionError("nothing fails here")


def _turns(redis: fakeredis.FakeAsyncRedis, limits: RunnerLimits) -> tuple[Turns, Recorder]:
    turns = Turns.build(redis, "acme", limits=limits)
    recorder = Recorder()
    turns.runner.register("test", recorder, BackgroundTasks())
    return turns, recorder


async def _submit(turns: Turns, n: str) -> None:
    await turns.submit("test", n, "dm", f"thread-{n}", {"n": n}, seen_ttl_s=60)


async def test_a_burst_is_acked_before_its_turns_start():
    """While messages keep arriving, serve's turns wait; they start once the acks pause."""
    limits = RunnerLimits(ingress_quiet_s=0.1, ingress_max_defer_s=2.0)
    turns, recorder = _turns(fakeredis.FakeAsyncRedis(decode_responses=True), limits)
    for i in range(5):  # a message every 40 ms: the process keeps acking
        await _submit(turns, f"m{i}")
        await asyncio.sleep(0.04)
    last_ack = time.monotonic()
    assert recorder.started == {}
    assert turns.runner.tasks is not None
    await turns.runner.tasks.idle()
    assert len(recorder.started) == 5
    assert min(recorder.started.values()) >= last_ack + 0.05


async def test_a_steady_stream_of_messages_does_not_starve_the_turns():
    """Acks never pausing hold the turns back for at most ingress_max_defer_s."""
    limits = RunnerLimits(ingress_quiet_s=0.1, ingress_max_defer_s=0.3)
    turns, recorder = _turns(fakeredis.FakeAsyncRedis(decode_responses=True), limits)
    first = time.monotonic()
    for i in range(30):  # 1.2 s of a message every 40 ms
        await _submit(turns, f"m{i}")
        await asyncio.sleep(0.04)
    assert "m0" in recorder.started
    assert recorder.started["m0"] - first < 0.3 + 0.3  # the cap, and a poll's slack


async def test_two_runners_share_a_burst():
    """Each read takes a few entries, so a second runner gets part of a burst, not none of it."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    queue = TurnQueue(redis, "acme")
    await queue.ensure_group()
    for i in range(100):
        await queue.enqueue("test", f"ev{i}", "dm", f"t{i}", {"n": str(i)}, seen_ttl_s=60)
    limits = RunnerLimits(read_count=16)
    a, b = (TurnRunner(queue, limits=limits) for _ in range(2))
    first = await queue.read(a.consumer, a._take())
    second = await queue.read(b.consumer, b._take())
    assert len(first) == 16 and len(second) == 16


async def test_a_runner_on_a_busy_machine_still_takes_turns_when_it_runs_none():
    """A late event loop with no turn of its own running is other processes' load: it reads anyway."""
    queue = TurnQueue(fakeredis.FakeAsyncRedis(decode_responses=True), "acme")
    runner = TurnRunner(queue, limits=RunnerLimits(max_lag_ms=50))
    runner.lag.ms = 500.0
    assert runner.free() > 0
    runner.running = 3  # its own turns are what makes it late: it waits
    assert runner.free() == 0


async def test_a_runner_whose_core_is_busy_keeps_as_many_turns_as_it_just_finished():
    """A busy core still takes turns while it runs fewer than it finished in the last keep_s:
    the turns it takes wait for their model before they need the CPU, so waiting for the core
    to idle first left it idle meanwhile. Older finishes no longer count."""
    limits = RunnerLimits(read_count=4, keep_s=0.4)
    turns, recorder = _turns(fakeredis.FakeAsyncRedis(decode_responses=True), limits)
    for i in range(12):
        await _submit(turns, f"m{i}")
    runner = turns.runner
    assert runner.tasks is not None
    await runner.tasks.idle()
    assert len(recorder.started) == 12
    await asyncio.sleep(limits.ingress_quiet_s)  # its acks are over
    runner.lag.demand = 1.0  # its core is busy from now on, with turns of its own
    runner.running = 11
    assert runner.free() > 0  # fewer than the 12 it just finished
    runner.running = 12
    assert runner.free() == 0
    await asyncio.sleep(0.45)  # those finishes are older than keep_s: a read's worth is kept
    runner.running = 4
    assert runner.free() == 0
    runner.running = 3
    assert runner.free() > 0


class Busy:
    """Turns that keep the CPU busy in small steps (never a late loop) and never end."""

    def __init__(self) -> None:
        self.started = 0

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None:
        self.started += 1
        while True:
            until = time.thread_time() + 0.00005
            while time.thread_time() < until:
                pass
            await asyncio.sleep(0.002)

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None:
        raise AssertionError("nothing fails here")


async def test_a_runner_whose_turns_use_its_whole_core_takes_no_more():
    """Turns that keep the CPU busy bound how many run at once, well under max_turns."""
    turns = Turns.build(
        fakeredis.FakeAsyncRedis(decode_responses=True), "acme", limits=RunnerLimits()
    )
    for i in range(400):
        await turns.queue.enqueue("test", f"ev{i}", "dm", f"t{i}", {"n": str(i)}, seen_ttl_s=60)
    busy = Busy()
    tasks = BackgroundTasks()
    turns.runner.register("test", busy, tasks)
    stop = asyncio.Event()
    running = asyncio.create_task(turns.runner.run(stop))
    await asyncio.sleep(1.5)
    stop.set()
    await running
    await tasks.drain(timeout_s=0)
    assert turns.runner.lag.demand > 0.8
    assert 0 < busy.started <= 200  # 400 queued, max_turns 500: the CPU said when to stop


async def test_a_turns_journal_expires_however_often_it_is_written():
    """What a turn posted is kept a day after its last record, on every attempt: never for good."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    journal = TurnJournal.of(redis, "acme", "1-0", attempt=1)
    for field in ("stream", "card:1", "answered"):
        await journal.put(field, "x")
    await redis.persist(journal.key)  # as if the expiry had been lost: the next attempt sets it
    again = await TurnJournal.of(redis, "acme", "1-0", attempt=2).load()
    assert again.answered and again.get("card:1") == "x"
    await again.put("card:2", "y")
    assert 0 < await redis.ttl(journal.key) <= 86_400
