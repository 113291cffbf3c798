"""The forms as data: their fields, labels, choices, defaults, what is required, what came back.

Slack's /leave modal and Feishu's "Request leave" card are serializers of the leave form, so
they cannot drift apart (the same fields, labels, required marks and hints, in the reader's
language); both submit through `bot.conversation.forms.submit_leave`, the one validation.
The approver's "suggest other dates" form is one description too: a Slack modal, a Feishu
form card and the terminal's prompts only render it, and every answer goes through
`counter_fields` to the core's `suggest_dates`, which checks it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from bot.wording import field_label, leave_dates, name_of, say
from workflow.config import Person
from workflow.engine import Engine
from workflow.models import Request

REASON_MAX = 500
NOTE_MAX = 500  # a note to the requester, as long as a reason
LEAVE_FORM = "leave_form"
COUNTER_FORM = "counter_form"
COUNTER_FIELDS = ("start", "end", "note")  # the engine's names: a refusal names one of them


class FieldKind(StrEnum):
    CHOICE = "choice"  # pick one option
    DATE = "date"
    FLAGS = "flags"  # tick any of the options
    TEXT = "text"  # several lines


@dataclass(frozen=True)
class Choice:
    value: str
    text: str


@dataclass(frozen=True)
class FormField:
    """One input: its name is the engine's field name (or `halves` for the two half-day flags)."""

    name: str
    kind: FieldKind
    label: str
    required: bool
    placeholder: str | None = None
    hint: str | None = None
    options: tuple[Choice, ...] = ()
    initial: str | tuple[str, ...] | None = None
    max_length: int | None = None
    error: str | None = None  # what was wrong with the last submission, in the reader's language


