"""`approvals-bot serve` (Slack and/or Feishu over HTTP, or Slack Socket Mode) and `approvals-bot worker`."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket

import structlog
from aiohttp import web

from bot.budget import budget_for
from bot.feishu import feishu_delivery, feishu_routes
from bot.feishu.wiring import feishu_bot, feishu_enabled
from bot.metrics import metrics_handler, serve_metrics
from bot.notifier import Delivery, OutboxWorker
from bot.queue import ping_within, warm_pool
from bot.runtime import Runtime, build_runtime
from bot.settings import Settings, SettingsError, require
from bot.slack.app import SlackBot, slack_routes
from bot.slack.client import close_client, make_client, shared_session
from bot.slack.delivery import SlackDelivery
from bot.tasks import BackgroundTasks
from bot.worker import run_worker
from workflow.outbox import Outbox
from workflow.scheduler import Scheduler

log = structlog.get_logger("bot")
NOTIFIER_GROUP = "notifier"
HEALTHZ_DEADLINE_S = 0.5  # /healthz answers within a second even when Redis hangs
WARM_CONNECTIONS = 32  # pooled Redis connections made at start-up, before any burst
NO_PLATFORM = (
    "Neither Slack nor Feishu is configured: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET, "
    "or FEISHU_APP_ID, FEISHU_APP_SECRET and FEISHU_VERIFICATION_TOKEN (or try `approvals-bot sandbox`)."
)


def slack_configured(settings: Settings) -> bool:
    return bool(settings.slack_bot_token or settings.slack_signing_secret)


def slack_bot(
    runtime: Runtime, settings: Settings, tasks: BackgroundTasks | None = None
) -> SlackBot:
    require(settings, "slack_bot_token", "slack_signing_secret")
    client = make_client(
        settings.slack_bot_token.get_secret_value(),
        settings.slack_api_url,
        session=shared_session(),
    )
    return SlackBot(
        runtime,
        client,
        settings.slack_signing_secret.get_secret_value(),
        streaming=settings.slack_streaming,
        tasks=tasks,
        max_turns=settings.max_concurrent_turns,
        budget=budget_for(settings),
    )


def make_app(
    runtime: Runtime, settings: Settings, slack: SlackBot | None, tasks: BackgroundTasks
) -> web.Application:
    """POST /slack/events and/or /feishu/events, GET /healthz (checks Redis) and GET /metrics."""

    async def healthz(_: web.Request) -> web.Response:
        # its own small pool: a burst of turns holding every pooled connection does not fail it
        problem = await ping_within(runtime.turns.queue.ingress, HEALTHZ_DEADLINE_S)
        if problem is not None:
            log.warning("healthz_store_unreachable", error=problem)  # no address, here either
            return web.json_response({"ok": False, "redis": "unreachable"}, status=503)
        return web.json_response({"ok": True, "redis": "ok", "persistent": runtime.persistent})

    async def drain(_: web.Application) -> None:
        await tasks.drain()

    app = web.Application()
    if slack is not None:
        slack_routes(slack, app)
    feishu_routes(runtime, settings, app, tasks)
    app.router.add_get("/healthz", healthz)
    app.router.add_get(
        # read through the ingress client: a hung Redis costs /metrics a second, not minutes
        "/metrics",
        metrics_handler(Outbox(runtime.turns.queue.ingress, runtime.engine.keys, NOTIFIER_GROUP)),
    )
    app.on_shutdown.append(drain)
    return app


def web_app(bot: SlackBot) -> web.Application:
    """The Slack bot's web app (tests and the sandbox)."""
    return make_app(bot.runtime, bot.runtime.settings, bot, bot.tasks)


def make_notifier(
    runtime: Runtime, settings: Settings, slack: SlackBot | None, consumer: str
) -> OutboxWorker:
    """The outbox worker delivering to every configured platform."""
    deliveries: list[Delivery] = []
    if slack is not None:
        deliveries.append(SlackDelivery(runtime.engine, slack.client, slack.identity))
    if (feishu := feishu_delivery(runtime, settings)) is not None:
        deliveries.append(feishu)
    return OutboxWorker(
        Outbox(runtime.redis, runtime.engine.keys, NOTIFIER_GROUP), deliveries, consumer
    )


