"""Card lifecycle: after each transition, every card about a request shows where it stands now.

The requester's thread card says what happened so far and who has it now; an approver's
card keeps its buttons only while its step is open and theirs, and otherwise says what
became of that step and where the request is now; a notice keeps its news ("your request
went to 王芳") and says where the request is now; a superseded confirm card says it was
replaced. Each card is drawn in its reader's language; a platform supplies `update`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog

from agent.events import ProposalReady
from bot import wording
from bot.conversation.registry import CardRef, CardRegistry, Role
from bot.notices import Kind, Notice, Plan
from bot.presentation.card_views import CardView, Closed, Drawn, StepClosed
from bot.presentation.counter import counter_card
from bot.presentation.requests import STATUS_OUTCOMES, requester_notice
from bot.wording import leave_dates, say
from workflow.config import Person
from workflow.engine import Engine
from workflow.errors import WorkflowError
from workflow.models import (
    CounterStatus,
    PendingAction,
    PendingKind,
    Request,
    RequestStatus,
    StepStatus,
)
from workflow.transactions import Group

log = structlog.get_logger("cards")
LIVE = "live"

# Redraw one card; False when the card is gone (deleted) and should be forgotten.
Update = Callable[[CardRef, CardView], Awaitable[bool]]
# Send one notice to one person once; where it is, when this call sent it.
Send = Callable[[Notice, Person], Awaitable[str | None]]


def summary_of(req: Request, engine: Engine, locale: str, viewer: str | None = None) -> str:
    """The first line of a request's card once confirmed: what it is, not its id."""
    return wording.request_named(req, engine, locale, viewer)


def _decided(req: Request) -> list[int]:
    """The steps a person decided so far, by index."""
    return [
        s.index
        for s in req.steps
        if s.status in (StepStatus.APPROVED, StepStatus.REJECTED) and s.decided_by
    ]


def state_line(req: Request, engine: Engine, locale: str) -> str:
    """Where a request stands, for its requester's card: every decision so far, then what is next."""
    decided = [wording.decision_text(req, i, engine, locale)[1] for i in _decided(req)]
    sep = say("word.semicolon", locale)
    waiting = wording.waiting_for(req, engine, locale)
    if waiting is not None:
        if not decided:
            return say("wording.outcome_text.submitted", locale, where=waiting)
        return say("line.decided_now", locale, decided=sep.join(decided), waiting=waiting)
    match req.status:
        case RequestStatus.APPROVED if decided:
            return sep.join(decided)
        case RequestStatus.APPROVED:
            return say("wording.outcome_text.submitted_and_approved_automatically", locale)
        case RequestStatus.REJECTED if decided:
            return decided[-1]
        case RequestStatus.WITHDRAWN:
            return say("wording.outcome_text.withdrawn", locale)
        case RequestStatus.EXPIRED:
            return say("wording.decision_text.expired_without_a_decision", locale)
    return wording.outcome_text("submit", req, engine, locale)


def fingerprint(req: Request) -> str:
    """What a card drawn from this request depends on: equal prints, equal cards."""
    step = req.open_step()
    steps = ",".join(f"{s.status.value}:{s.assignee}" for s in req.steps)
    counter = req.counter.status.value if req.counter else ""
    return (
        f"{req.status.value}|{req.current_step}|{step.assignee if step else ''}|{steps}"
        f"|{live_mark(req)}|{counter}"
    )


def live_mark(req: Request) -> str:
    """A live approver card's mark: the dates it shows (an accepted counter-offer moves them)."""
    if not req.is_leave:
        return LIVE
    f = req.fields
    return f"{LIVE}:{f.get('start')}:{f.get('end')}:{bool(f.get('start_half'))}:{bool(f.get('end_half'))}"


def state_news(req: Request, engine: Engine, locale: str) -> tuple[str, str]:
    """(outcome, sentence) of a notice whose own news is no longer so: its state line, and the
    outcome that line tells, which picks the notice's mark and colour as a notice telling it
    first would ("Approved by Emma Clarke …; now waiting for 刘洋" is approved, not submitted)."""
    line = state_line(req, engine, locale)
    if (ended := STATUS_OUTCOMES.get(req.status)) is not None:
        return ended, line
    if req.open_step() is None:
        return "info", line
    return ("approved" if _decided(req) else "submitted"), line


