"""A card or notice as data: built once in its reader's language, serialized by each surface.

Slack (Block Kit), Feishu (card JSON), the terminal and the sandbox only turn a `Card` into
their own format; none of them chooses words. Text in a card is plain (no markup): each
serializer escapes it for its format. `literal` paragraphs hold what people wrote (reasons,
comments, notes) and are shown exactly as typed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, tzinfo
from enum import StrEnum
from typing import Literal
from zoneinfo import ZoneInfo

from workflow.config import Person


class Tone(StrEnum):
    """What a card is about, so a surface can pick a colour or a mark."""

    INFO = "info"
    SUBMITTED = "submitted"
    APPROVED = "approved"  # a step approved
    DONE = "done"  # the whole request approved
    REJECTED = "rejected"
    WITHDRAWN = "withdrawn"
    EXPIRED = "expired"
    MOVED = "moved"  # the step went to someone else
    REMINDER = "reminder"
    ASK = "ask"  # a card waiting for a click
    CLOSED = "closed"  # a card whose buttons are gone (cancelled, replaced)


class ActionKind(StrEnum):
    """What a button does; each surface turns it into its own button value."""

    PENDING_CONFIRM = "pending_confirm"
    PENDING_CANCEL = "pending_cancel"
    REQUEST_APPROVE = "request_approve"
    REQUEST_REJECT = "request_reject"
    COUNTER_OPEN = "counter_open"  # [Suggest other dates] on the approver's card
    COUNTER_ACCEPT = "counter_accept"  # the requester's answer to suggested dates
    COUNTER_DECLINE = "counter_decline"
    BULK_APPROVE = "bulk_approve"  # [Approve selected]: acts on a checklist's ticked items


Style = Literal["primary", "danger", "default"]


@dataclass(frozen=True)
class Dialog:
    """An "are you sure?" before a button acts."""

    title: str
    text: str
    confirm: str
    deny: str


@dataclass(frozen=True)
class Action:
    """A button: its words, what it does, and the pending action or request step it is for."""

    kind: ActionKind
    label: str
    style: Style = "default"
    pending_id: str | None = None
    request_id: str | None = None
    step: int | None = None
    dialog: Dialog | None = None


@dataclass(frozen=True)
class Fact:
    label: str
    value: str


@dataclass(frozen=True)
class Paragraph:
    """A paragraph: optionally under a bold label, optionally bold itself (a headline)."""

    text: str
    label: str | None = None
    strong: bool = False
    literal: bool = False  # what a person wrote: shown as typed, never as markup
    tone: Tone | None = None  # set on a headline that a surface may mark (an emoji)


@dataclass(frozen=True)
class Checklist:
    """Items to tick, and the button that acts on the ticked ones ([Approve selected]).

    Each option is (value, label); the value is `<request_id>:<step>`.
    """

    options: tuple[tuple[str, str], ...]
    action: Action


@dataclass(frozen=True)
class Card:
    """One message: a title, paragraphs, facts as label/value pairs, context lines, buttons.

    Order on every surface: banner, title, lead, facts, body, context, actions.
    `fallback` is the one-line text for notifications and for surfaces without cards.
    """

    fallback: str
    title: str | None = None
    tone: Tone = Tone.INFO
    banner: str | None = None  # a line above everything (a reminder's note)
    lead: tuple[Paragraph, ...] = ()
    facts: tuple[Fact, ...] = ()
    body: tuple[Paragraph, ...] = ()
    context: tuple[str, ...] = ()
    actions: tuple[Action, ...] = ()
    checklist: Checklist | None = None  # after the context: ticks and their button

    @property
    def paragraphs(self) -> tuple[Paragraph, ...]:
        return self.lead + self.body


@dataclass(frozen=True)
class Reader:
    """Who reads a card: their language and time zone (None: each time in its own zone, named)."""

    locale: str = "en"
    tz: tzinfo | None = None

    @classmethod
    def of(cls, person: Person, locale: str | None = None) -> Reader:
        """`person` reading in their own language, or in `locale` (the language of a thread)."""
        return cls(locale or person.locale, ZoneInfo(person.timezone))

    def local(self, at: datetime) -> datetime:
        return at.astimezone(self.tz) if self.tz is not None and at.tzinfo is not None else at


def reader(value: Reader | str) -> Reader:
    """A Reader from a Reader or a bare locale (builders accept either)."""
    return value if isinstance(value, Reader) else Reader(value)
