"""What a card shows, independent of any platform: each platform renders these and nothing else.

A view is computed in its reader's language by the core; a platform turns it into Block Kit,
Feishu card JSON or terminal text and sends or updates it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.presentation.model import Card
from workflow.models import Request
from workflow.queries import RequestView


@dataclass(frozen=True)
class Closed:
    """A confirm card after its click (or the requester's card of a request): what it was, what it is now."""

    summary: str
    outcome: str
    ok: bool = True
    replaced: bool = False  # a newer draft superseded it: headed "Replaced", not "Cancelled"


@dataclass(frozen=True)
class StepClosed:
    """An approver's card whose step is decided, withdrawn, expired or no longer theirs: no buttons."""

    request: Request
    step: int


@dataclass(frozen=True)
class StepLive:
    """An approver's card with live [Approve] [Reject]: the step is open and theirs."""

    view: RequestView
    reminder_note: str | None = None
    reminder: bool = False


@dataclass(frozen=True)
class RejectForm:
    """The reason to reject, asked before rejecting (a modal on Slack, a form card on Feishu)."""

    request: Request
    step: int


@dataclass(frozen=True)
class CounterForm:
    """Other dates to suggest, asked before suggesting them (a Slack modal, a Feishu form card)."""

    request: Request
    step: int


@dataclass(frozen=True)
class Drawn:
    """A card the core has drawn already (a notice redrawn): each platform only serializes it."""

    card: Card


CardView = Closed | StepClosed | StepLive | RejectForm | CounterForm | Drawn
