"""`approvals-bot serve` (every configured platform over HTTP, or Slack Socket Mode) and `approvals-bot worker`.

Both compose through `bot.compose`: serve mounts each platform's callback URL; the worker
gives the notifier each platform's delivery and mounts nothing (no Bolt app is built there).
Both run queued turns, which every platform hands to this process's turn runner.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket
from collections.abc import Sequence

import structlog
from aiohttp import web

from bot import compose, heap
from bot.budget import budget_for
from bot.calendar_route import CalendarRoute
from bot.compose import NOTIFIER_GROUP
from bot.front import FrontSite
from bot.ingress_pool import IngressPool
from bot.metrics import metrics_handler, serve_metrics
from bot.platform import Platform
from bot.queue import ping_within, warm_pool
from bot.runtime import Runtime, build_runtime
from bot.settings import Settings, SettingsError, require
from bot.slack.platform import SlackPlatform
from bot.tasks import BackgroundTasks
from bot.worker import run_worker
from workflow.outbox import Outbox
from workflow.scheduler import Scheduler

log = structlog.get_logger("bot")
HEALTHZ_DEADLINE_S = 0.5  # /healthz answers within a second even when Redis hangs
WARM_CONNECTIONS = 32  # pooled Redis connections made at start-up, before any burst
# A worker's whole pool, all made at start-up: its turns wait for a free connection rather
# than open one mid-burst (a runner opened ~100 under a burst of 1,000 turns, 4-6% of its CPU).
# A turn holds one only for a round trip; the notifier's and the runner's blocking reads, one each.
WORKER_CONNECTIONS = 48
MAX_BODY = 1024**2  # aiohttp's default: a larger request body is answered 413 (bot/front.py too)


def make_app(
    runtime: Runtime, found: Sequence[Platform], tasks: BackgroundTasks
) -> web.Application:
    """Each platform's callback URL, GET /healthz (checks Redis), GET /metrics and
    GET /calendar/{token}.ics (the team calendar feeds)."""

    async def healthz(_: web.Request) -> web.Response:
        # its own small pool: a burst of turns holding every pooled connection does not fail it
        problem = await ping_within(runtime.turns.queue.ingress, HEALTHZ_DEADLINE_S)
        if problem is not None:
            log.warning("healthz_store_unreachable", error=problem)  # no address, here either
            return web.json_response({"ok": False, "redis": "unreachable"}, status=503)
        return web.json_response({"ok": True, "redis": "ok", "persistent": runtime.persistent})

    async def drain(_: web.Application) -> None:
        await tasks.drain()

    app = web.Application(client_max_size=MAX_BODY)
    compose.mount(app, found)
    CalendarRoute(runtime.engine, budget_for(runtime.settings)).add_to(app)
    app.router.add_get("/healthz", healthz)
    app.router.add_get(
        # read through the ingress client: a hung Redis costs /metrics a second, not minutes
        "/metrics",
        metrics_handler(Outbox(runtime.turns.queue.ingress, runtime.engine.keys, NOTIFIER_GROUP)),
    )
    app.on_shutdown.append(drain)
    return app


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def _warm(runtime: Runtime, connections: int = WARM_CONNECTIONS, acks: bool = True) -> None:
    """Open pooled Redis connections now: making them mid-burst cost the first turns' CPU.

    Then move everything start-up made (the organisation, modules, models) out of the
    garbage collector's sight and collect the young generation rarely from now on
    (bot/heap.py): a burst of acks or of turns allocates fast enough to trigger full
    collections, and each used to walk that whole heap. `acks`: this process queues
    messages (serve), so the ingress client's connections are made too.
    """
    await warm_pool(runtime.redis, connections)
    if acks:
        if runtime.turns.queue.ingress is not runtime.redis:
            await warm_pool(runtime.turns.queue.ingress, WARM_CONNECTIONS // 2)
        await runtime.turns.queue.warm()
    heap.settle()


def _start_runner(runtime: Runtime, stop: asyncio.Event, enabled: bool) -> asyncio.Task | None:
    """This process's turn runner (serve's unless SERVE_RUNS_TURNS=false; always a worker's)."""
    runner = runtime.turns.runner
    runner.paused = not enabled
    if not enabled or runner.tasks is None:
        return None
    return asyncio.create_task(runner.run(stop), name="turns")


