"""The leave form as data: its fields, labels, choices, what is required, and what came back.

Slack's /leave modal and Feishu's "Request leave" card are serializers of this one model, so
they cannot drift apart (the same fields, labels, required marks and hints, in the reader's
language); both submit through `bot.conversation.forms.submit_leave`, the one validation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.wording import field_label, say
from workflow.config import Person
from workflow.engine import Engine

REASON_MAX = 500
LEAVE_FORM = "leave_form"


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


def leave_fields(
    leave_type: object, start: object, end: object, halves: object, reason: object
) -> dict[str, Any]:
    """What a platform read from the form → the engine's fields (missing values → None).

    Dates are cut to their day (Feishu sends "2026-12-03 +0800"); the half days are always
    booleans (an unticked box is False); a blank reason is None.
    """

    def day(value: object) -> str | None:
        return str(value)[:10] if isinstance(value, str) and value.strip() else None

    ticked = {h for h in halves if isinstance(h, str)} if isinstance(halves, list) else set()
    return {
        "leave_type": leave_type if isinstance(leave_type, str) and leave_type else None,
        "start": day(start),
        "end": day(end),
        "start_half": "start_half" in ticked,
        "end_half": "end_half" in ticked,
        "reason": reason.strip() or None if isinstance(reason, str) else None,
    }
