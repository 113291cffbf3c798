"""What the product needs from a chat platform, and nothing about what happens in a conversation.

A platform receives its HTTP callbacks, identifies who sent them, renders the conversation
core's card views in its own format, sends messages to people and updates cards in place.
What a click does, which cards change and what each reader is told is decided once, in
`bot.conversation`; `bot.compose` lists the platforms and wires them into serve, worker and
the sandbox.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from aiohttp import web

from bot.conversation import CardRef, CardView
from bot.conversation.redraw import CardRedraw
from bot.front import Quick
from bot.notifier import Delivery
from workflow.config import Person

if TYPE_CHECKING:
    from bot.runtime import Runtime
    from bot.settings import Settings
    from bot.tasks import BackgroundTasks


class Platform(Protocol):
    name: str  # "slack", "feishu": the key of a person's account and of its cards
    path: str  # where its callbacks are posted
    quick: Quick | None  # the callbacks it acks before aiohttp sees them (bot/front.py)

    async def receive(self, request: web.Request) -> web.Response:
        """Answer one authenticated callback (events, clicks, forms)."""
        ...

    async def identify(self, account: str, scope: str = "") -> Person | None:
        """The directory person behind a platform account (None: not in the directory)."""
        ...

    def render(self, view: CardView, locale: str) -> object:
        """A card view in this platform's format."""
        ...

    async def send(self, person: Person, message: object) -> str | None:
        """Send a rendered message to a person directly; where it is (None: not on this platform)."""
        ...

    async def update(self, card: CardRef, view: CardView) -> bool:
        """Redraw a card in place; False when it is gone."""
        ...

    def delivery(self) -> Delivery:
        """The notifier's share of this platform: workflow events as messages and cards."""
        ...

    async def aclose(self) -> None:
        """Close its HTTP sessions."""
        ...


class PlatformBot(Protocol):
    """What a platform's bot gives the `Platform` around it."""

    cards: CardRedraw[Any]

    async def handle(self, request: web.Request) -> web.Response: ...


B = TypeVar("B", bound=PlatformBot)


class BotPlatform(Generic[B]):
    """What every platform built around one bot shares: callbacks to the bot, cards redrawn by it."""

    quick: Quick | None = None

    def __init__(self, bot: B) -> None:
        self.bot = bot

    async def receive(self, request: web.Request) -> web.Response:
        return await self.bot.handle(request)

    async def update(self, card: CardRef, view: CardView) -> bool:
        return await self.bot.cards.update(card, view)


@dataclass(frozen=True)
class PlatformKind:
    """One line of `bot.compose.PLATFORMS`: a platform's name, what turns it on, how it is built."""

    name: str  # as people know it: "Slack"
    needs: str  # the settings that turn it on, named when no platform is configured
    # the platform from the settings; None when none of its settings is given
    build: Callable[[Runtime, Settings, BackgroundTasks], Platform | None]
