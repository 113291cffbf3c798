"""Cards about one request: the approver's card (open, reminded, closed) and the requester's notices."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.i18n import names
from agent.tools.describe import what, what_in_sentence, where_it_is
from bot import wording
from bot.presentation import counter
from bot.presentation.model import (
    Action,
    ActionKind,
    Card,
    Dialog,
    Fact,
    Paragraph,
    Reader,
    Tone,
)
from bot.presentation.text import listed, truncate
from bot.wording import name_of, say, step_name, step_of
from workflow.engine import Engine
from workflow.models import Request, RequestStatus, Step
from workflow.queries import OutEntry, RequestView

REASON_MAX = 500

_OUTCOME_TONES = {
    "submitted": Tone.SUBMITTED,
    "approved": Tone.APPROVED,
    "rejected": Tone.REJECTED,
    "withdrawn": Tone.WITHDRAWN,
    "expired": Tone.EXPIRED,
    "reassigned": Tone.MOVED,
    "open": Tone.CLOSED,
}


# How a finished request is told, as a card's outcome (its mark, its colour).
STATUS_OUTCOMES = {
    RequestStatus.APPROVED: "approved",
    RequestStatus.REJECTED: "rejected",
    RequestStatus.WITHDRAWN: "withdrawn",
    RequestStatus.EXPIRED: "expired",
}


def status_context(
    req: Request, engine: Engine, rd: Reader, outcome: str, sentence: str
) -> tuple[str, ...]:
    """A card's small last lines: where the request is now, as far as its sentence has not said
    it, then when it was submitted and its id. A request that ended as the sentence tells
    ("Approved by 王芳" over "Approved") says nothing more; one the sentence names the holder of
    ("went to Emma Clarke (Manager)" over "Pending: with Emma Clarke (Manager)") keeps only what
    the chain adds: the step count if the sentence left it out, and who comes next.

    `sentence` is what the bot wrote, never a person's comment with it: "Fine by me - 刘洋
    please check cover" does not say who has the request, nor does "Rejected" in a comment
    say the request was."""
    return (
        *_unsaid_where(req, engine, rd.locale, outcome, sentence),
        wording.id_line(req, engine, rd),
    )


def _unsaid_where(
    req: Request, engine: Engine, locale: str, outcome: str, sentence: str
) -> tuple[str, ...]:
    where = where_it_is(req, engine.directory, locale)
    step = req.open_step()
    if step is None:
        ended = STATUS_OUTCOMES.get(req.status) == outcome
        return () if ended or where in sentence else (where,)
    if not names(sentence, name_of(engine, step.assignee or step.approver)):
        return (where,)
    return wording.chain_rest(req, step, engine, locale, sentence)


def _facts(
    req: Request, engine: Engine, locale: str, balance_after: float | None = None
) -> tuple[Fact, ...]:
    return tuple(Fact(k, v) for k, v in wording.request_facts(req, engine, locale, balance_after))


def _reason(req: Request, locale: str) -> list[Paragraph]:
    reason = req.fields.get("reason") if req.is_leave else None
    if not isinstance(reason, str) or not reason.strip():
        return []
    text = truncate(reason.strip(), REASON_MAX)
    return [Paragraph(text, label=say("label.reason", locale), literal=True)]


def _team_out(entries: Sequence[OutEntry], locale: str) -> Paragraph:
    """Who else in the team is out then: names and dates only, 'Nobody' otherwise."""
    label = say("label.team_out", locale)
    if not entries:
        return Paragraph(say("word.nobody", locale), label=label)
    page = listed(entries)
    lines = [f"• {wording.out_line(o, locale)}" for o in page.shown]
    return Paragraph("\n".join(page.with_more(lines, locale)), label=label)


def _details(
    req: Request,
    engine: Engine,
    locale: str,
    balance_after: float | None = None,
    team_out: Sequence[OutEntry] | None = None,
) -> tuple[tuple[Fact, ...], list[Paragraph]]:
    body = _reason(req, locale)
    if req.is_leave and team_out is not None:
        body.append(_team_out(team_out, locale))
    return _facts(req, engine, locale, balance_after), body


def decision_actions(req: Request, step: Step, engine: Engine, locale: str) -> tuple[Action, ...]:
    """[Approve] (asks "are you sure?", saying where it goes next) and [Reject] (asks for a reason)."""
    who, it = name_of(engine, req.requester), what_in_sentence(req, engine.config, locale)
    if step.index + 1 < len(req.steps):
        nxt = req.steps[step.index + 1]
        then = say(
            "dialog.approve.then",
            locale,
            who=name_of(engine, nxt.approver),
            step=step_name(nxt, locale),
        )
    else:
        then = say("dialog.approve.last", locale)
    dialog = Dialog(
        title=say("dialog.approve.title", locale),
        text=say("dialog.approve.text", locale, who=who, what=it) + then,
        confirm=say("button.approve", locale),
        deny=say("button.cancel", locale),
    )
    ref = {"request_id": req.id, "step": step.index}
    return (
        Action(
            ActionKind.REQUEST_APPROVE,
            say("button.approve", locale),
            "primary",
            dialog=dialog,
            **ref,
        ),
        Action(ActionKind.REQUEST_REJECT, say("button.reject", locale), "danger", **ref),
        *counter.suggest_action(req, step.index, locale),
    )


def step_context(req: Request, step: Step, engine: Engine, reader: Reader) -> tuple[str, ...]:
    """'Step 1 of 2 (Manager)', why it came to this holder, and when it was submitted."""
    locale = reader.locale
    lines = [step_of(step.index, len(req.steps), step_name(step, locale), locale)]
    if (routed := wording.routed_text(step, engine, locale)) is not None:
        lines.append(routed)
    if (suggested := counter.counter_line(req, engine, locale)) is not None:
        lines.append(suggested)
    lines.append(wording.id_line(req, engine, reader))
    return tuple(lines)


def approval_card(
    view: RequestView, engine: Engine, reader: Reader | str, reminder: str | None = None
) -> Card:
    """The approver's card: the request, who else is out, the step, [Approve] [Reject].

    `reminder` is the requester's note when they nudged: the card then opens with it.
    """
    req = view.request
    rd = wording.in_zone(reader, engine, req.requester)
    locale = rd.locale
    step = req.open_step()
    if step is None:  # decided meanwhile: the facts and where it stands, no buttons
        return approval_card_closed(req, engine, rd, req.current_step or 0)
    facts, body = _details(req, engine, locale, view.balance_after, view.team_out)
    # the notification's sentence names the request as the approve dialog does (running text)
    who, it = name_of(engine, req.requester), what_in_sentence(req, engine.config, locale)
    fallback = say("fallback.approval", locale, who=who, what=it)
    banner = None
    if reminder is not None:
        banner = say("banner.reminder", locale, who=who)
        if reminder.strip():
            banner += say("banner.reminder_note", locale, note=reminder.strip())
        fallback = with_news(banner, fallback, locale)
    return Card(
        fallback=fallback,
        title=wording.title_of(req, engine, locale),
        tone=Tone.REMINDER if reminder is not None else Tone.ASK,
        banner=banner,
        facts=facts,
        body=tuple(body),
        context=step_context(req, step, engine, rd),
        actions=decision_actions(req, step, engine, locale),
    )


def with_news(news: str, fallback: str, locale: str) -> str:
    """A notification that opens with news before the card's own sentence: 'Reminder from 张三 —
    …' / '张三 的催办提醒。张三 请你审批…' (the news's own full stop is not doubled)."""
    return say("fallback.news", locale, news=news.rstrip("。."), text=fallback)


def request_card(req: Request, engine: Engine, reader: Reader | str) -> Card:
    """The request's facts, reason and step for its holder, with no buttons (a form goes below)."""
    rd = wording.in_zone(reader, engine, req.requester)
    facts, body = _details(req, engine, rd.locale)
    step = req.open_step()
    return Card(
        fallback=what(req, engine.config, rd.locale),
        title=wording.title_of(req, engine, rd.locale),
        tone=Tone.REJECTED,
        facts=facts,
        body=tuple(body),
        context=step_context(req, step, engine, rd) if step is not None else (),
    )


