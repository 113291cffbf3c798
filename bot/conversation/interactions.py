"""Every click, once for every surface: confirm, cancel, approve, open-reject, reject, back, withdraw.

A platform parses who clicked what and calls one method here; it gets an `Answer`: whether it
worked, the sentence to show the clicker (a toast, an ephemeral message, a terminal line),
and what the clicked card should now show. The engine authorizes; a refusal changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import structlog

from agent.memory import ThreadMemory
from agent.refusals import refusal_text, refused_fields
from bot import wording
from bot.conversation.bulk import BulkClicks
from bot.conversation.counter import CounterClicks
from bot.conversation.lifecycle import CardLifecycle, fingerprint, state_line, summary_of
from bot.conversation.registry import CardRef, Role
from bot.presentation.card_views import CardView, Closed, RejectForm, StepClosed, StepLive
from bot.readback import Found, decision_after_failure, until_known
from workflow.config import Person
from workflow.engine import Engine, Outcome
from workflow.errors import (
    InvalidState,
    NotFound,
    OutcomeUnknown,
    StoreUnavailable,
    WorkflowError,
)
from workflow.models import PendingAction, PendingKind, PendingStatus, Request
from workflow.payloads import DecidePayload, DelegatePayload, pending_payload

log = structlog.get_logger("clicks")
Tone = Literal["success", "info", "error"]


@dataclass(frozen=True)
class At:
    """Where the clicked card is: its platform and address (as the card registry keeps them)."""

    platform: str
    address: str


@dataclass(frozen=True)
class Answer:
    """What a click did: the clicker's sentence, and the clicked card's new view (None: unchanged)."""

    ok: bool
    text: str
    tone: Tone
    card: CardView | None = None
    outcome: Outcome | None = None
    error: WorkflowError | None = None
    locale: str | None = None  # the card's language, when it is the thread's, not the person's
    # a refusal over fields: {field name: why}, in the reader's words, for a form to show on them
    fields: dict[str, str] = field(default_factory=dict)


def _superseded(pending: PendingAction) -> bool:
    return pending.status is PendingStatus.CANCELLED and bool(
        (pending.result or {}).get("replaced_by")
    )


class Interactions(CounterClicks, BulkClicks):
    """The conversation core's clicks over one engine, one thread memory and the card lifecycle."""

    def __init__(self, engine: Engine, memory: ThreadMemory, cards: CardLifecycle) -> None:
        self.engine = engine
        self.memory = memory
        self.cards = cards

    # --- confirm cards ------------------------------------------------------------------------

    def _refused(self, e: WorkflowError, locale: str, card: CardView | None = None) -> Answer:
        log.info("click_refused", code=e.code, error=e.message)
        text, fields = refusal_text(e, locale), refused_fields(e, locale)
        return Answer(False, text, "error", card, error=e, locale=locale, fields=fields)

    async def _summary(self, pending: PendingAction, viewer: str, locale: str) -> str:
        """The first line of a pending action's card: what it is about, by its request's facts;
        else the line the card was posted with (a delegation; a request gone or not theirs)."""
        if (named := await self.cards.named(pending, viewer, locale)) is not None:
            return named
        return await self.cards.registered_summary(pending.id)

    async def _locale(self, pending_id: str, person: Person) -> str:
        """The language the confirm card was shown in (its thread's), else the person's own."""
        cards = await self.cards.registry.confirm_cards(pending_id)
        return cards[0].locale if cards else person.locale

    async def _replaced(self, pending: PendingAction, person: Person) -> Answer:
        locale = await self._locale(pending.id, person)
        text = wording.replaced_by_card_below(locale)
        summary = await self._summary(pending, person.id, locale)
        error = InvalidState(text, zh=wording.replaced_by_card_below("zh"))
        closed = Closed(summary, text, ok=False, replaced=True)
        return Answer(False, text, "error", closed, error=error, locale=locale)

    async def confirm(
        self, person: Person, pending_id: str, *, thread: str | None = None, at: At | None = None
    ) -> Answer:
        """Run a pending action for the person it is bound to; its card says what happened."""
        locale = await self._locale(pending_id, person)
        try:
            pending = await self.engine.pending_action(pending_id, person.id)
        except WorkflowError as e:
            return self._refused(e, locale)
        if _superseded(pending):
            return await self._replaced(pending, person)
        try:
            outcome = await self._confirm_once(pending_id, person.id)
        except WorkflowError as e:
            closed = pending.status is PendingStatus.CANCELLED or isinstance(e, NotFound)
            summary = await self._summary(pending, person.id, locale) if closed else ""
            return self._refused(
                e, locale, Closed(summary, refusal_text(e, locale), ok=False) if closed else None
            )
        req = outcome.request
        # a done action keeps only a delegation's and a decision's payload (PendingAction.close)
        if pending.kind is PendingKind.DELEGATE:  # a delegation belongs to no request
            payload = pending_payload(pending)
            assert isinstance(payload, DelegatePayload)
            who = wording.name_of(self.engine, payload.delegate)
            result = wording.delegated_text(who, payload.start, payload.end, locale)
            card = Closed("", result)
        elif req is None:  # the engine returns the request of every other kind
            return self._refused(
                NotFound(f"Request {pending.request_id} no longer exists."), locale
            )
        else:
            result = wording.outcome_text(outcome.kind.value, req, self.engine, locale)
            summary = summary_of(req, self.engine, locale, person.id)
            if outcome.kind is PendingKind.SUBMIT:
                result = state_line(req, self.engine, locale)
            card = Closed(summary, result, ref=req.id)
            # a suggestion's card keeps its outcome: the requester's answer comes on cards of its own
            if at is not None and outcome.kind is not PendingKind.COUNTER:
                await self._register(req, pending, person, at, shown=outcome.kind, locale=locale)
        await self._note(thread, f"({person.name}: {result})")
        return Answer(True, result, "success", card, outcome=outcome, locale=locale)

    async def _confirm_once(self, pending_id: str, actor: str) -> Outcome:
        """engine.confirm (submit, decide, withdraw, remind, delegate), its answer the record's."""
        return await until_known(
            lambda: self.engine.confirm(pending_id, actor), "confirm", pending_id=pending_id
        )

    async def _register(
        self,
        req: Request,
        pending: PendingAction,
        person: Person,
        at: At,
        *,
        shown: PendingKind,
        locale: str,
    ) -> None:
        """A confirmed card becomes the reader's card of the request, redrawn as it moves on."""
        payload = pending_payload(pending) if pending.kind is PendingKind.DECIDE else None
        if isinstance(payload, DecidePayload):
            role, step = Role.APPROVER, payload.step
        else:
            role, step = Role.THREAD, None
        card = CardRef(
            platform=at.platform,
            address=at.address,
            role=role,
            holder=person.id,
            locale=locale,  # the thread's language: the card keeps it as it is redrawn
            step=step,
            # a submit card already shows the thread card's text; the others are redrawn next time
            shown=fingerprint(req) if shown is PendingKind.SUBMIT else "",
        )
        await self.cards.registry.add(req.id, card)

    async def _note(self, thread: str | None, line: str) -> None:
        """The outcome of a click goes into the thread's history, so the conversation knows it."""
        if thread:
            await self.memory.note(thread, line)

    async def cancel(self, person: Person, pending_id: str, *, thread: str | None = None) -> Answer:
        """Drop a pending action; its card says nothing was sent."""
        locale = await self._locale(pending_id, person)
        try:
            pending = await self.engine.pending_action(pending_id, person.id)
            if _superseded(pending):
                return await self._replaced(pending, person)
            pending = await self.engine.cancel(pending_id, person.id)
        except WorkflowError as e:
            return self._refused(e, locale)
        result = wording.outcome_text("cancelled", None, self.engine, locale)
        summary = await self._summary(pending, person.id, locale)
        await self._note(thread, f"({person.name}: {result})")
        return Answer(True, result, "info", Closed(summary, result, ok=False), locale=locale)

    # --- approver cards -------------------------------------------------------------------------

    async def _stale(self, request_id: str, step: int, person: Person) -> CardView | None:
        """The card of a step that is no longer open and theirs: closed; None if it still is."""
        try:
            req = await self.engine.get_request(request_id, person.id)
        except WorkflowError:
            return None
        open_ = req.open_step()
        if open_ is not None and open_.index == step and open_.assignee == person.id:
            return None
        return StepClosed(req, step)

    async def _read_back(
        self, person: Person, request_id: str, step: int, decision: str, e: OutcomeUnknown
    ) -> Answer:
        """The connection died with the decision on its way: the record says what happened."""
        back = await decision_after_failure(self.engine, request_id, step, person.id, decision)
        locale = person.locale
        match back.found:
            case Found.DONE:
                assert back.request is not None
                text = wording.say("answer.approved", locale) if decision == "approve" else None
                if text is None:
                    who = wording.name_of(self.engine, back.request.requester)
                    text = wording.say("answer.rejected_told", locale, who=who)
                return Answer(True, text, "success", StepClosed(back.request, step))
            case Found.NOT_DONE:
                return self._refused(
                    StoreUnavailable(
                        wording.say("error.store_unreachable", "en"),
                        zh=wording.say("error.store_unreachable", "zh"),
                    ),
                    locale,
                )
            case Found.OTHER:
                assert back.request is not None
                said = wording.decision_text(back.request, step, self.engine, locale)[1]
                return Answer(False, said, "info", StepClosed(back.request, step))
        return self._refused(e, locale)

    async def approve(self, person: Person, request_id: str, step: int) -> Answer:
        """Approve a step (its confirm dialog was the confirmation); the engine checks who may."""
        try:
            req = await self.engine.decide(request_id, step, person.id, "approve")
        except OutcomeUnknown as e:
            return await self._read_back(person, request_id, step, "approve", e)
        except WorkflowError as e:
            return self._refused(e, person.locale, await self._stale(request_id, step, person))
        text = wording.say("answer.approved", person.locale)
        return Answer(True, text, "success", StepClosed(req, step))

    async def open_reject(self, person: Person, request_id: str, step: int) -> Answer:
        """Reject asks for the reason first: the form, or the closed card of a decided step."""
        try:
            req = await self.engine.get_request(request_id, person.id)
        except WorkflowError as e:
            return self._refused(e, person.locale)
        open_ = req.open_step()
        if open_ is None or open_.index != step or open_.assignee != person.id:
            text = wording.say("answer.already_decided", person.locale)
            return Answer(False, text, "info", StepClosed(req, step))
        text = wording.say("answer.give_reason", person.locale)
        return Answer(True, text, "info", RejectForm(req, step))

    async def reject(self, person: Person, request_id: str, step: int, reason: str) -> Answer:
        """Reject a step with the reason the approver gave; the requester is told by the worker."""
        try:
            req = await self.engine.decide(request_id, step, person.id, "reject", reason.strip())
        except OutcomeUnknown as e:
            return await self._read_back(person, request_id, step, "reject", e)
        except WorkflowError as e:
            return self._refused(e, person.locale)
        who = wording.name_of(self.engine, req.requester)
        text = wording.say("answer.rejected_told", person.locale, who=who)
        return Answer(True, text, "success", StepClosed(req, step))

    async def back(self, person: Person, request_id: str) -> Answer:
        """Leave the reject form: the card as it is now, buttons only if the step is still theirs."""
        try:
            view = await self.engine.request_view(request_id, person.id)
        except WorkflowError as e:
            return self._refused(e, person.locale)
        step = view.request.open_step()
        if step is None or step.assignee != person.id:
            card: CardView = StepClosed(view.request, view.request.current_step or 0)
        else:
            card = StepLive(view)
        return Answer(True, wording.say("answer.ok", person.locale), "info", card)

    async def withdraw(self, person: Person, request_id: str) -> Answer:
        """Withdraw one's own request from a button (the Home tab's); the answer is the record's."""
        try:
            req = await until_known(
                lambda: self.engine.withdraw(request_id, person.id),
                "withdraw",
                request_id=request_id,
            )
        except WorkflowError as e:
            return self._refused(e, person.locale)
        text = state_line(req, self.engine, person.locale)
        closed = Closed(summary_of(req, self.engine, person.locale), text, ref=req.id)
        return Answer(True, text, "success", closed)

    async def form_submitted(self, person: Person, req: Request, at: At | None) -> Answer:
        """A form's Submit made a request: the form becomes the requester's card of it."""
        text = state_line(req, self.engine, person.locale)
        if at is not None:
            card = CardRef(
                platform=at.platform,
                address=at.address,
                role=Role.THREAD,
                holder=person.id,
                locale=person.locale,
                shown=fingerprint(req),
            )
            await self.cards.registry.add(req.id, card)
        closed = Closed(summary_of(req, self.engine, person.locale), text, ref=req.id)
        return Answer(True, text, "success", closed)

    def not_valid(self, locale: str) -> Answer:
        """A click whose value cannot be read: an old card of another version, or a forgery."""
        return Answer(False, wording.button_not_valid(locale), "error")