def _notice_view(
    card: CardRef, req: Request, engine: Engine, balance: float | None
) -> CardView | None:
    """A notice redrawn: the news as it was told, the request as it is now."""
    match card.notice:
        case Kind.UPDATE:
            reader = wording.in_zone(card.locale, engine, card.holder)
            told, data = (card.outcome, card.summary), card.data
            if told != wording.headline(card.event, req, engine, card.locale, card.data):
                # the news is no longer so ("went to 王芳" once she approved): where it stands now,
                # without the comment that came with that news
                told = state_news(req, engine, card.locale)
                data = {}
            notice = requester_notice(card.event, req, engine, reader, data, told=told)
            return Drawn(notice)
        case Kind.COUNTER_OFFER if req.counter is not None:  # answered or lapsed: no buttons
            reader = wording.in_zone(card.locale, engine, card.holder)
            return Drawn(counter_card(req, engine, reader, balance))
        case Kind.ESCALATED_FROM:
            # "…now waits for David; you can still decide it": true only while the step is open
            step = req.open_step()
            if step is not None and (step.index, step.assignee) == (
                card.step,
                card.data.get("assignee"),
            ):
                return None
            return StepClosed(req, card.step if card.step is not None else 0)
    return None  # an expiry notice: the request cannot move after it


def _as_drawn(req: Request, engine: Engine, card: CardRef) -> str:
    """A request as a card drawn before an accepted suggestion showed it: its earlier dates
    ("Priya Patel: Annual leave, Mon 14 Dec 2026 – Wed 16 Dec 2026"); else as it is now."""
    c = req.counter
    if c is None or c.status is not CounterStatus.ACCEPTED or not c.was:
        return summary_of(req, engine, card.locale, card.holder)
    kind = wording.leave_type_name(engine, req.fields["leave_type"], card.locale)
    was = say("planner.leave_on", card.locale, kind=kind, dates=leave_dates(c.was, card.locale))
    return wording.whose(wording.name_of(engine, req.requester), was, card.locale)


def view_for(
    card: CardRef, req: Request, engine: Engine, balance: float | None = None
) -> CardView | None:
    """What `card` should show for the request as it is; None for a card left as it is.

    `balance`: the requester's balance now (RequestView's), which a counter-offer card shows.
    """
    if card.role is Role.THREAD:
        # the draft was confirmed; the line says what became of the request since
        summary = summary_of(req, engine, card.locale, card.holder)
        return Closed(summary, state_line(req, engine, card.locale), ref=req.id)
    if card.role is Role.NOTICE:
        return _notice_view(card, req, engine, balance)
    step = req.open_step()
    if step is not None and step.index == card.step and step.assignee == card.holder:
        if card.shown.startswith(f"{LIVE}:") and card.shown != live_mark(req):
            # drawn before a counter-offer moved the dates: the newer card decides them. It is
            # "Replaced", not "Cancelled" (the request goes on), and names the dates it showed.
            moved = say(
                "line.dates_changed", card.locale, dates=leave_dates(req.fields, card.locale)
            )
            return Closed(_as_drawn(req, engine, card), moved, ok=False, replaced=True, ref=req.id)
        return None
    return StepClosed(req, card.step if card.step is not None else req.current_step or 0)


