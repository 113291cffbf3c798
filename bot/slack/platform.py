"""Slack as a `Platform`: its pieces are built once, by `SlackBot`; the Bolt app only where callbacks arrive.

`slack_platform` reads the settings and builds the one `SlackBot` (Web API client, identity,
cards, conversation core, turn handler); the Bolt app inside it is made on the first callback
Bolt must answer, so the worker, which runs turns and delivers, never builds one.
"""

from __future__ import annotations

from functools import cached_property

from bot.budget import budget_for
from bot.conversation import CardView
from bot.platform import BotPlatform, PlatformKind
from bot.runtime import Runtime
from bot.settings import Settings, require
from bot.slack.app import SlackBot
from bot.slack.blocks import SlackMessage
from bot.slack.client import close_client, make_client, shared_session
from bot.slack.delivery import SlackDelivery
from bot.slack.render import PLATFORM, render
from bot.tasks import BackgroundTasks
from workflow.config import Person

EVENTS_PATH = "/slack/events"


class SlackPlatform(BotPlatform[SlackBot]):
    """Slack over the Web API, around one `SlackBot` (its Bolt app is built on the first callback)."""

    name = PLATFORM
    path = EVENTS_PATH

    def __init__(self, bot: SlackBot) -> None:
        super().__init__(bot)
        self.quick = bot.ingress.quick  # a person's DM, acked by bot/front.py

    async def identify(self, account: str, scope: str = "") -> Person | None:
        return await self.bot.identity.person_for(scope, account)

    def render(self, view: CardView, locale: str) -> SlackMessage:
        return render(view, self.bot.runtime.engine, locale)

    @cached_property
    def _delivery(self) -> SlackDelivery:
        return SlackDelivery(
            self.bot.runtime.engine, self.bot.client, self.bot.identity, self.bot.cards
        )

    async def send(self, person: Person, message: object) -> str | None:
        if not isinstance(message, SlackMessage):
            raise TypeError(f"Slack sends a SlackMessage, not {type(message).__name__}")
        channel = await self.bot.identity.dm_channel(await self._delivery.team_id(), person)
        if channel is None:
            return None
        posted = await self.bot.client.chat_postMessage(
            channel=channel, text=message.text, blocks=message.blocks
        )
        return f"{channel}:{posted['ts']}"

    def delivery(self) -> SlackDelivery:
        return self._delivery

    async def aclose(self) -> None:
        await close_client(self.bot.client)


def slack_configured(settings: Settings) -> bool:
    return bool(settings.slack_bot_token or settings.slack_signing_secret)


def slack_platform(
    runtime: Runtime, settings: Settings, tasks: BackgroundTasks
) -> SlackPlatform | None:
    """Slack from SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET, or None when neither is set.

    Call it inside the running event loop (the Web API client's keep-alive session is made here).

    Raises:
        SettingsError: one of the two is set without the other.
    """
    if not slack_configured(settings):
        return None
    require(settings, "slack_bot_token", "slack_signing_secret")
    client = make_client(
        settings.slack_bot_token.get_secret_value(),
        settings.slack_api_url,
        session=shared_session(),
    )
    return SlackPlatform(
        SlackBot(
            runtime,
            client,
            settings.slack_signing_secret.get_secret_value(),
            streaming=settings.slack_streaming,
            tasks=tasks,
            max_turns=settings.max_concurrent_turns,
            budget=budget_for(settings),
        )
    )


SLACK = PlatformKind("Slack", "SLACK_BOT_TOKEN and SLACK_SIGNING_SECRET", slack_platform)