def notifier_for(bot: SlackBot, consumer: str) -> OutboxWorker:
    return make_notifier(bot.runtime, bot.runtime.settings, bot, consumer)


def _platforms(runtime: Runtime, settings: Settings, tasks: BackgroundTasks) -> SlackBot | None:
    if not slack_configured(settings) and not feishu_enabled(settings):
        raise SettingsError(NO_PLATFORM)
    return slack_bot(runtime, settings, tasks) if slack_configured(settings) else None


def _stop_on_signals() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    return stop


async def _warm(runtime: Runtime) -> None:
    """Open pooled Redis connections now: making them mid-burst cost the first turns' CPU."""
    await warm_pool(runtime.redis, WARM_CONNECTIONS)
    if runtime.turns.queue.ingress is not runtime.redis:
        await warm_pool(runtime.turns.queue.ingress, WARM_CONNECTIONS // 2)


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


async def _close(runtime: Runtime, slack: SlackBot | None) -> None:
    if slack is not None:
        await close_client(slack.client)
    await runtime.close()


async def serve(settings: Settings, socket_mode: bool) -> int:
    runtime = build_runtime(settings)
    tasks = BackgroundTasks()
    slack = _platforms(runtime, settings, tasks)
    stop = _stop_on_signals()
    warming = asyncio.create_task(_warm(runtime), name="warm")  # beside start-up, not before it
    if socket_mode:
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        if slack is None:
            raise SettingsError(
                "Socket Mode is for Slack: set SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET."
            )
        require(settings, "slack_app_token")
        handler = AsyncSocketModeHandler(slack.app, settings.slack_app_token.get_secret_value())
        await handler.connect_async()
        turns = _start_runner(runtime, stop, settings.serve_runs_turns)
        log.info("serving_socket_mode")
        await stop.wait()
        await handler.close_async()
        await warming
        await _stop_runner(turns, tasks)
        await _close(runtime, slack)
        return 0
    runner = web.AppRunner(make_app(runtime, settings, slack, tasks))
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", settings.port).start()
    turns = _start_runner(runtime, stop, settings.serve_runs_turns)
    log.info(
        "serving",
        port=settings.port,
        persistent=runtime.persistent,
        slack=slack is not None,
        feishu=feishu_enabled(settings),
        runs_turns=turns is not None,
    )
    await stop.wait()
    await warming
    await _stop_runner(turns, tasks)
    await runner.cleanup()
    await _close(runtime, slack)
    return 0


async def worker(settings: Settings) -> int:
    runtime = build_runtime(settings)
    tasks = BackgroundTasks()
    slack = _platforms(runtime, settings, tasks)
    feishu = feishu_bot(runtime, settings, tasks)  # runs Feishu's queued turns
    stop = _stop_on_signals()
    consumer = f"{socket.gethostname()}:{id(stop):x}"
    notifier = make_notifier(runtime, settings, slack, consumer)
    warming = asyncio.create_task(_warm(runtime), name="warm")
    log.info(
        "worker_started", consumer=consumer, platforms=[d.platform for d in notifier.deliveries]
    )
    metrics = None
    if settings.metrics_port is not None:
        metrics = await serve_metrics(settings.metrics_port, notifier.outbox)
    turns = _start_runner(runtime, stop, True)
    await run_worker(notifier, Scheduler(runtime.engine), stop)
    await warming
    await _stop_runner(turns, tasks)
    if metrics is not None:
        await metrics.cleanup()
    if feishu is not None:
        await feishu.client.close()
    for delivery in notifier.deliveries:
        close = getattr(delivery, "aclose", None)
        if close is not None:
            await close()
    await _close(runtime, slack)
    return 0
