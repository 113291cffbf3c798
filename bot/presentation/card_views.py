"""The card views and the card each one is: what a card shows, decided once for every platform.

The conversation core picks a view (a confirm card closed, an approver's card live or closed,
a form to ask for) in its reader's language; `card_of` makes it a presentation `Card`, which
every platform serializes (Block Kit, Feishu card JSON, text). Only a form is a platform's own
(a modal on Slack, a card with inputs on Feishu).
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.presentation import confirm, requests
from bot.presentation.model import Card, Reader
from workflow.engine import Engine
from workflow.models import Request
from workflow.queries import RequestView


@dataclass(frozen=True)
class Closed:
    """A confirm card after its click (or the requester's card of a request): what it was, what it is now."""

    summary: str
    outcome: str
    ok: bool = True
    replaced: bool = False  # a newer draft superseded it: headed "Replaced", not "Cancelled"
    # the request's id as the live card showed it, its last small line (never in the summary)
    ref: str = ""


@dataclass(frozen=True)
class _OfStep:
    """A view about one step of a request."""

    request: Request
    step: int


@dataclass(frozen=True)
class StepClosed(_OfStep):
    """An approver's card whose step is decided, withdrawn, expired or no longer theirs: no buttons."""


@dataclass(frozen=True)
class StepLive:
    """An approver's card with live [Approve] [Reject]: the step is open and theirs."""

    view: RequestView
    reminder_note: str | None = None
    reminder: bool = False


@dataclass(frozen=True)
class RejectForm(_OfStep):
    """The reason to reject, asked before rejecting (a modal on Slack, a form card on Feishu)."""


@dataclass(frozen=True)
class CounterForm(_OfStep):
    """Other dates to suggest, asked before suggesting them (a Slack modal, a Feishu form card)."""


@dataclass(frozen=True)
class Drawn:
    """A card the core has drawn already (a notice redrawn): each platform only serializes it."""

    card: Card


CardView = Closed | StepClosed | StepLive | RejectForm | CounterForm | Drawn


def card_of(view: CardView, engine: Engine, reader: Reader | str) -> Card:
    """The card a view shows its reader.

    Raises:
        ValueError: a reject form (each platform asks for the reason its own way).
    """
    match view:
        case Closed():
            return confirm.confirm_card_closed(
                view.summary, view.outcome, reader, ok=view.ok, replaced=view.replaced, ref=view.ref
            )
        case StepClosed():
            return requests.approval_card_closed(view.request, engine, reader, view.step)
        case StepLive():
            reminder = (view.reminder_note or "") if view.reminder else None
            return requests.approval_card(view.view, engine, reader, reminder=reminder)
        case Drawn():
            return view.card
        case RejectForm() | CounterForm():
            raise ValueError("a form is each platform's own: a modal, or a card with inputs")
