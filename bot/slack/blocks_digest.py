"""The worker's DMs: an approver's morning digest, a manager's weekly who's-out, expiry notices."""

from __future__ import annotations

from datetime import date

from bot.presentation import notices
from bot.presentation.model import Reader, reader
from bot.slack.blocks_base import SlackMessage
from bot.slack.blocks_cards import render
from workflow.engine import Engine
from workflow.models import Request
from workflow.queries import OutEntry


def digest_dm(requests: list[Request], engine: Engine, locale: Reader | str) -> SlackMessage:
    """'3 requests are waiting for you': one line each, oldest first."""
    return render(notices.digest_card(requests, engine, reader(locale)))


def weekly_out_dm(
    out: list[OutEntry], start: date, end: date, locale: Reader | str
) -> SlackMessage:
    """Who in the team is out next week: names and dates only."""
    return render(notices.weekly_out_card(out, start, end, reader(locale)))


def expired_dm(
    request: Request, engine: Engine, locale: Reader | str, *, for_requester: bool
) -> SlackMessage:
    card = notices.expired_card(request, engine, reader(locale), for_requester=for_requester)
    return render(card)


def escalated_dm(
    request: Request, engine: Engine, locale: Reader | str, to: str, sla_hours: float
) -> SlackMessage:
    """To the approver the step was taken from: who has it now, and why."""
    return render(notices.escalated_card(request, engine, reader(locale), to, sla_hours))
