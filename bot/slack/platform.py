"""Slack as a `Platform`: the Bolt app only where callbacks are received (never in the worker)."""

from __future__ import annotations

from functools import cached_property

from aiohttp import web
from slack_sdk.web.async_client import AsyncWebClient

from bot.budget import VerificationBudget, budget_for
from bot.conversation import CardRef, CardView
from bot.runtime import Runtime
from bot.settings import Settings, require
from bot.slack.app import SlackBot
from bot.slack.blocks import SlackMessage
from bot.slack.client import make_client
from bot.slack.delivery import SlackDelivery
from bot.slack.identity import SlackIdentity
from bot.slack.render import PLATFORM, SlackCards, render
from bot.tasks import BackgroundTasks
from workflow.config import Person


class SlackPlatform:
    """Slack over the Web API; the Bolt app (`bot`) is built on the first callback."""

    name = PLATFORM
    path = "/slack/events"

    def __init__(
        self,
        runtime: Runtime,
        client: AsyncWebClient,
        signing_secret: str,
        *,
        streaming: bool = True,
        tasks: BackgroundTasks | None = None,
        max_turns: int = 100,
        budget: VerificationBudget | None = None,
        bot: SlackBot | None = None,
    ) -> None:
        self.runtime = runtime
        self.client = client
        self._secret = signing_secret
        self._options = {
            "streaming": streaming,
            "tasks": tasks,
            "max_turns": max_turns,
            "budget": budget,
        }
        if bot is not None:
            self.__dict__["bot"] = bot
        self.identity = (
            bot.identity if bot else SlackIdentity(runtime.engine.directory, runtime.redis, client)
        )
        self.cards = SlackCards(runtime.engine, client)

    @classmethod
    def of(cls, bot: SlackBot) -> SlackPlatform:
        """The platform around an existing bot (the sandbox and the tests build their own)."""
        return cls(bot.runtime, bot.client, "", tasks=bot.tasks, bot=bot)

    @cached_property
    def bot(self) -> SlackBot:
        """The Bolt app and its listeners: only a process that receives Slack's callbacks builds it."""
        return SlackBot(self.runtime, self.client, self._secret, **self._options)

    async def receive(self, request: web.Request) -> web.Response:
        return await self.bot.handle(request)

    async def identify(self, account: str, scope: str = "") -> Person | None:
        return await self.identity.person_for(scope, account)

    def render(self, view: CardView, locale: str) -> SlackMessage:
        return render(view, self.runtime.engine, locale)

    @cached_property
    def _delivery(self) -> SlackDelivery:
        return SlackDelivery(self.runtime.engine, self.client, self.identity)

    async def send(self, person: Person, message: object) -> str | None:
        if not isinstance(message, SlackMessage):
            raise TypeError(f"Slack sends a SlackMessage, not {type(message).__name__}")
        channel = await self.identity.dm_channel(await self._delivery.team_id(), person)
        if channel is None:
            return None
        posted = await self.client.chat_postMessage(
            channel=channel, text=message.text, blocks=message.blocks
        )
        return f"{channel}:{posted['ts']}"

    async def update(self, card: CardRef, view: CardView) -> bool:
        return await self.cards.update(card, view)

    def delivery(self) -> SlackDelivery:
        return self._delivery

    async def aclose(self) -> None:
        session = getattr(self.client, "session", None)
        if session is not None and not session.closed:
            await session.close()


def slack_configured(settings: Settings) -> bool:
    return bool(settings.slack_bot_token or settings.slack_signing_secret)


def slack_platform(
    runtime: Runtime, settings: Settings, tasks: BackgroundTasks
) -> SlackPlatform | None:
    """Slack from SLACK_BOT_TOKEN / SLACK_SIGNING_SECRET, or None when neither is set.

    Raises:
        SettingsError: one of the two is set without the other.
    """
    if not slack_configured(settings):
        return None
    require(settings, "slack_bot_token", "slack_signing_secret")
    client = make_client(settings.slack_bot_token.get_secret_value(), settings.slack_api_url)
    return SlackPlatform(
        runtime,
        client,
        settings.slack_signing_secret.get_secret_value(),
        streaming=settings.slack_streaming,
        tasks=tasks,
        max_turns=settings.max_concurrent_turns,
        budget=budget_for(settings),
    )
