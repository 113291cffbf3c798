"""The turn queue under faults, with real processes: runners SIGKILLed mid-turn, serve SIGKILLed
with turns queued, Redis paused (SIGSTOP) during a burst — nobody acked and left unanswered,
nobody answered twice, /healthz within a second throughout.

The bot runs as in production (bench/_rig.py: `approvals-bot serve` and `worker` subprocesses,
a private redis-server on its own port, the fake model in its own process, the Slack stand-in
and signed events in this process), with short leases so that a dead runner's turn comes
back within seconds.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import shutil
import signal
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
FAST_RECLAIM = {"TURN_LEASE_S": "1", "TURN_RECLAIM_S": "2"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(240),
    pytest.mark.skipif(
        shutil.which("redis-server") is None, reason="redis-server is not installed"
    ),
]


def rig_module() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    name = "bench_rig_for_faults"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, BENCH / "_rig.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


class Bot:
    """The running bot and what each person sees of it."""

    def __init__(self, r: ModuleType, rig: Any, users: list[Any], feed: Any) -> None:
        self.r, self.rig, self.users, self.feed = r, rig, users, feed
        self.envelopes: dict[int, str] = {}

    async def dm(self, u: Any, sim: Any = None, *, thread_ts: str | None = None) -> int:
        """The person DMs (a new thread, or a reply in `thread_ts`); the ack's status."""
        sim = sim or self.rig.sims[0]
        message = self.rig.standin.post_user_message(u.slack_id, u.text, thread_ts=thread_ts)
        if thread_ts is None:
            u.channel, u.thread = message["channel"], message["ts"]
            self.feed.by_thread[(u.channel, u.thread)] = u
        event = self.r.dm_event(u, message, self.rig.team)
        if thread_ts is not None:
            event["thread_ts"] = thread_ts
        body = json.dumps(sim.envelope(event))
        self.envelopes[u.index] = body
        u.sent = time.perf_counter()
        resp = await sim.post(body, "application/json", sim.signed_headers(body))
        u.ack_ms = (time.perf_counter() - u.sent) * 1000
        u.ack_status = resp.status
        return resp.status

    async def retry(self, u: Any, n: int = 1) -> int:
        """Slack's retry of the person's last event."""
        sim = self.rig.sims[0]
        body = self.envelopes[u.index]
        extra = {"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_error"}
        resp = await sim.post(body, "application/json", sim.signed_headers(body, **extra))
        return resp.status

    def thread(self, u: Any) -> list[dict[str, Any]]:
        snap = self.rig.standin.snapshot(u.slack_id)
        for m in snap["messages"]:
            if m["ts"] == u.thread:
                return m.get("replies", [])
        return []

    def answers(self, u: Any) -> tuple[int, int]:
        """(streamed answers finished, confirm cards) in the person's thread."""
        replies = self.thread(u)
        done = sum(1 for m in replies if (m.get("stream") or {}).get("state") == "completed")
        cards = sum(1 for m in replies if self.r.has_button(m, "pending_confirm"))
        return done, cards

    async def until(self, check, within: float, what: str) -> None:
        end = time.monotonic() + within
        while not check():
            if time.monotonic() > end:
                raise AssertionError(f"{what} not within {within} s: {self.diagnose()}")
            await asyncio.sleep(0.1)

    def diagnose(self) -> str:
        return json.dumps(
            {
                "answers": {u.index: self.answers(u) for u in self.users if u.thread},
                "logs": self.r.log_problems(self.rig),
                "turn_lines": [
                    f"{proc.name}: {line[:300]}"
                    for proc in [*self.rig.serves, *self.rig.workers]
                    for line in proc.log.read_text(errors="replace").splitlines()
                    if '"turn' in line or "Traceback" in line
                ][-12:],
            }
        )[:6000]

    def runner_of(self, u: Any) -> Any:
        """The bot process whose log shows the person's turn starting."""
        for proc in [*self.rig.serves, *self.rig.workers]:
            for line in proc.log.read_text(errors="replace").splitlines():
                if u.thread in line and '"turn_started"' in line:
                    return proc
        return None


