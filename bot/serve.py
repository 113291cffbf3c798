"""`approvals-bot serve` (HTTP or Socket Mode) and `approvals-bot worker` (the notifier)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import socket

import redis.exceptions
import structlog
from aiohttp import web

from bot.metrics import metrics_handler
from bot.notifier import OutboxWorker
from bot.runtime import Runtime, build_runtime
from bot.settings import Settings, require
from bot.slack.app import SlackBot, slack_routes
from bot.slack.client import make_client
from bot.slack.delivery import SlackDelivery
from bot.worker import run_worker
from workflow.outbox import Outbox
from workflow.scheduler import Scheduler

log = structlog.get_logger("bot")
NOTIFIER_GROUP = "notifier"


def slack_bot(runtime: Runtime, settings: Settings) -> SlackBot:
    require(settings, "slack_bot_token", "slack_signing_secret")
    client = make_client(settings.slack_bot_token.get_secret_value(), settings.slack_api_url)
    return SlackBot(
        runtime,
        client,
        settings.slack_signing_secret.get_secret_value(),
        streaming=settings.slack_streaming,
    )


def web_app(bot: SlackBot) -> web.Application:
    """POST /slack/events and GET /healthz (which checks Redis)."""

    async def healthz(_: web.Request) -> web.Response:
        try:
            await bot.runtime.redis.ping()
        except (redis.exceptions.RedisError, OSError) as e:
            return web.json_response({"ok": False, "redis": str(e)[:200]}, status=503)
        return web.json_response({"ok": True, "redis": "ok", "persistent": bot.runtime.persistent})

    async def drain(_: web.Application) -> None:
        await bot.tasks.drain()

    app = web.Application()
    slack_routes(bot, app)
    app.router.add_get("/healthz", healthz)
    outbox = Outbox(bot.runtime.redis, bot.engine.keys, NOTIFIER_GROUP)
    app.router.add_get("/metrics", metrics_handler(outbox))
    app.on_shutdown.append(drain)
    return app


def notifier_for(bot: SlackBot, consumer: str) -> OutboxWorker:
    outbox = Outbox(bot.runtime.redis, bot.engine.keys, NOTIFIER_GROUP)
    return OutboxWorker(outbox, [SlackDelivery(bot.engine, bot.client, bot.identity)], consumer)


async def _until_signalled() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()


async def serve(settings: Settings, socket_mode: bool) -> int:
    runtime = build_runtime(settings)
    bot = slack_bot(runtime, settings)
    if socket_mode:
        from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

        require(settings, "slack_app_token")
        handler = AsyncSocketModeHandler(bot.app, settings.slack_app_token.get_secret_value())
        await handler.connect_async()
        log.info("serving_socket_mode")
        await _until_signalled()
        await handler.close_async()
        await bot.tasks.drain()
        await runtime.close()
        return 0
    runner = web.AppRunner(web_app(bot))
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", settings.port).start()
    log.info("serving", port=settings.port, persistent=runtime.persistent)
    await _until_signalled()
    await runner.cleanup()
    await runtime.close()
    return 0


async def worker(settings: Settings) -> int:
    runtime = build_runtime(settings)
    bot = slack_bot(runtime, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    consumer = f"{socket.gethostname()}:{id(stop):x}"
    log.info("worker_started", consumer=consumer)
    await run_worker(notifier_for(bot, consumer), Scheduler(runtime.engine), stop)
    await runtime.close()
    return 0
