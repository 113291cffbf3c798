"""Redrawing a card the core registered: in its reader's language and time zone, on any platform.

A platform gives two things: how it renders a card view, and how it edits a posted message
in place (False when the message is gone for good; raising leaves the event to be retried).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

from bot.conversation.registry import CardRef
from bot.presentation.card_views import CardView
from bot.presentation.model import Reader
from bot.wording import in_zone
from workflow.engine import Engine

M = TypeVar("M")
Render = Callable[[CardView, Engine, Reader], M]
Edit = Callable[[str, M], Awaitable[bool]]  # (the message's address, the new message)


class CardRedraw(Generic[M]):
    """Brings one registered card to a view (`update`, the lifecycle's redraw callback)."""

    def __init__(self, platform: str, engine: Engine, render: Render[M], edit: Edit[M]) -> None:
        self.platform = platform
        self.engine = engine
        self._render = render
        self._edit = edit

    async def update(self, card: CardRef, view: CardView) -> bool:
        """Redraw one card for the person who holds it; False when the platform no longer has it."""
        reader = in_zone(card.locale, self.engine, card.holder)
        return await self._edit(card.address, self._render(view, self.engine, reader))