async def _stop_runner(task: asyncio.Task | None, tasks: BackgroundTasks) -> None:
    """Stop taking turns, then let running ones finish (a turn cut short is reclaimed elsewhere)."""
    if task is not None:
        await task
    await tasks.drain()


async def listen(
    app: web.Application,
    found: Sequence[Platform],
    host: str,
    port: int,
    pool: IngressPool | None = None,
) -> web.AppRunner:
    """Serve `app` on host:port, each platform's acks answered first by bot/front.py; its runner."""
    # no access log: a line per request is CPU on every ack (each step logs its own event)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    shared = pool is not None and pool.shared_port
    site = FrontSite(runner, host, port, compose.quick_routes(found), MAX_BODY, reuse_port=shared)
    await site.start()
    return runner


async def serve(settings: Settings, socket_mode: bool, pool: IngressPool | None = None) -> int:
    pool = pool or IngressPool()
    runtime = build_runtime(settings)
    tasks = BackgroundTasks()
    found = compose.platforms(runtime, settings, tasks)
    stop = _stop_on_signals()
    # beside start-up, not before it
    warming = asyncio.create_task(_warm(runtime), name="warm")
    if socket_mode:
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        slack = next((p for p in found if isinstance(p, SlackPlatform)), None)
        if slack is None:
            raise SettingsError(
                "Socket Mode is for Slack: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET."
            )
        require(settings, "slack_app_token")
        handler = AsyncSocketModeHandler(slack.bot.app, settings.slack_app_token.get_secret_value())
        await handler.connect_async()
        turns = _start_runner(runtime, stop, settings.serve_runs_turns)
        log.info("serving_socket_mode")
        await stop.wait()
        await handler.close_async()
        await warming
        await _stop_runner(turns, tasks)
        await compose.close(found)
        await runtime.close()
        return 0
    runner = await listen(make_app(runtime, found, tasks), found, "0.0.0.0", settings.port, pool)
    runs_turns = settings.serve_runs_turns and pool.index == 0  # the copies only ack
    turns = _start_runner(runtime, stop, runs_turns)
    watching = asyncio.create_task(pool.watch(stop), name="ingress-pool")
    log.info(
        "serving",
        port=settings.port,
        persistent=runtime.persistent,
        platforms=[p.name for p in found],
        runs_turns=turns is not None,
        ingress=f"{pool.index + 1}/{pool.count}",
    )
    await stop.wait()
    await watching
    await warming
    await _stop_runner(turns, tasks)
    await runner.cleanup()  # closes the platforms' sessions too (see `compose.mount`)
    await runtime.close()
    return await pool.stop_children()


async def worker(settings: Settings) -> int:
    """Notifier, scheduler and a turn runner; each platform's delivery and turns, no callback URL."""
    runtime = build_runtime(settings, max_connections=WORKER_CONNECTIONS)
    tasks = BackgroundTasks()
    found = compose.platforms(runtime, settings, tasks)  # they hand the runner their turns
    stop = _stop_on_signals()
    consumer = f"{socket.gethostname()}:{id(stop):x}"
    notifier = compose.notifier(runtime, found, consumer)
    warming = asyncio.create_task(_warm(runtime, WORKER_CONNECTIONS, acks=False), name="warm")
    log.info("worker_started", consumer=consumer, platforms=[p.name for p in found])
    metrics = None
    if settings.metrics_port is not None:
        metrics = await serve_metrics(settings.metrics_port, notifier.outbox)
    turns = _start_runner(runtime, stop, True)
    await run_worker(notifier, Scheduler(runtime.engine), stop)
    await warming
    await _stop_runner(turns, tasks)
    if metrics is not None:
        await metrics.cleanup()
    await compose.close(found)
    await runtime.close()
    return 0
