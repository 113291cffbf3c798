"""Turn runners: a consumer of the turn stream, in `serve` (by default) and in every `worker`.

A runner takes entries while it has room — a bound on turns at once (max_turns), and none
while its event loop runs late, or needs its whole core and already runs as many turns as it
finished in the last second (the CPU is the limit, not a fixed count; those it takes
next wait for their model before they need the core) — a few at a time, and the next few
only once the loop shows what those cost, so that the other runners get the rest and a burst is not all taken at once. In `serve`, which also acks, acks come first: a turn
starts once the process's acks have paused (for at most half a second), so a burst is acked
before its turns compete for the same event loop. Turns of one thread run in order, one at a time, under the thread's
lease; turns of different threads run side by side. An entry whose runner died is reclaimed
after `reclaim_idle_s` and run again from its start; the handler's journal tells it what was
already posted. A turn that failed `max_attempts` times tells the person so and is moved to
the dead-letter stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

import redis.exceptions
import structlog
from prometheus_client import Gauge

from bot.queue.journal import TurnJournal
from bot.queue.stream import Turn, TurnQueue
from bot.tasks import BackgroundTasks

log = structlog.get_logger("turns")
MAX_ATTEMPTS = 3
TURNS_RUNNING = Gauge("approvals_turns_running", "Turns this process runs now.")
TURNS_RUNNING_MAX = Gauge(
    "approvals_turns_running_max", "The most turns this process has run at once (since start)."
)


class TurnHandler(Protocol):
    """A platform's side of a turn: run it (recording what it posts), or tell the person it failed."""

    async def run_turn(self, turn: Turn, journal: TurnJournal) -> None: ...

    async def give_up(self, turn: Turn, journal: TurnJournal) -> None: ...


@dataclass
class Held:
    """A thread's lease this runner holds while `work` runs the turn."""

    turn: Turn
    token: str
    work: asyncio.Task
    lost: bool = False  # another runner holds the thread now: `work` was stopped


@dataclass(frozen=True)
class RunnerLimits:
    """How much one runner takes on, and how fast a dead runner's turns come back."""

    max_turns: int = 500
    lease_s: float = 10.0
    reclaim_idle_s: float = 15.0
    max_lag_ms: float = 50.0  # take no new turns while the event loop runs this late
    max_demand: float = 0.9  # … or while it runs or waits for a core this much of the time
    # … but a runner whose core is busy still keeps as many turns as it finished in the last
    # keep_s (at least read_count): the turns it takes next wait for their model and Slack
    # calls before they need the CPU, so taking none until the core idles left it idle
    keep_s: float = 1.0
    max_attempts: int = MAX_ATTEMPTS
    block_ms: int = 500
    read_count: int = 32  # entries per read (8 cut two runners' turns/s ~13%)
    # In a process that also acks (serve): turns start once its acks have been quiet this
    # long, so a burst is acked before its turns compete for the event loop — but never wait
    # longer than ingress_max_defer_s (a steady stream of messages must not starve them).
    ingress_quiet_s: float = 0.05
    ingress_max_defer_s: float = 0.5


def consumer_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{os.urandom(2).hex()}"


class CpuDemand:
    """Seconds this thread has run or waited for a core: Linux's schedstat, else its CPU time.

    A thread that is running or runnable all the time needs the whole core it runs on, whether
    it gets it (a quiet machine) or waits for it (a loaded one); its own CPU time alone reads
    low exactly when the machine is busy.
    """

    PATH = "/proc/thread-self/schedstat"

    def __init__(self) -> None:
        try:
            self._file: BinaryIO | None = Path(self.PATH).open("rb", buffering=0)  # noqa: SIM115
        except OSError:
            self._file = None

    def seconds(self) -> float:
        if self._file is None:
            return time.thread_time()
        self._file.seek(0)
        run_ns, wait_ns, _ = self._file.read().split()
        return (int(run_ns) + int(wait_ns)) / 1e9

    def close(self) -> None:
        if self._file is not None:
            self._file.close()


