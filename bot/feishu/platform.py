"""Feishu as a `Platform`: built from the FEISHU_* settings, or absent when none is given.

`feishu_platform` builds the one `FeishuBot` (open-API client, identity, cards, conversation
core) and hands this process's turn runner Feishu's queued turns; its callback URL is
mounted only by `serve` (see `bot.compose.mount`), never by the worker.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any

from bot.budget import budget_for
from bot.conversation import CardView
from bot.feishu.app import FeishuBot
from bot.feishu.client import FeishuClient
from bot.feishu.delivery import FeishuDelivery
from bot.feishu.render import PLATFORM, render
from bot.platform import BotPlatform, PlatformKind
from bot.runtime import Runtime
from bot.settings import Settings, require
from bot.tasks import BackgroundTasks
from workflow.config import Person

EVENTS_PATH = "/feishu/events"


class FeishuPlatform(BotPlatform[FeishuBot]):
    """Feishu over its open API, around one `FeishuBot`."""

    name = PLATFORM
    path = EVENTS_PATH

    def __init__(self, bot: FeishuBot) -> None:
        super().__init__(bot)
        bot.turns  # noqa: B018 - from now on this process's turn runner runs Feishu's turns

    async def identify(self, account: str, scope: str = "") -> Person | None:
        return await self.bot.identity.person_for(account)

    def render(self, view: CardView, locale: str) -> dict[str, Any]:
        return render(view, self.bot.runtime.engine, locale)

    async def send(self, person: Person, message: object) -> str | None:
        open_id = await self.bot.identity.open_id_for(person)
        if open_id is None or not isinstance(message, dict):
            return None
        sent = await self.bot.client.send(open_id, "interactive", message)
        return str(sent.get("message_id") or "") or None

    @cached_property
    def _delivery(self) -> FeishuDelivery:
        return FeishuDelivery(
            self.bot.runtime.engine, self.bot.client, self.bot.runtime.redis, self.bot.cards
        )

    def delivery(self) -> FeishuDelivery:
        return self._delivery

    async def aclose(self) -> None:
        await self.bot.client.close()


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


def feishu_platform(
    runtime: Runtime, settings: Settings, tasks: BackgroundTasks
) -> FeishuPlatform | None:
    """Feishu from FEISHU_*, or None when no Feishu setting is given.

    Raises:
        SettingsError: some Feishu settings are given but a required one is missing.
    """
    if not feishu_enabled(settings):
        return None
    require(settings, "feishu_app_id", "feishu_app_secret", "feishu_verification_token")
    assert settings.feishu_verification_token is not None
    key = settings.feishu_encrypt_key
    return FeishuPlatform(
        FeishuBot(
            runtime,
            feishu_client(settings),
            verification_token=settings.feishu_verification_token.get_secret_value(),
            encrypt_key=key.get_secret_value() if key else None,
            tasks=tasks,
            budget=budget_for(settings),
        )
    )


FEISHU = PlatformKind(
    "Feishu", "FEISHU_APP_ID, FEISHU_APP_SECRET and FEISHU_VERIFICATION_TOKEN", feishu_platform
)