class CardLifecycle:
    """Brings registered cards up to date; one per platform delivery or bot."""

    def __init__(self, engine: Engine, registry: CardRegistry) -> None:
        self.engine = engine
        self.registry = registry

    async def refresh(self, req: Request, platform: str, update: Update) -> int:
        """Redraw every card of `req` on `platform` that no longer shows its current state."""
        done, now = 0, fingerprint(req)
        # a card that already shows this state is neither drawn again nor read for
        stale = [c for c in await self.registry.cards(req.id, platform) if c.shown != now]
        balance = None
        if any(c.notice == Kind.COUNTER_OFFER for c in stale):
            # the counter-offer card keeps its 'balance after' fact: read it as the first drawing did
            balance = (await self.engine.request_view(req.id, req.requester)).balance_after
        for card in stale:
            view = view_for(card, req, self.engine, balance)
            if view is None:
                continue
            if not await update(card, view):
                await self.registry.forget(req.id, card)
                continue
            await self.registry.add(req.id, card.model_copy(update={"shown": now}))
            done += 1
        if done:
            log.info("cards_refreshed", request_id=req.id, platform=platform, cards=done)
        return done

    async def deliver(self, plan: Plan, platform: str, send: Send, update: Update) -> None:
        """A platform's share of an event: its notices sent, then every card of the request redrawn."""
        for notice in plan.notices:
            person = self.engine.person(notice.person)
            where = await send(notice, person)
            if where is not None:
                await self.notice_sent(plan, notice, person, platform, where)
        if plan.request is not None:
            await self.refresh(plan.request, platform, update)

    async def notice_sent(
        self, plan: Plan, notice: Notice, person: Person, platform: str, address: str
    ) -> None:
        """A card or notice about a request went out: record it so it is redrawn as the request moves.

        Approver and reminder cards by their step; every other notice with what it told (its
        headline in its reader's language, the event and its data), so that a redraw keeps
        the news and shows where the request is now.
        """
        req = plan.request
        if req is None:
            return
        if notice.kind in (Kind.APPROVAL_CARD, Kind.REMINDER_CARD):
            card = CardRef(
                platform=platform,
                address=address,
                role=Role.REMINDER if notice.kind is Kind.REMINDER_CARD else Role.APPROVER,
                holder=person.id,
                locale=person.locale,
                step=notice.step,
                shown=live_mark(req) if notice.view is not None else fingerprint(req),
            )
        else:
            outcome, told = "", ""
            if notice.kind is Kind.UPDATE:  # the headline as it was sent, from the same request
                outcome, told = wording.headline(
                    notice.event_type, req, self.engine, person.locale, plan.data
                )
            card = CardRef(
                platform=platform,
                address=address,
                role=Role.NOTICE,
                holder=person.id,
                locale=person.locale,
                step=notice.step,
                shown=fingerprint(req),
                summary=told,
                outcome=outcome,
                notice=notice.kind.value,
                event=notice.event_type,
                data=plan.data,
            )
        await self.registry.add(req.id, card)

    async def confirm_posted(
        self,
        person: Person,
        proposal: ProposalReady,
        platform: str,
        address: str,
        update: Update,
        *,
        locale: str | None = None,
        also: Group | None = None,
    ) -> None:
        """A confirm card was posted: record it, and mark the draft it supersedes as replaced.

        `locale` is the thread's language, which the card was shown in (default: the person's).
        `also`: a write of the caller's (the turn's journal) sent with the record, one round trip.
        """
        card = CardRef(
            platform=platform,
            address=address,
            role=Role.CONFIRM,
            holder=person.id,
            locale=locale or person.locale,
            summary=proposal.summary,
        )
        await self.registry.add_confirm(proposal.pending_id, card, *([also] if also else []))
        if proposal.replaces:
            await self.retire(proposal.replaces, platform, update)

    async def retire(self, pending_id: str, platform: str, update: Update) -> None:
        """Every card of a superseded draft on `platform` now says so, with no buttons."""
        for old in await self.registry.confirm_cards(pending_id, platform):
            text = wording.replaced_by_card_below(old.locale)
            try:
                pending = await self.engine.pending_action(pending_id, old.holder)
            except WorkflowError:  # gone: the line it was posted with
                summary = old.summary
            else:
                summary = await self.named(pending, old.holder, old.locale) or old.summary
            await update(old, Closed(summary, text, ok=False, replaced=True))

    async def named(self, pending: PendingAction, viewer: str, locale: str) -> str | None:
        """What a closed confirm card was about, by its request's facts ("Sick leave, Thu 3 Dec
        2026 (1 working day)", as a confirmed card says it); None for a delegation or a request
        gone. Not the agent's answer the card was posted under: that is right above the card,
        and its "you will have 8 days left" no longer holds once the draft is replaced or cancelled."""
        if pending.kind is PendingKind.DELEGATE or not pending.request_id:
            return None
        try:
            req = await self.engine.get_request(pending.request_id, viewer)
        except WorkflowError:
            return None
        return summary_of(req, self.engine, locale, viewer)

    async def registered_summary(self, pending_id: str) -> str:
        """The first line a confirm card was posted with, if the registry knows it."""
        cards = await self.registry.confirm_cards(pending_id)
        return cards[0].summary if cards else ""
