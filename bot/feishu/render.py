"""The conversation core's card views as Feishu cards, and redrawing a registered card."""

from __future__ import annotations

import structlog

from bot.conversation import CardRef, CardView, Closed, Drawn, RejectForm, StepClosed, StepLive
from bot.feishu import cards
from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError
from bot.presentation.model import Reader
from bot.wording import in_zone
from workflow.engine import Engine

log = structlog.get_logger("feishu")
PLATFORM = "feishu"


def render(view: CardView, engine: Engine, locale: Reader | str) -> cards.Card:
    """One view as Feishu card JSON."""
    match view:
        case Closed():
            return cards.confirm_card_closed(view.summary, view.outcome, locale, ok=view.ok)
        case StepClosed():
            return cards.approval_card_closed(view.request, engine, locale, view.step)
        case StepLive(reminder=True):
            return cards.reminder_card(view.view, engine, locale, view.reminder_note)
        case StepLive():
            return cards.approval_card(view.view, engine, locale)
        case Drawn():
            return cards.render(view.card)
        case RejectForm():
            step = view.request.steps[view.step]
            return cards.reject_form_card(view.request, step, engine, locale)


class FeishuCards:
    """Redraws cards in place with PATCH /im/v1/messages/:id."""

    platform = PLATFORM

    def __init__(self, engine: Engine, client: FeishuClient) -> None:
        self.engine = engine
        self.client = client

    async def update(self, card: CardRef, view: CardView) -> bool:
        """Redraw one card in its reader's language; False when Feishu refuses it for good."""
        try:
            await self.client.patch_card(
                card.address,
                render(view, self.engine, in_zone(card.locale, self.engine, card.holder)),
            )
        except FeishuError as e:
            if e.retryable:
                raise  # the event is retried later
            log.warning("feishu_card_update_failed", message_id=card.address, error=str(e))
            return False
        return True