async def start(
    users: int,
    *,
    latency: float,
    workers: int,
    serve_runs_turns: bool = True,
    ingress_processes: int = 1,
) -> Bot:
    r = rig_module()
    cfg = r.RunConfig(
        users=users,
        latency_s=latency,
        serves=1,
        workers=workers,
        serve_runs_turns=serve_runs_turns,
        redis_port=None,  # a free port: two suites at once each get their own Redis
        extra_env=FAST_RECLAIM,
        ingress_processes=ingress_processes,
    )
    rig = r.Rig(cfg)
    try:
        await rig.start()
    except BaseException:
        await rig.stop()
        raise
    days = r.leave_days(20)
    people = [
        r.User(
            i,
            r.employee_slack_id(i),
            r.manager_slack_id(i // r.PER_MANAGER),
            f"annual leave from {days[i % 20]} to {days[i % 20]}, reason: faults",
        )
        for i in range(users)
    ]
    feed = r.Feed(rig.standin, {u.slack_id: u for u in people})
    bot = Bot(r, rig, people, feed)
    bot.feed_task = asyncio.create_task(feed.run())
    return bot


async def stop(bot: Bot) -> None:
    bot.feed_task.cancel()
    await asyncio.gather(bot.feed_task, return_exceptions=True)
    await bot.rig.stop()


def sigkill(proc: Any) -> None:
    proc.popen.send_signal(signal.SIGKILL)
    proc.popen.wait(10)


def test_the_private_redis_is_its_own_when_the_port_it_picked_is_taken(monkeypatch):
    """Another suite holding the port picked for this one's Redis: it picks again and talks only
    to the server it started, never to the other suite's."""
    import socket

    import redis

    r = rig_module()
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        taken = held.getsockname()[1]
        picks = iter([taken])
        free = r.free_port
        monkeypatch.setattr(r, "free_port", lambda: next(picks, None) or free())
        server = r.RedisServer()
        try:
            server.start()
            assert server.port != taken
            info = redis.Redis(port=server.port).info("server")
            assert server.proc is not None and info["process_id"] == server.proc.pid
        finally:
            server.stop()


async def test_a_runner_killed_mid_turn_answers_once_within_the_reclaim_window():
    """SIGKILL the process running a turn: the other runner answers once, and the thread is usable at once."""
    bot = await start(2, latency=1.5, workers=2, serve_runs_turns=False)
    try:
        [u, _] = bot.users
        assert await bot.dm(u) == 200
        await bot.until(lambda: bot.runner_of(u) is not None, 30, "the turn starting")
        victim = bot.runner_of(u)
        sigkill(victim)
        killed_at = time.monotonic()
        await bot.until(lambda: bot.answers(u)[0] >= 1, 30, "the answer after the kill")
        took = time.monotonic() - killed_at
        await asyncio.sleep(1.0)  # anything doubled would show by now
        assert bot.answers(u) == (1, 1), bot.diagnose()  # one streamed answer, one card
        assert took < 2 + 1 + 3 * 1.5 + 5, f"answered {took:.1f} s after the kill"

        u.text = "and can I take more?"  # a follow-up in the same thread, answered at once
        asked = time.monotonic()
        assert await bot.dm(u, thread_ts=u.thread) == 200

        def follow_up_answered() -> bool:  # the fake model asks back: "Which days, …?"
            return any("Which days" in (m.get("text") or "") for m in bot.thread(u))

        await bot.until(follow_up_answered, 20, "the follow-up's answer")
        said = json.dumps(bot.thread(u), ensure_ascii=False)
        assert "still working" not in said
        assert time.monotonic() - asked < 2 * 1.5 + 5
    finally:
        await stop(bot)


async def test_serve_killed_with_turns_queued_loses_none():
    """A burst is acked by serve, which is SIGKILLed with its turns queued and running: the worker answers every one, once."""
    bot = await start(12, latency=1.0, workers=1)
    try:
        statuses = await asyncio.gather(*(bot.dm(u) for u in bot.users))
        assert set(statuses) == {200}
        sigkill(bot.rig.serves[0])
        await bot.until(lambda: all(bot.answers(u)[0] >= 1 for u in bot.users), 60, "every answer")
        await asyncio.sleep(1.0)
        assert {bot.answers(u) for u in bot.users} == {(1, 1)}, bot.diagnose()
    finally:
        await stop(bot)


async def test_two_ingress_processes_answer_every_dm_once_and_a_dead_one_stops_serve():
    """`serve --ingress-processes 2`: a burst spread over both processes is answered once each;
    SIGKILL the copy and serve stops (for its supervisor to restart), leaving no process behind."""
    bot = await start(12, latency=0.3, workers=0, ingress_processes=2)
    try:
        serve = bot.rig.serves[0]
        [copy] = serve.children()
        statuses = await asyncio.gather(*(bot.dm(u) for u in bot.users))
        assert set(statuses) == {200}
        await bot.until(lambda: all(bot.answers(u)[0] >= 1 for u in bot.users), 60, "every answer")
        await asyncio.sleep(1.0)
        assert {bot.answers(u) for u in bot.users} == {(1, 1)}, bot.diagnose()
        assert bot.r.pid_cpu_s(copy) > 0  # it was up beside the first process

        os.kill(copy, signal.SIGKILL)
        code = await asyncio.to_thread(serve.popen.wait, 20)
        assert code == 1, serve.log.read_text()[-2000:]
        assert '"ingress_process_exited"' in serve.log.read_text()
        assert bot.r.pid_cpu_s(copy) == 0  # gone from /proc: reaped, not left running
    finally:
        await stop(bot)


async def test_redis_paused_4_s_then_10_s_during_bursts_drops_nothing_and_healthz_answers():
    """Redis SIGSTOPped for 4 s, then 10 s, each during a burst: every DM answered once or refused
    non-2xx (then answered on Slack's retry); /healthz answers within 1 s throughout."""
    bot = await start(16, latency=0.3, workers=1)
    redis_pid = bot.rig.redis.proc.pid
    health_ms: list[float] = []
    stop_health = asyncio.Event()

    async def healthz() -> None:
        url = f"http://127.0.0.1:{bot.rig.serves[0].http_port}/healthz"
        while not stop_health.is_set():
            t0 = time.perf_counter()
            async with bot.rig.session.get(url) as resp:
                await resp.read()
            health_ms.append((time.perf_counter() - t0) * 1000)
            await asyncio.sleep(0.2)

    async def burst_with_pause(people: list[Any], pause_s: float) -> None:
        async def fire() -> None:
            for u in people:
                await bot.dm(u)
                await asyncio.sleep(pause_s * 1.5 / len(people))

        burst = asyncio.create_task(fire())
        await asyncio.sleep(pause_s * 0.25)
        os.kill(redis_pid, signal.SIGSTOP)
        try:
            await asyncio.sleep(pause_s)
        finally:
            os.kill(redis_pid, signal.SIGCONT)
        await burst
        for u in [u for u in people if u.ack_status != 200]:  # Slack retries what was not acked
            assert await bot.retry(u) == 200
        await bot.until(lambda: all(bot.answers(u)[0] >= 1 for u in people), 60, "every answer")

    watcher = asyncio.create_task(healthz())
    try:
        await burst_with_pause(bot.users[:8], 4)
        await burst_with_pause(bot.users[8:], 10)
        await asyncio.sleep(1.0)
        assert {bot.answers(u) for u in bot.users} == {(1, 1)}, bot.diagnose()
        assert max(health_ms) < 1000, f"/healthz took {max(health_ms):.0f} ms"
        assert not [u for u in bot.users if u.ack_ms > 2500 and u.ack_status == 200]
    finally:
        stop_health.set()
        await asyncio.gather(watcher, return_exceptions=True)
        await stop(bot)
