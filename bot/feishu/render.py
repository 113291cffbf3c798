"""The conversation core's card views as Feishu cards, and redrawing a registered card."""

from __future__ import annotations

import structlog

from bot.conversation import CardView, RejectForm
from bot.conversation.redraw import CardRedraw
from bot.feishu import cards
from bot.feishu.client import FeishuClient
from bot.feishu.counter_form import counter_form_card
from bot.feishu.errors import FeishuError
from bot.presentation.card_views import CounterForm, card_of
from bot.presentation.model import Reader
from workflow.engine import Engine

log = structlog.get_logger("feishu")
PLATFORM = "feishu"


def render(view: CardView, engine: Engine, locale: Reader | str) -> cards.Card:
    """One view as Feishu card JSON."""
    if isinstance(view, RejectForm):
        step = view.request.steps[view.step]
        return cards.reject_form_card(view.request, step, engine, locale)
    if isinstance(view, CounterForm):
        return counter_form_card(view.request, view.step, engine, locale)
    return cards.render(card_of(view, engine, locale))


def feishu_cards(engine: Engine, client: FeishuClient) -> CardRedraw[cards.Card]:
    """Redraws registered cards in place with PATCH /im/v1/messages/:id."""

    async def edit(message_id: str, card: cards.Card) -> bool:
        try:
            await client.patch_card(message_id, card)
        except FeishuError as e:
            if e.retryable:
                raise  # the event is retried later
            log.warning("feishu_card_update_failed", message_id=message_id, error=str(e))
            return False
        return True

    return CardRedraw(PLATFORM, engine, render, edit)
