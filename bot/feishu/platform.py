"""Feishu as a `Platform`: the callback handler only where callbacks are received."""

from __future__ import annotations

from functools import cached_property
from typing import Any

from aiohttp import web

from bot.budget import VerificationBudget, budget_for
from bot.conversation import CardRef, CardView
from bot.feishu.app import FeishuBot
from bot.feishu.client import FeishuClient
from bot.feishu.delivery import FeishuDelivery
from bot.feishu.render import PLATFORM, FeishuCards, render
from bot.feishu.wiring import EVENTS_PATH, feishu_client, feishu_enabled
from bot.runtime import Runtime
from bot.settings import Settings, require
from bot.tasks import BackgroundTasks
from workflow.config import Person


class FeishuPlatform:
    """Feishu over its open API; the callback handler (`bot`) is built on the first callback."""

    name = PLATFORM
    path = EVENTS_PATH

    def __init__(
        self,
        runtime: Runtime,
        client: FeishuClient,
        *,
        verification_token: str,
        encrypt_key: str | None,
        tasks: BackgroundTasks,
        budget: VerificationBudget | None = None,
    ) -> None:
        self.runtime = runtime
        self.client = client
        self._bot_args: dict[str, Any] = {
            "verification_token": verification_token,
            "encrypt_key": encrypt_key,
            "tasks": tasks,
            "budget": budget,
        }
        self.cards = FeishuCards(runtime.engine, client)

    @cached_property
    def bot(self) -> FeishuBot:
        return FeishuBot(self.runtime, self.client, **self._bot_args)

    async def receive(self, request: web.Request) -> web.Response:
        return await self.bot.handle(request)

    async def identify(self, account: str, scope: str = "") -> Person | None:
        return await self._delivery.identity.person_for(account)

    def render(self, view: CardView, locale: str) -> dict[str, Any]:
        return render(view, self.runtime.engine, locale)

    async def send(self, person: Person, message: object) -> str | None:
        open_id = await self._delivery.identity.open_id_for(person)
        if open_id is None or not isinstance(message, dict):
            return None
        sent = await self.client.send(open_id, "interactive", message)
        return str(sent.get("message_id") or "") or None

    async def update(self, card: CardRef, view: CardView) -> bool:
        return await self.cards.update(card, view)

    @cached_property
    def _delivery(self) -> FeishuDelivery:
        return FeishuDelivery(self.runtime.engine, self.client, self.runtime.redis)

    def delivery(self) -> FeishuDelivery:
        return self._delivery

    async def aclose(self) -> None:
        await self.client.close()


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
        runtime,
        feishu_client(settings),
        verification_token=settings.feishu_verification_token.get_secret_value(),
        encrypt_key=key.get_secret_value() if key else None,
        tasks=tasks,
        budget=budget_for(settings),
    )
