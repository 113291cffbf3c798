"""The worker's notices as cards: digest, who's out, expiry, escalation; and one card per plan notice."""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from typing import Any

from agent.i18n import fmt_range
from agent.tools.describe import what
from bot import wording
from bot.notices import Kind, Notice, Plan
from bot.presentation import bulk, counter, requests
from bot.presentation.model import Card, Paragraph, Reader, Tone
from bot.presentation.text import listed
from bot.wording import say
from workflow.engine import Engine
from workflow.models import Request
from workflow.queries import OutEntry


def digest_card(
    requests_: list[Request], engine: Engine, reader: Reader, total: int | None = None
) -> Card:
    """'3 requests waiting for your approval': one line each (who and what), oldest first.

    `requests_` may be the oldest few of `total` (default: all of them)."""
    locale = reader.locale
    page = listed(requests_, total)
    title = wording.digest_title(page.total, locale)
    lines = [
        "• "
        + wording.whose(
            wording.name_of(engine, r.requester), what(r, engine.config, locale), locale
        )
        for r in page.shown
    ]
    return Card(
        fallback=title,
        title=title,
        lead=(Paragraph("\n".join(page.with_more(lines, locale)) or "—"),),
        context=(say("line.digest_where", locale),),
        checklist=bulk.approve_selected(page.shown, engine, locale),
    )


def weekly_out_card(out: list[OutEntry], start: date, end: date, reader: Reader) -> Card:
    """Who in the team is out next week: names and dates only."""
    locale = reader.locale
    title = wording.weekly_out_title(start, end, locale)
    page = listed(out)
    lines = [
        "• "
        + wording.whose(o.name, fmt_range(o.start, o.end, o.start_half, o.end_half, locale), locale)
        + (say("value.awaiting", locale) if o.tentative else "")
        for o in page.shown
    ]
    body = "\n".join(page.with_more(lines, locale)) or wording.nobody_out(locale)
    return Card(fallback=title, title=title, lead=(Paragraph(body),))


def expired_card(request: Request, engine: Engine, reader: Reader, *, for_requester: bool) -> Card:
    text = wording.expired_text(request, engine, reader.locale, for_requester=for_requester)
    return Card(
        fallback=text,
        title=wording.title_of(request, engine, reader.locale),
        tone=Tone.EXPIRED,
        lead=(Paragraph(text),),
        context=(request.id,),
    )


def escalated_card(
    request: Request, engine: Engine, reader: Reader, to: str, sla_hours: float
) -> Card:
    """To the approver the step was taken from: who has it now, and why."""
    text = wording.escalated_text(request, engine, reader.locale, to, sla_hours)
    return Card(
        fallback=text,
        title=wording.title_of(request, engine, reader.locale),
        tone=Tone.MOVED,
        lead=(Paragraph(text),),
        context=(request.id,),
    )


def notice_card(
    n: Notice, plan: Plan, data: dict[str, Any], engine: Engine, reader: Reader
) -> Card:
    """The card one notice of a plan shows its person, on any platform."""
    req = plan.request
    match n.kind:
        case Kind.DIGEST:
            return digest_card(plan.pending, engine, reader, plan.pending_total)
        case Kind.WEEKLY_OUT if plan.start is not None and plan.end is not None:
            return weekly_out_card(plan.out, plan.start, plan.end, reader)
    if req is None:
        raise ValueError(f"a {n.kind} notice needs its request")
    match n.kind:
        case Kind.UPDATE:
            return requests.requester_notice(n.event_type, req, engine, reader, data)
        case Kind.APPROVAL_CARD if n.view is not None and n.event_type == "counter_answered":
            card = requests.approval_card(n.view, engine, reader)
            _, news = wording.headline(n.event_type, req, engine, reader.locale, data)
            return replace(
                card, banner=news, fallback=requests.with_news(news, card.fallback, reader.locale)
            )
        case Kind.APPROVAL_CARD if n.view is not None:
            return requests.approval_card(n.view, engine, reader)
        case Kind.APPROVAL_CARD:  # decided before this event was delivered: no live buttons
            return requests.approval_card_closed(req, engine, reader, n.step or 0)
        case Kind.REMINDER_CARD if n.view is not None:
            return requests.approval_card(n.view, engine, reader, reminder=data.get("note") or "")
        case Kind.ESCALATED_FROM:
            return escalated_card(req, engine, reader, data["assignee"], data.get("sla_hours", 0))
        case Kind.EXPIRED:
            return expired_card(req, engine, reader, for_requester=n.for_requester)
        case Kind.COUNTER_OFFER:
            after = n.view.balance_after if n.view is not None else None
            return counter.counter_card(req, engine, reader, after)
    raise ValueError(f"no card for a {n.kind} notice")
