"""Feishu's "Request leave" form card: the same fields and checks as Slack's /leave modal.

Opened from the bot's menu (event key `request_leave`) or by writing `/leave` (`/请假`); its
Submit is the confirmation and goes through `bot.conversation.forms.submit_leave`; errors come
back on the same card, under the field they concern.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.conversation.buttons import LEAVE_FORM_SUBMIT
from bot.feishu.cards import REASON_MAX, Card, button, card, div, escape, note, plain
from bot.presentation.forms import FieldKind, Form, FormField, leave_fields, leave_form

MENU_KEY = "request_leave"
COMMANDS = frozenset({"/leave", "/请假"})


def _labelled(label: str, element: Card, error: str | None) -> list[Card]:
    out = [div(f"**{escape(label)}**"), element]
    if error:
        out.append(note("⚠️ " + error))
    return out


def _element(f: FormField) -> Card:
    """A form field as a Feishu form element (name = the field's name)."""
    options = [{"text": plain(c.text), "value": c.value} for c in f.options]
    el: Card = {"name": f.name}
    if f.placeholder:
        el["placeholder"] = plain(f.placeholder)
    match f.kind:
        case FieldKind.CHOICE:
            el |= {"tag": "select_static", "options": options}
            if f.initial:
                el["initial_option"] = f.initial
        case FieldKind.DATE:
            el["tag"] = "date_picker"
            if f.initial:
                el["initial_date"] = f.initial
        case FieldKind.FLAGS:
            el |= {"tag": "multi_select_static", "options": options}
            if f.initial:
                el["selected_values"] = list(f.initial)
        case FieldKind.TEXT:
            el |= {"tag": "input", "max_length": min(f.max_length or REASON_MAX, REASON_MAX)}
            if f.hint:
                el["placeholder"] = plain(f.hint)
            if f.initial:
                el["default_value"] = f.initial
    if f.required:
        el["required"] = True
    return el


def field_elements(form: Form) -> list[Card]:
    """A presentation Form's fields as form elements: each under its label, its error below."""
    elements: list[Card] = []
    for f in form.fields:
        elements += _labelled(f.label, _element(f), f.error)
    return elements


def form_card(form: Form) -> Card:
    """A presentation Form as a card: each field under its label, its error below it, [Submit]."""
    elements = field_elements(form)
    elements.append(
        button(
            form.submit,
            {"action": LEAVE_FORM_SUBMIT},
            "primary",
            action_type="form_submit",
            name="leave_submit",
        )
    )
    body = {"tag": "form", "name": form.form_id, "elements": elements}
    return card(
        form.title, [body, *(note(n) for n in form.notes)], "red" if form.has_errors else "blue"
    )


def leave_form_card(*args: Any, **kwargs: Any) -> Card:
    """`leave_form(...)` (bot/presentation/forms.py, the same arguments) as a card."""
    return form_card(leave_form(*args, **kwargs))


def parse_leave_form(form: Mapping[str, Any]) -> dict[str, Any]:
    """A submitted form's values → the engine's fields (missing values → None)."""
    return leave_fields(
        form.get("leave_type"),
        form.get("start"),
        form.get("end"),
        form.get("halves"),
        form.get("reason"),
    )