@dataclass(frozen=True)
class Form:
    form_id: str
    title: str
    submit: str
    cancel: str
    fields: tuple[FormField, ...]
    notes: tuple[str, ...]  # lines under the form: who approves, what is checked
    # lines above the fields, where the surface does not show the request itself above them
    # (a Slack modal covers the card; a Feishu form card and the terminal show the request)
    lead: tuple[str, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(f.error for f in self.fields)


HALF_FLAGS = ("start_half", "end_half")


def leave_form(
    person: Person,
    engine: Engine,
    locale: str,
    *,
    approvers: list[str],
    initial: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
) -> Form:
    """Type, first and last day, half days, reason, who approves: for `person`, in `locale`.

    `approvers` are display names from the engine's chain preview, in order; `initial` fills
    the fields (the engine's names) when the form is shown again, `errors` says what was wrong.
    """
    initial, errors = initial or {}, errors or {}
    process = engine.process("leave")

    def label(name: str) -> str:
        fd = process.field(name)
        return field_label(fd, locale) if fd is not None else say(f"form.leave.{name}", locale)

    kind = process.field("leave_type")
    allowed = set(kind.choices) if kind is not None and kind.choices else None
    types = [lt for lt in engine.config.leave_types if allowed is None or lt.key in allowed]
    reason_fd = process.field("reason")
    reason_max = min(reason_fd.max_length if reason_fd else REASON_MAX, 3000)
    hint = say("form.leave.reason_hint", locale)
    if needs := [lt.display_name(locale) for lt in types if lt.reason_required]:
        joined = say("word.list_sep", locale).join(needs)
        hint = say("form.leave.reason_required", locale, types=joined) + hint

    def date(name: str) -> FormField:
        value = initial.get(name)
        return FormField(
            name,
            FieldKind.DATE,
            label(name),
            required=True,
            placeholder=say("form.leave.pick_date", locale),
            initial=str(value) if value else None,
            error=errors.get(name),
        )

    ticked = tuple(flag for flag in HALF_FLAGS if initial.get(flag))
    chain = " → ".join(approvers) if approvers else say("form.leave.chain_later", locale)
    fields = (
        FormField(
            "leave_type",
            FieldKind.CHOICE,
            label("leave_type"),
            required=True,
            placeholder=say("form.leave.choose_type", locale),
            options=tuple(Choice(lt.key, lt.display_name(locale)) for lt in types)[:100],
            initial=str(initial["leave_type"]) if initial.get("leave_type") else None,
            error=errors.get("leave_type"),
        ),
        date("start"),
        date("end"),
        FormField(
            "halves",
            FieldKind.FLAGS,
            say("form.leave.halves", locale),
            required=False,
            placeholder=say("form.leave.whole_days", locale),
            options=tuple(Choice(flag, label(flag)) for flag in HALF_FLAGS),
            initial=ticked or None,
            error=errors.get("start_half") or errors.get("end_half"),
        ),
        FormField(
            "reason",
            FieldKind.TEXT,
            label("reason"),
            required=False,
            hint=hint,
            initial=str(initial["reason"]) if initial.get("reason") else None,
            max_length=reason_max,
            error=errors.get("reason"),
        ),
    )
    return Form(
        LEAVE_FORM,
        say("form.leave.title", locale),
        say("button.submit", locale),
        say("button.cancel", locale),
        fields,
        (
            say("form.leave.approval", locale, chain=chain),
            say("form.leave.checked", locale, who=person.name),
        ),
    )


def form_day(value: object) -> str | None:
    """A date a form sent, cut to its day (Feishu sends "2026-12-03 +0800"); blank → None."""
    return value.strip()[:10] if isinstance(value, str) and value.strip() else None


def leave_fields(
    leave_type: object, start: object, end: object, halves: object, reason: object
) -> dict[str, Any]:
    """What a platform read from the form → the engine's fields (missing values → None).

    Dates are cut to their day (Feishu sends "2026-12-03 +0800"); the half days are always
    booleans (an unticked box is False); a blank reason is None.
    """

    ticked = {h for h in halves if isinstance(h, str)} if isinstance(halves, list) else set()
    return {
        "leave_type": leave_type if isinstance(leave_type, str) and leave_type else None,
        "start": form_day(start),
        "end": form_day(end),
        "start_half": "start_half" in ticked,
        "end_half": "end_half" in ticked,
        "reason": reason.strip() or None if isinstance(reason, str) else None,
    }


def counter_form(
    req: Request, engine: Engine, locale: str, *, errors: Mapping[str, str] | None = None
) -> Form:
    """Other dates for `req`, asked of its approver: first and last day (the dates asked for
    to start from), and an optional note to the requester, in `locale`."""
    errors = errors or {}
    who = name_of(engine, req.requester)

    def day(name: str) -> FormField:
        value = req.fields.get(name)
        return FormField(
            name,
            FieldKind.DATE,
            say(f"form.counter.{name}", locale),
            required=True,
            initial=str(value)[:10] if value else None,
            error=errors.get(name),
        )

    note = FormField(
        "note",
        FieldKind.TEXT,
        say("form.counter.note", locale, who=who),
        required=False,
        placeholder=say("form.counter.title", locale),
        max_length=NOTE_MAX,
        error=errors.get("note"),
    )
    return Form(
        COUNTER_FORM,
        say("form.counter.title", locale),
        say("button.send", locale),
        say("button.cancel", locale),
        (day("start"), day("end"), note),
        (),
        lead=(say("line.asked_dates", locale, dates=leave_dates(req.fields, locale)),),
    )


def counter_fields(start: object, end: object, note: object) -> dict[str, str | None]:
    """What a surface read from the counter form → `suggest_dates`'s start, end and note.

    Dates are cut to their day (Feishu sends "2026-12-16 +0800"); a blank one is None (the
    core asks for the first day, and takes it for a blank last day); a blank note is None.
    """

    text = note.strip() if isinstance(note, str) else ""
    return {"start": form_day(start), "end": form_day(end), "note": text or None}


def counter_end(start: date, end: date, asked: Request) -> date:
    """The last day a counter form sends: `end` as given, or `start` when the last day was left
    at its first value (the day asked for) and the new first day is after it — a one-day
    suggestion, not a refusal that sends the approver to the form again (the terminal asks
    the last day after the first, Slack and Feishu fill it with the day asked for)."""
    left = str(asked.fields.get("end") or "")[:10] == end.isoformat()
    return start if left and end < start else end
