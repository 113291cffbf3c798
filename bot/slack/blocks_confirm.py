"""The confirm card an agent proposal shows in the thread, and the same card once it is clicked."""

from __future__ import annotations

from agent.events import ProposalReady
from bot import wording
from bot.presentation import confirm
from bot.presentation.model import Reader
from bot.slack.blocks_base import SlackMessage
from bot.slack.blocks_cards import render
from workflow.engine import Engine

confirm_label = wording.confirm_label
outcome_text = wording.outcome_text


def confirm_card(
    p: ProposalReady, locale: Reader | str, *, engine: Engine | None = None
) -> SlackMessage:
    """The proposal's exact contents with [Submit|Approve|Reject|Withdraw|…] [Cancel].

    Pass `engine` to show leave types and form labels in the reader's language (without it
    they show as their keys). Only `p.confirm_by` can click; the engine checks that.
    """
    return render(confirm.confirm_card(p, locale, engine=engine))


def confirm_card_closed(summary: str, outcome: str, locale: Reader | str) -> SlackMessage:
    """The confirm card after a click: the summary and what happened, no buttons."""
    return render(confirm.confirm_card_closed(summary, outcome, locale))


__all__ = [
    "confirm_card",
    "confirm_card_closed",
    "confirm_label",
    "outcome_text",
]