def approval_card_closed(
    request: Request, engine: Engine, reader: Reader | str, step_index: int
) -> Card:
    """The approval card after the decision (or withdrawal, or reassignment): no buttons."""
    rd = wording.in_zone(reader, engine, request.requester)
    locale = rd.locale
    outcome, said, comment = wording.decision_parts(request, step_index, engine, rd)
    sentence = said + comment
    tone = _OUTCOME_TONES.get(outcome, Tone.CLOSED)
    facts, body = _details(request, engine, locale)
    body.append(Paragraph(sentence, strong=True, tone=tone))
    return Card(
        fallback=f"{sentence} · {what(request, engine.config, locale)}",
        title=wording.title_of(request, engine, locale),
        tone=tone,
        facts=facts,
        body=tuple(body),
        context=status_context(request, engine, rd, outcome, said),
    )


_HEADLINE_TONES = {
    ("request_submitted", "info"): Tone.SUBMITTED,
    ("request_approved", "approved"): Tone.DONE,
    ("reminder_sent", "info"): Tone.REMINDER,
    ("task_assigned", "info"): Tone.MOVED,
    ("step_escalated", "info"): Tone.MOVED,
}


# A finished request's colour, on every notice about it once redrawn.
_FINAL_TONES = {
    RequestStatus.APPROVED: Tone.DONE,
    RequestStatus.REJECTED: Tone.REJECTED,
    RequestStatus.WITHDRAWN: Tone.WITHDRAWN,
    RequestStatus.EXPIRED: Tone.EXPIRED,
}


def requester_notice(
    event_type: str,
    request: Request,
    engine: Engine,
    reader: Reader | str,
    data: dict[str, Any],
    *,
    told: tuple[str, str] | None = None,
) -> Card:
    """The requester's card for an outbox event: submitted, step approved, approved, rejected, …

    `told` redraws a notice already sent with the (outcome, headline) the core gives it: the
    news as it was told while that is still so ("📤 went to 王芳"), else where the request
    stands now, marked as that line tells it ("✅ Approved by 王芳; now waiting for 刘洋",
    bot/conversation/lifecycle.py state_news); the colour is the request as it is now.
    """
    rd = wording.in_zone(reader, engine, request.requester)
    locale = rd.locale
    outcome, headline = told or wording.headline(event_type, request, engine, locale, data)
    mark = _HEADLINE_TONES.get((event_type, outcome)) or _OUTCOME_TONES.get(outcome, Tone.INFO)
    if outcome == "info" and (event_type, outcome) not in _HEADLINE_TONES:
        mark = Tone.INFO
    tone = _FINAL_TONES.get(request.status, mark) if told is not None else mark
    it = what(request, engine.config, locale)
    lead = [Paragraph(headline, strong=True, tone=mark), Paragraph(it)]
    fallback = f"{headline} {it}"
    if (extra := wording.detail(event_type, locale, data)) is not None:
        label, text = extra
        lead.append(Paragraph(truncate(text, REASON_MAX), label=label, literal=True))
        if event_type == "request_rejected":
            fallback += say("fallback.dash", locale, text=text)
    return Card(
        fallback=fallback,
        title=wording.title_of(request, engine, locale),
        tone=tone,
        lead=tuple(lead),
        context=status_context(request, engine, rd, outcome, headline),
    )
