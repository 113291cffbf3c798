"""Counter-offer cards: the requester's [Accept] [Decline] card, and the lines other cards add.

The requester sees what they asked for, the suggested dates, the working days and the
balance after those dates, the approver's note, and what each button leads to. Once
answered (or lapsed) the same card shows the outcome and no buttons.
"""

from __future__ import annotations

from agent.i18n import fmt_days, fmt_range
from agent.tools.describe import what
from bot import wording
from bot.presentation.model import Action, ActionKind, Card, Fact, Paragraph, Reader, Tone
from bot.presentation.text import truncate
from bot.wording import leave_dates as dates_of
from bot.wording import name_of, say
from workflow.engine import Engine
from workflow.models import CounterOffer, CounterStatus, Request, RequestStatus

NOTE_MAX = 500


def suggested(c: CounterOffer, locale: str) -> str:
    """The suggested dates as a person reads them."""
    return fmt_range(c.start, c.end, c.start_half, c.end_half, locale)


def balance_with(req: Request, c: CounterOffer, balance_after: float | None) -> float | None:
    """The balance after the suggested dates, from the requester's balance as it is now.

    `balance_after` counts this request's current dates while it is pending or approved (its
    days reserved or used), and not once it ended otherwise; the suggested dates are counted in
    the year the leave starts (as the approver's card counts it). So a card redrawn after
    Accept, Decline or the decision says the same thing about the same dates.
    """
    if balance_after is None:
        return None
    year = req.leave_start().year
    counted = req.status in (RequestStatus.PENDING, RequestStatus.APPROVED)
    current = float(req.derived.get("days_by_year", {}).get(str(year), 0)) if counted else 0.0
    new = c.working_days if c.start.year == year else 0
    return balance_after + current - new


def counter_line(req: Request, engine: Engine, locale: str) -> str | None:
    """'王芳 suggested 16–17 Dec; waiting for 张三's answer' while a suggestion is open."""
    c = req.counter
    if c is None or c.status is not CounterStatus.OPEN:
        return None
    return say(
        "line.counter.waiting",
        locale,
        by=name_of(engine, c.by),
        dates=suggested(c, locale),
        who=name_of(engine, req.requester),
    )


def suggest_action(req: Request, step: int, locale: str) -> tuple[Action, ...]:
    """[Suggest other dates] for an approver's live card of a leave request."""
    if not req.is_leave:
        return ()
    label = say("button.suggest_dates", locale)
    return (Action(ActionKind.COUNTER_OPEN, label, request_id=req.id, step=step),)


def _outcome(req: Request, c: CounterOffer, engine: Engine, locale: str) -> str:
    by = name_of(engine, c.by)
    match c.status:
        case CounterStatus.ACCEPTED:
            return say("outcome.counter.accepted", locale, dates=suggested(c, locale), by=by)
        case CounterStatus.DECLINED:
            return say("outcome.counter.declined", locale, dates=dates_of(req.fields, locale))
    return say("outcome.counter.lapsed", locale)


def counter_card(
    req: Request, engine: Engine, reader: Reader | str, balance_after: float | None
) -> Card:
    """The requester's card of a suggestion: both date ranges, days, balance, [Accept] [Decline].

    `balance_after` is the requester's balance now (RequestView's), on first drawing and on
    every redraw alike.
    """
    rd = wording.in_zone(reader, engine, req.requester)
    locale = rd.locale
    c = req.counter
    if c is None:
        raise ValueError(f"request {req.id} has no suggested dates")
    by = name_of(engine, c.by)
    headline = say("headline.counter.proposed", locale, by=by)
    asked = c.was if c.status is CounterStatus.ACCEPTED and c.was else req.fields
    facts = [
        Fact(
            say("label.type", locale),
            wording.leave_type_name(engine, req.fields["leave_type"], locale),
        ),
        Fact(say("label.asked_dates", locale), dates_of(asked, locale)),
        Fact(say("label.suggested_dates", locale), suggested(c, locale)),
        Fact(say("label.working_days", locale), fmt_days(c.working_days, locale)),
    ]
    left = balance_with(req, c, balance_after)
    if left is not None:
        days = say("value.days_left", locale, days=wording.days_text(left, locale))
        facts.append(Fact(say("label.balance_after", locale), days))
    body: list[Paragraph] = []
    if c.comment:
        body.append(
            Paragraph(truncate(c.comment, NOTE_MAX), label=say("label.note", locale), literal=True)
        )
    actions: tuple[Action, ...] = ()
    if c.status is CounterStatus.OPEN:
        context = (say("line.counter.then", locale, by=by), wording.id_line(req, engine, rd))
        ref = {"request_id": req.id, "step": c.step}
        actions = (
            Action(ActionKind.COUNTER_ACCEPT, say("button.accept", locale), "primary", **ref),
            Action(ActionKind.COUNTER_DECLINE, say("button.decline", locale), **ref),
        )
        tone = Tone.ASK
    else:
        outcome = _outcome(req, c, engine, locale)
        body.append(Paragraph(outcome, strong=True))
        context = (wording.id_line(req, engine, rd),)
        tone = Tone.CLOSED
    return Card(
        fallback=f"{headline} {what(req, engine.config, locale)}",
        title=wording.title_of(req, engine, locale),
        tone=tone,
        lead=(Paragraph(headline, strong=True, tone=tone),),
        facts=tuple(facts),
        body=tuple(body),
        context=context,
        actions=actions,
    )
