"""Feishu in `approvals-bot serve` and `worker`: built from the settings, or absent when not configured."""

from __future__ import annotations

from aiohttp import web

from bot.budget import budget_for
from bot.feishu.app import FeishuBot, feishu_routes_for
from bot.feishu.client import FeishuClient
from bot.feishu.delivery import FeishuDelivery
from bot.runtime import Runtime
from bot.settings import Settings, require
from bot.tasks import BackgroundTasks

EVENTS_PATH = "/feishu/events"


def feishu_enabled(settings: Settings) -> bool:
    """Whether any Feishu setting is given (then the required ones must all be)."""
    return bool(
        settings.feishu_app_id or settings.feishu_app_secret or settings.feishu_verification_token
    )


def feishu_client(settings: Settings) -> FeishuClient:
    """The open-API client for FEISHU_APP_ID / FEISHU_APP_SECRET at FEISHU_API_URL."""
    require(settings, "feishu_app_id", "feishu_app_secret")
    assert settings.feishu_app_id is not None and settings.feishu_app_secret is not None
    return FeishuClient(
        settings.feishu_app_id,
        settings.feishu_app_secret.get_secret_value(),
        settings.feishu_api_url,
    )


def feishu_routes(
    runtime: Runtime, settings: Settings, app: web.Application, tasks: BackgroundTasks
) -> FeishuBot | None:
    """Mount POST /feishu/events when Feishu is configured; its client closes with the app.

    Raises:
        SettingsError: some Feishu settings are given but a required one is missing.
    """
    bot = feishu_bot(runtime, settings, tasks)
    if bot is None:
        return None
    feishu_routes_for(bot, app, EVENTS_PATH)

    async def close(_: web.Application) -> None:
        await bot.client.close()

    app.on_cleanup.append(close)
    return bot


def feishu_bot(runtime: Runtime, settings: Settings, tasks: BackgroundTasks) -> FeishuBot | None:
    """The Feishu bot when Feishu is configured (it runs Feishu's queued turns); close its client.

    Raises:
        SettingsError: some Feishu settings are given but a required one is missing.
    """
    if not feishu_enabled(settings):
        return None
    require(settings, "feishu_app_id", "feishu_app_secret", "feishu_verification_token")
    assert settings.feishu_verification_token is not None
    key = settings.feishu_encrypt_key
    bot = FeishuBot(
        runtime,
        feishu_client(settings),
        verification_token=settings.feishu_verification_token.get_secret_value(),
        encrypt_key=key.get_secret_value() if key else None,
        tasks=tasks,
        budget=budget_for(settings),
    )
    bot.turns  # noqa: B018 - from now on this process's turn runner runs Feishu's turns
    return bot


def feishu_delivery(runtime: Runtime, settings: Settings) -> FeishuDelivery | None:
    """The notifier's Feishu delivery when Feishu is configured (close it with `aclose`)."""
    if not feishu_enabled(settings):
        return None
    return FeishuDelivery(runtime.engine, feishu_client(settings), runtime.redis)
