"""What every Slack builder shares: the message type, escaping, truncation, small block helpers.

Text from people (reasons, comments, notes, names) goes into mrkdwn only through `escape`, so
it can never become a mention (`<!channel>`) or a link; every text is cut to its Block Kit
limit with "…" instead of being refused by Slack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from slack_sdk.models.blocks import (
    ActionsBlock,
    Block,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    PlainTextObject,
    SectionBlock,
)

from agent.catalogue import say
from bot.presentation.text import ELLIPSIS, escape_html, truncate
from bot.wording import step_of  # noqa: F401  (the cards, forms and Home tab import it from here)

MESSAGE_BLOCKS_MAX = 50
VIEW_BLOCKS_MAX = 100
SECTION_TEXT_MAX = 3000
FIELD_TEXT_MAX = 2000
CONTEXT_TEXT_MAX = 2000
HEADER_TEXT_MAX = 150
BUTTON_TEXT_MAX = 75
OPTION_TEXT_MAX = 75
CONFIRM_TITLE_MAX = 100
CONFIRM_TEXT_MAX = 300
CONFIRM_BUTTON_MAX = 30
VIEW_TITLE_MAX = 24
PLACEHOLDER_MAX = 150
FALLBACK_TEXT_MAX = 3000


@dataclass(frozen=True)
class SlackMessage:
    """A message to post or update: `text` is the notification fallback, always set."""

    text: str
    blocks: list[dict[str, Any]]


escape = escape_html  # text from people shows as typed in mrkdwn (no mentions, no links)


def md(text: str, limit: int = SECTION_TEXT_MAX) -> MarkdownTextObject:
    """A mrkdwn text object of already escaped text, cut to `limit`."""
    return MarkdownTextObject(text=truncate(text, limit))


def plain(text: str, limit: int) -> PlainTextObject:
    """A plain_text object (shown literally, so not escaped), cut to `limit`."""
    return PlainTextObject(text=truncate(text, limit), emoji=True)


def section(text: str, *, block_id: str | None = None, accessory: Any = None) -> SectionBlock:
    return SectionBlock(text=md(text), block_id=block_id, accessory=accessory)


def fields_section(pairs: list[tuple[str, str]]) -> SectionBlock:
    """A two-column section of `*label*\\nvalue` (both escaped already); at most 10 fields."""
    return SectionBlock(
        fields=[md(f"*{label}*\n{value}", FIELD_TEXT_MAX) for label, value in pairs[:10]]
    )


def context(*texts: str) -> ContextBlock:
    return ContextBlock(elements=[md(x, CONTEXT_TEXT_MAX) for x in texts[:10] if x])


def header(text: str) -> HeaderBlock:
    return HeaderBlock(text=plain(text, HEADER_TEXT_MAX))


def divider() -> DividerBlock:
    return DividerBlock()


def confirm_dialog(
    title: str, text: str, confirm: str, deny: str, style: str | None = None
) -> ConfirmObject:
    """A button's "are you sure?" dialog, every part within Slack's limits."""
    return ConfirmObject(
        title=plain(title, CONFIRM_TITLE_MAX),
        text=plain(text, CONFIRM_TEXT_MAX),
        confirm=plain(confirm, CONFIRM_BUTTON_MAX),
        deny=plain(deny, CONFIRM_BUTTON_MAX),
        style=style,
    )


def button(
    text: str,
    action_id: str,
    value: str,
    *,
    style: str | None = None,
    confirm: ConfirmObject | None = None,
) -> ButtonElement:
    return ButtonElement(
        text=plain(text, BUTTON_TEXT_MAX),
        action_id=action_id,
        value=value,
        style=style,
        confirm=confirm,
    )


def actions(*elements: ButtonElement, block_id: str | None = None) -> ActionsBlock:
    return ActionsBlock(elements=list(elements), block_id=block_id)


def dump(blocks: list[Block], limit: int = MESSAGE_BLOCKS_MAX) -> list[dict[str, Any]]:
    """The blocks as dicts (validated by slack_sdk on the way), at most `limit` of them."""
    return [b.to_dict() for b in blocks[:limit]]


def message(fallback: str, blocks: list[Block]) -> SlackMessage:
    """A SlackMessage from raw fallback text (escaped and cut here) and blocks."""
    text = truncate(escape(fallback.strip()), FALLBACK_TEXT_MAX) or ELLIPSIS
    return SlackMessage(text=text, blocks=dump(blocks))


# --- wording shared by the cards, forms and the Home tab -------------------------------------


def and_more(hidden: int, locale: str) -> str:
    return say("line.and_more", locale, n=hidden)
