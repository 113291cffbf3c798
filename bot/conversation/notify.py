"""One outbox event delivered on one platform: each notice in its reader's language, then the cards redrawn.

The platform gives how a notice card is serialized (Block Kit, Feishu card JSON) and how it
is posted to a person once (returning where it is, or None when they are not on it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from bot.conversation.lifecycle import CardLifecycle
from bot.conversation.redraw import CardRedraw
from bot.notices import Notice, plan_notices
from bot.presentation.model import Card, Reader
from bot.presentation.notices import notice_card
from workflow.config import Person
from workflow.engine import Engine
from workflow.outbox import OutboxEvent

M = TypeVar("M")
Post = Callable[[OutboxEvent, Person, M], Awaitable[str | None]]


async def deliver_event(
    event: OutboxEvent,
    engine: Engine,
    lifecycle: CardLifecycle,
    cards: CardRedraw[M],
    serialize: Callable[[Card], M],
    post: Post[M],
) -> None:
    """Send each notice of the event's plan to its person; raise to have the event retried."""
    plan = await plan_notices(event, engine)

    async def send(notice: Notice, person: Person) -> str | None:
        card = notice_card(notice, plan, event.data, engine, Reader.of(person))
        return await post(event, person, serialize(card))

    await lifecycle.deliver(plan, cards.platform, send, cards.update)
