"""The conversation core's card views as Slack messages, and redrawing a registered card."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import CardRef, CardView, Closed, Drawn, RejectForm, StepClosed, StepLive
from bot.presentation.model import Reader
from bot.slack import blocks, blocks_cards
from bot.wording import in_zone
from workflow.engine import Engine

PLATFORM = "slack"


def address(channel: str, ts: str) -> str:
    return f"{channel}:{ts}"


def render(view: CardView, engine: Engine, locale: Reader | str) -> blocks.SlackMessage:
    """One view as Block Kit (a reject form is a modal, not a message: see `blocks.reject_modal`)."""
    match view:
        case Closed():
            return blocks.confirm_card_closed(view.summary, view.outcome, locale)
        case StepClosed():
            return blocks.approval_card_closed(view.request, engine, locale, view.step)
        case StepLive(reminder=True):
            return blocks.reminder_card(view.view, engine, locale, view.reminder_note)
        case StepLive():
            return blocks.approval_card(view.view, engine, locale)
        case Drawn():
            return blocks_cards.render(view.card)
        case RejectForm():
            raise ValueError("a reject form is a modal on Slack, not a message")


class SlackCards:
    """Redraws cards in place with chat.update."""

    platform = PLATFORM

    def __init__(self, engine: Engine, client: AsyncWebClient) -> None:
        self.engine = engine
        self.client = client

    async def update(self, card: CardRef, view: CardView) -> bool:
        """Redraw one card in its reader's language; False when Slack no longer has it."""
        channel, _, ts = card.address.partition(":")
        msg = render(view, self.engine, in_zone(card.locale, self.engine, card.holder))
        try:
            await self.client.chat_update(channel=channel, ts=ts, text=msg.text, blocks=msg.blocks)
        except SlackApiError as e:
            if e.response.get("error") in ("message_not_found", "channel_not_found"):
                return False
            raise
        return True
