"""The conversation core's card views as Slack messages, and redrawing a registered card."""

from __future__ import annotations

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from bot.conversation import CardView, RejectForm
from bot.conversation.redraw import CardRedraw
from bot.presentation.card_views import CounterForm, card_of
from bot.presentation.model import Reader
from bot.slack import blocks, blocks_cards
from workflow.engine import Engine

PLATFORM = "slack"


def address(channel: str, ts: str) -> str:
    return f"{channel}:{ts}"


def render(view: CardView, engine: Engine, locale: Reader | str) -> blocks.SlackMessage:
    """One view as Block Kit (a reject form is a modal, not a message: see `blocks.reject_modal`)."""
    if isinstance(view, RejectForm | CounterForm):
        raise ValueError("a form is a modal on Slack, not a message")
    return blocks_cards.render(card_of(view, engine, locale))


def slack_cards(engine: Engine, client: AsyncWebClient) -> CardRedraw[blocks.SlackMessage]:
    """Redraws registered cards in place with chat.update."""

    async def edit(where: str, msg: blocks.SlackMessage) -> bool:
        channel, _, ts = where.partition(":")
        try:
            await client.chat_update(channel=channel, ts=ts, text=msg.text, blocks=msg.blocks)
        except SlackApiError as e:
            if e.response.get("error") in ("message_not_found", "channel_not_found"):
                return False  # Slack no longer has it
            raise
        return True

    return CardRedraw(PLATFORM, engine, render, edit)
