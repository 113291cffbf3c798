"""The confirm card of a proposal, and the same card once clicked (or replaced by a newer draft)."""

from __future__ import annotations

import structlog

from agent.events import ProposalReady
from agent.i18n import detect_locale
from bot import wording
from bot.presentation.model import Action, ActionKind, Card, Fact, Paragraph, Reader, Tone, reader
from bot.presentation.text import truncate
from bot.wording import say
from workflow.engine import Engine
from workflow.errors import WorkflowError
from workflow.models import Request

log = structlog.get_logger("presentation")
REASON_MAX = 500
# The kinds whose card is about a request that already exists: it is read when the card is drawn.
ABOUT_A_REQUEST = frozenset({"decide", "withdraw", "remind"})


def confirm_title(p: ProposalReady, locale: str) -> str:
    if p.action == "decide":
        kind = "reject" if p.fields.get("decision") == "reject" else "approve"
    else:
        kind = p.action if p.action in wording._VERBS else "other"
    return say(f"confirm.title.{kind}", locale)


async def proposal_card(p: ProposalReady, reader_: Reader | str, engine: Engine) -> Card:
    """The confirm card as it is shown: a decision, withdrawal or reminder lists its request as
    the engine has it now (read as the person who may confirm), not as the proposal copied it."""
    request = None
    if p.action in ABOUT_A_REQUEST and p.actor:
        try:
            request = await engine.get_request(p.request_id, p.actor)
        except WorkflowError as e:  # gone or not theirs since: the card says what was proposed
            log.warning("confirm_card_request_unread", request_id=p.request_id, error=e.message)
    return confirm_card(p, reader_, engine=engine, request=request)


def confirm_card(
    p: ProposalReady,
    reader_: Reader | str,
    *,
    engine: Engine | None = None,
    request: Request | None = None,
) -> Card:
    """The proposal's exact contents with [Submit|Approve|Reject|Withdraw|…] [Cancel].

    Every word is in the reader's language. The agent's answer above the card already says
    what was prepared, so the card carries the facts; the summary is shown only where there
    are no facts, and only when it is written in the reader's language. Pass `engine` to
    show leave types and form labels by name, and `request` (see `proposal_card`) to list the
    request a decision, withdrawal or reminder is about. Only `p.confirm_by` can click.
    """
    locale = reader(reader_).locale
    verb, style = wording.confirm_label(p, locale)
    if request is not None and engine is not None:
        pairs = wording.about_request_facts(p.action, request, p.actor, engine, reader_)
    else:
        pairs = wording.proposal_facts(p.action, p.request_id, p.fields, engine, locale)
    facts = [Fact(k, v) for k, v in pairs]
    lead = []  # the answer above already says what was prepared: the summary only stands in for facts
    if not facts and p.summary.strip() and detect_locale(p.summary, locale) == locale:
        lead.append(Paragraph(p.summary.strip()))
    body = []
    for key in wording.LONG_FIELDS:
        value = p.fields.get(key)
        if isinstance(value, str) and value.strip():
            label = wording.long_label(key, p.action, locale)
            body.append(Paragraph(truncate(value.strip(), REASON_MAX), label=label, literal=True))
    context = [say("line.only_you", locale, verb=verb, who=p.confirm_by)]
    if p.request_id and p.action != "delegate":
        context.append(p.request_id)
    return Card(
        fallback=p.summary.strip() if lead else confirm_title(p, locale),
        title=confirm_title(p, locale),
        tone=Tone.ASK,
        lead=tuple(lead),
        facts=tuple(facts),
        body=tuple(body),
        context=tuple(context),
        actions=(
            Action(ActionKind.PENDING_CONFIRM, verb, style, pending_id=p.pending_id),
            Action(
                ActionKind.PENDING_CANCEL, say("button.cancel", locale), pending_id=p.pending_id
            ),
        ),
    )


def confirm_card_closed(
    summary: str,
    outcome: str,
    reader_: Reader | str,
    *,
    ok: bool = True,
    replaced: bool = False,
    ref: str = "",
) -> Card:
    """The confirm card after a click: what it was about and what happened, no buttons.

    `ref` (the request's id) stays the last small line, as on the live card, for whoever needs
    to quote it; the summary a person reads names the request by its facts.
    """
    locale = reader(reader_).locale
    lead = [Paragraph(summary.strip())] if summary.strip() else []
    lead.append(Paragraph(outcome.strip() or "…", strong=True))
    sep = say("fallback.dash", locale, text=summary.strip()) if summary.strip() else ""
    return Card(
        fallback=f"{outcome}{sep}",
        title=say(
            "confirm.title.replaced"
            if replaced
            else ("confirm.title.done" if ok else "confirm.title.cancelled"),
            locale,
        ),
        tone=Tone.APPROVED if ok else Tone.CLOSED,
        lead=tuple(lead),
        context=(ref,) if ref else (),
    )