class LoopLag:
    """How late the event loop runs (ms) and how much of a core it needs (0..1), both smoothed.

    The runner's measure of a busy CPU: a loop that is late, or that runs or waits for a core
    nearly all the time, has as many turns as its CPU can take.
    """

    def __init__(self, every_s: float = 0.02) -> None:
        self.every_s = every_s
        self.ms = 0.0
        self.demand = 0.0
        self._waiting: list[asyncio.Future[None]] = []
        self._running = False

    async def run(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        cpu = CpuDemand()  # the loop's own thread: sampled from it
        self._running = True
        try:
            while not stop.is_set():
                start, used = loop.time(), cpu.seconds()
                await asyncio.sleep(self.every_s)
                wall = loop.time() - start
                late = max(0.0, (wall - self.every_s) * 1000)
                self.ms = late if late > self.ms else self.ms * 0.7 + late * 0.3
                share = min(1.0, (cpu.seconds() - used) / max(wall, 1e-6))
                self.demand = self.demand * 0.7 + share * 0.3
                self._wake_waiting()
        finally:
            cpu.close()
            self._running = False
            self._wake_waiting()

    def _wake_waiting(self) -> None:
        waiting, self._waiting = self._waiting, []
        for f in waiting:
            if not f.done():
                f.set_result(None)

    async def measured(self) -> None:
        """Wait until a whole sample has been taken from now on, so it counts what just started.

        Turns cost their CPU once they run: read again before that shows, a burst was taken up
        to max_turns at once (500 a runner, each with its own Redis and HTTP connections).
        """
        if not self._running:  # no sampler (a runner that only pumps): one period's pause
            await asyncio.sleep(self.every_s)
            return
        for _ in range(2):  # the sample under way began before; the next one is all after
            f = asyncio.get_running_loop().create_future()
            self._waiting.append(f)
            await f


class TurnRunner:
    """Runs queued turns with the platform handlers registered with it."""

    def __init__(
        self,
        queue: TurnQueue,
        *,
        limits: RunnerLimits | None = None,
        consumer: str | None = None,
    ) -> None:
        self.queue = queue
        self.limits = limits or RunnerLimits()
        self.consumer = consumer or consumer_name()
        self.handlers: dict[str, TurnHandler] = {}
        self.tasks: BackgroundTasks | None = None
        self.lag = LoopLag()
        self.running = 0
        self.most_running = 0
        self.inflight: set[str] = set()
        self._finished: deque[float] = deque()  # when turns ended (monotonic), for kept()
        self._threads: dict[str, asyncio.Event] = {}
        self._held: dict[str, Held] = {}  # token → the lease and the turn it runs
        self._renewer: asyncio.Task | None = None
        self._pumping = False
        self._again = False
        self._maybe_more = False
        self._group_ready = False
        self.paused = False  # True: this process only queues (SERVE_RUNS_TURNS=false)
        self._ingress_at = -1e9  # when this process last queued a message (monotonic)
        self._deferring_since: float | None = None

    def register(self, platform: str, handler: TurnHandler, tasks: BackgroundTasks) -> None:
        """Turns of `platform` go to `handler`; they run as tasks in `tasks` (drained on shutdown)."""
        self.handlers[platform] = handler
        if self.tasks is None:
            self.tasks = tasks

    @property
    def lease_ms(self) -> int:
        return int(self.limits.lease_s * 1000)

    def free(self) -> int:
        # a late loop with no turn of ours running is someone else's load: take turns anyway
        # (on a busy machine the runner otherwise stopped for good with entries queued)
        late = self.lag.ms > self.limits.max_lag_ms
        # a busy core with fewer turns than it needs to stay busy takes more: waiting until
        # it idled (the demand brake alone) emptied a runner down to a read's worth of turns
        # and left its core idle while those waited for the model
        full = self.lag.demand > self.limits.max_demand and self.running >= self.kept()
        if (self.running > 0 and (late or full)) or self.acking():
            return 0
        return max(0, self.limits.max_turns - self.running)

    def kept(self) -> int:
        """The turns a runner whose core is busy keeps running: as many as it finished in the
        last keep_s, and at least a read's worth."""
        horizon = time.monotonic() - self.limits.keep_s
        while self._finished and self._finished[0] < horizon:
            self._finished.popleft()
        return max(self.limits.read_count, len(self._finished))

    def _take(self) -> int:
        return min(self.free(), self.limits.read_count)

    # --- ingress first -------------------------------------------------------------------

    def ingress_seen(self) -> None:
        """This process just queued a message and is acking it: its turns wait (see acking)."""
        self._ingress_at = time.monotonic()

    def acking(self) -> bool:
        """Whether acks are under way here, and turns should hold back (for at most a while)."""
        now = time.monotonic()
        if now - self._ingress_at >= self.limits.ingress_quiet_s:
            self._deferring_since = None
            return False
        if self._deferring_since is None:
            self._deferring_since = now
        return now - self._deferring_since < self.limits.ingress_max_defer_s

    async def _after_acks(self) -> None:
        quiet = self.limits.ingress_quiet_s
        for _ in range(int(self.limits.ingress_max_defer_s / quiet) + 2):  # acking() ends by then
            if not self.acking():
                return
            await asyncio.sleep(quiet)

    # --- taking entries ------------------------------------------------------------------

    def wake(self) -> None:
        """Something was queued here: read it now rather than at the next poll."""
        if self.tasks is None or self.paused:
            return
        if self._pumping:
            self._again = True
            return
        self._pumping = True
        self.tasks.spawn(self._pump(), name="turns:pump")

    async def _pump(self) -> None:
        try:
            if not self._group_ready:
                await self.queue.ensure_group()
                self._group_ready = True
            while True:
                self._again = False
                await self._after_acks()
                took = self.start(await self.queue.read(self.consumer, self._take()))
                if not took and not self._again:
                    return
                if took:
                    await self.lag.measured()
        except (redis.exceptions.RedisError, OSError) as e:
            # the entry stays queued: the polling loop or another runner takes it
            log.warning("turns_read_failed", error=repr(e)[:200])
        finally:
            self._pumping = False

    def start(self, turns: list[Turn]) -> int:
        """Run each turn as a task; returns how many were started."""
        assert self.tasks is not None, "register a handler first"
        started = 0
        for turn in turns:
            if turn.id in self.inflight:
                continue
            self.inflight.add(turn.id)
            self.running += 1
            self.tasks.spawn(self._execute(turn), name=f"turn:{turn.platform}:{turn.id}")
            started += 1
        TURNS_RUNNING.set(self.running)
        if self.running > self.most_running:
            self.most_running = self.running
            TURNS_RUNNING_MAX.set(self.running)
        if turns and self.free() == 0:
            self._maybe_more = True
        return started

    async def run(self, stop: asyncio.Event) -> None:
        """Take and run turns until `stop` is set; reclaim dead runners' turns as we go."""
        await self.queue.ensure_group()
        self._group_ready = True
        lag = asyncio.create_task(self.lag.run(stop), name="turns:lag")
        loop = asyncio.get_running_loop()
        every = max(0.2, self.limits.reclaim_idle_s / 3)
        next_upkeep = loop.time()
        try:
            while not stop.is_set():
                try:
                    if loop.time() >= next_upkeep:
                        next_upkeep = loop.time() + every
                        await self.queue.touch(self.consumer, list(self.inflight))
                        reclaim_ms = int(self.limits.reclaim_idle_s * 1000)
                        self.start(await self.queue.reclaim(self.consumer, reclaim_ms, self.free()))
                    if self.free() == 0:
                        with contextlib.suppress(TimeoutError):
                            await asyncio.wait_for(stop.wait(), 0.05)
                        continue
                    took = self.start(
                        await self.queue.read(self.consumer, self._take(), self.limits.block_ms)
                    )
                    if took:  # more only once the loop shows what these cost
                        await self.lag.measured()
                except (redis.exceptions.RedisError, OSError) as e:
                    log.error("turns_unreachable", error=repr(e)[:200])
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(stop.wait(), 1.0)
        finally:
            lag.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await lag

    # --- running one ---------------------------------------------------------------------

    async def _wait_for_thread(self, thread: str, wait_s: float) -> None:
        event = self._threads.setdefault(thread, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(event.wait(), wait_s)

    def _thread_done(self, thread: str) -> None:
        event = self._threads.pop(thread, None)
        if event is not None:
            event.set()

    async def _execute(self, turn: Turn) -> None:
        try:
            await self._after_acks()  # a turn read during a burst starts once it is acked
            handler = self.handlers.get(turn.platform)
            if handler is None:
                log.error("turn_without_handler", platform=turn.platform, entry=turn.id)
                return  # left pending: a runner that has this platform reclaims it
            await self._attempts(turn, handler)
        except (redis.exceptions.RedisError, OSError) as e:
            # left pending; reclaimed and run again once Redis answers (the journal knows the rest)
            log.error("turn_store_failed", entry=turn.id, error=repr(e)[:200])
        finally:
            self.inflight.discard(turn.id)
            self.running -= 1
            self._finished.append(time.monotonic())
            self.kept()  # (drops what is older than keep_s: the record stays that short)
            TURNS_RUNNING.set(self.running)
            self._thread_done(turn.thread)
            if self._maybe_more:
                self._maybe_more = False
                self.wake()

    def _token(self, turn: Turn) -> str:
        """A lease token for one attempt of `turn`: a lease held under it is that attempt's
        (stream.py's _ACQUIRE answers a replayed acquire from it), never an earlier one's (a
        renewal that reached Redis after its release)."""
        return f"{self.consumer}:{turn.id}:{os.urandom(3).hex()}"

    async def _acquire(self, turn: Turn, token: str) -> int:
        """`queue.acquire`; cancelled (shutdown) while it is on its way, it is sent anyway (a
        batch's calls are): a lease it took is given back and its attempt not counted."""
        acquiring = asyncio.ensure_future(self.queue.acquire(turn, token, self.lease_ms))
        try:
            return await asyncio.shield(acquiring)
        except asyncio.CancelledError:
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                await asyncio.shield(self._give_back(acquiring, turn, token))
            raise

    async def _give_back(self, acquiring: asyncio.Future[int], turn: Turn, token: str) -> None:
        try:
            state = await acquiring
        except Exception:  # it failed: whatever it took runs out with its lease
            return
        if state >= 1:
            await self.queue.release(turn, token, refund=True)

    async def _attempts(self, turn: Turn, handler: TurnHandler) -> None:
        wait = 0.02
        token = self._token(turn)
        while True:
            state = await self._acquire(turn, token)
            if state == -2:  # done already (by a runner that had it before us)
                await self.queue.finish(turn, token)
                return
            if state <= 0:  # an older turn of the thread first, or one running elsewhere
                await self._wait_for_thread(turn.thread, wait)
                wait = min(wait * 2, 0.5)
                continue
            wait = 0.02
            if await self._attempt(turn, token, handler, state):
                return
            token = self._token(turn)  # the next attempt's

    async def _attempt(self, turn: Turn, token: str, handler: TurnHandler, attempt: int) -> bool:
        """One run of the turn under the lease; True when the entry is finished (done or buried)."""
        journal = await TurnJournal.of(self.queue.redis, self.queue.org, turn.id, attempt).load()
        if attempt > self.limits.max_attempts:  # its runner died each time
            await self._bury(turn, token, handler, journal, f"runner lost {attempt - 1} times")
            return True
        work = asyncio.create_task(handler.run_turn(turn, journal), name=f"run:{turn.id}")
        held = self._hold(Held(turn, token, work))
        try:
            try:
                await work
            finally:
                self._let_go(token)  # before the lease is released or finished (see _let_go)
        except asyncio.CancelledError:
            if held.lost:
                # another runner holds the thread now and runs this turn (from its journal)
                log.warning("turn_abandoned_lease_lost", entry=turn.id, thread=turn.thread)
                return True
            work.cancel()  # shutdown: the attempt does not count
            with contextlib.suppress(redis.exceptions.RedisError, OSError):
                await asyncio.shield(self.queue.release(turn, token, refund=True))
            raise
        except Exception as e:  # any failure of a turn is retried, then reported
            log.exception("turn_failed", entry=turn.id, attempt=attempt, error=repr(e)[:300])
            if attempt >= self.limits.max_attempts:
                await self._bury(turn, token, handler, journal, repr(e)[:300])
                return True
            await self.queue.release(turn, token)
            await asyncio.sleep(0.2 * attempt)
            return False
        await self.queue.finish(turn, token)
        return True

    def _let_go(self, token: str) -> None:
        """Stop renewing `token`'s lease — before it is released or finished, or a renewal
        could take it again for a turn that has ended and its own retry would wait for it."""
        self._held.pop(token, None)
        if not self._held and self._renewer is not None:
            self._renewer.cancel()  # nothing left to renew (a new lease starts another)
            self._renewer = None

    def _hold(self, held: Held) -> Held:
        """Keep `held`'s lease while its turn runs (renewed with the runner's others)."""
        self._held[held.token] = held
        if self._renewer is None:
            self._renewer = asyncio.create_task(self._renew(), name="turns:leases")
        return held

    async def _renew(self) -> None:
        """Every lease_s/3, renew every lease held, all in one call (one round trip a runner,
        not one a turn: a burst's turns wait long enough for their leases to need it); a lease
        lost to another runner stops its turn. Ends when no lease is held."""
        try:
            while True:
                await asyncio.sleep(self.limits.lease_s / 3)
                held = list(self._held.values())
                if not held:
                    return
                try:
                    kept = await self.queue.renew([(h.turn, h.token) for h in held], self.lease_ms)
                except (redis.exceptions.RedisError, OSError) as e:
                    log.warning("turn_lease_unrenewed", turns=len(held), error=repr(e)[:200])
                    continue
                except Exception as e:  # a bug here must not let every lease lapse unseen
                    log.exception("turn_lease_renewal_failed", turns=len(held), error=repr(e)[:200])
                    continue
                for h, ours in zip(held, kept, strict=True):
                    if not ours and self._held.get(h.token) is h:
                        log.warning("turn_lease_lost", entry=h.turn.id, thread=h.turn.thread)
                        h.lost = True
                        h.work.cancel()
        finally:
            if self._renewer is asyncio.current_task():
                self._renewer = None

    async def _bury(
        self, turn: Turn, token: str, handler: TurnHandler, journal: TurnJournal, reason: str
    ) -> None:
        log.error("turn_dead_lettered", entry=turn.id, platform=turn.platform, reason=reason)
        try:
            await handler.give_up(turn, journal)
        except Exception as e:  # buried whether or not the person heard
            log.error("turn_give_up_failed", entry=turn.id, error=repr(e)[:200])
        await self.queue.finish(
            turn,
            token,
            dead={"reason": reason, "failed_entry": turn.id, "attempts": str(journal.attempt)},
        )
