"""Modals: the reason for a rejection, and the /leave form with its parser."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    DatePickerElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from agent.tools.describe import what
from bot.presentation.forms import FieldKind, Form, FormField, leave_fields, leave_form
from bot.slack.blocks_base import (
    OPTION_TEXT_MAX,
    PLACEHOLDER_MAX,
    VIEW_BLOCKS_MAX,
    VIEW_TITLE_MAX,
    context,
    dump,
    escape,
    plain,
    section,
)
from bot.wording import name_of, say
from workflow.config import Person
from workflow.engine import Engine
from workflow.models import Request

REASON_MAX = 500
LABEL_MAX = 2000


def _modal(
    callback_id: str,
    title: str,
    submit: str,
    close: str,
    blocks: list[Block],
    private_metadata: str | None = None,
) -> dict[str, Any]:
    return View(
        type="modal",
        callback_id=callback_id,
        title=plain(title, VIEW_TITLE_MAX),
        submit=plain(submit, VIEW_TITLE_MAX),
        close=plain(close, VIEW_TITLE_MAX),
        blocks=dump(blocks, VIEW_BLOCKS_MAX),
        private_metadata=private_metadata,
    ).to_dict()


def text_area(block_id: str, label: str, placeholder: str, *, optional: bool) -> InputBlock:
    """A multi-line text input of at most REASON_MAX characters (a reason, a note)."""
    return InputBlock(
        block_id=block_id,
        label=plain(label, LABEL_MAX),
        element=PlainTextInputElement(
            action_id=block_id,
            multiline=True,
            max_length=REASON_MAX,
            placeholder=plain(placeholder, PLACEHOLDER_MAX),
        ),
        optional=optional,
    )


def reject_modal(request: Request, step_index: int, engine: Engine, locale: str) -> dict[str, Any]:
    """The modal [Reject] opens: one required reason, sent to the requester."""
    who = name_of(engine, request.requester)
    blocks: list[Block] = [
        section(f"*{escape(who)}* · {escape(what(request, engine.config, locale))}"),
        text_area(
            "reason",
            say("form.reject.reason_for", locale, who=who),
            say("form.reject.why", locale),
            optional=False,
        ),
    ]
    metadata = json.dumps({"request_id": request.id, "step": step_index})
    return _modal(
        "reject_reason",
        say("form.reject.title", locale),
        say("button.reject", locale),
        say("button.cancel", locale),
        blocks,
        metadata,
    )


def _element(f: FormField) -> Any:
    """A form field as a Block Kit input element (action_id = the field's name)."""
    placeholder = plain(f.placeholder, PLACEHOLDER_MAX) if f.placeholder else None
    options = [Option(value=c.value, text=plain(c.text, OPTION_TEXT_MAX)) for c in f.options]
    match f.kind:
        case FieldKind.CHOICE:
            chosen = next((o for o in options if o.value == f.initial), None)
            return StaticSelectElement(
                action_id=f.name, placeholder=placeholder, options=options, initial_option=chosen
            )
        case FieldKind.DATE:
            return DatePickerElement(
                action_id=f.name, initial_date=f.initial or None, placeholder=placeholder
            )
        case FieldKind.FLAGS:
            ticked = [o for o in options if f.initial and o.value in f.initial]
            return CheckboxesElement(
                action_id=f.name, options=options, initial_options=ticked or None
            )
    return PlainTextInputElement(
        action_id=f.name,
        multiline=True,
        max_length=f.max_length,
        placeholder=placeholder,
        initial_value=f.initial if isinstance(f.initial, str) else None,
    )


def form_modal(
    form: Form, *, about: Sequence[Block] = (), private_metadata: str | None = None
) -> dict[str, Any]:
    """A presentation Form as a modal: `about` (what it is about) and the form's lead lines,
    one input block per field (block_id = its name; Slack marks an optional one itself), its
    notes under them."""
    blocks: list[Block] = [*about, *(section(escape(line)) for line in form.lead)]
    blocks += [
        InputBlock(
            block_id=f.name,
            label=plain(f.label, LABEL_MAX),
            element=_element(f),
            hint=plain(f.hint, LABEL_MAX) if f.hint else None,
            optional=not f.required,
        )
        for f in form.fields
    ]
    if form.notes:
        blocks.append(context(*(escape(n) for n in form.notes)))
    return _modal(form.form_id, form.title, form.submit, form.cancel, blocks, private_metadata)


def leave_modal(
    person: Person,
    engine: Engine,
    locale: str,
    *,
    approvers: list[str],
    initial: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The /leave form (bot/presentation/forms.py) as a modal; errors come back with ack."""
    return form_modal(leave_form(person, engine, locale, approvers=approvers, initial=initial))


def _state(values: Mapping[str, Any], block_id: str) -> Mapping[str, Any]:
    block = values.get(block_id)
    if not isinstance(block, Mapping):
        return {}
    element = block.get(block_id)
    return element if isinstance(element, Mapping) else {}


def parse_leave_form(state_values: Mapping[str, Any]) -> dict[str, Any]:
    """`view.state.values` of the leave form → the engine's fields (missing values → None)."""
    selected = _state(state_values, "leave_type").get("selected_option")
    options = _state(state_values, "halves").get("selected_options")
    halves = [
        o.get("value")
        for o in (options if isinstance(options, list) else [])
        if isinstance(o, Mapping)
    ]
    return leave_fields(
        selected.get("value") if isinstance(selected, Mapping) else None,
        _state(state_values, "start").get("selected_date"),
        _state(state_values, "end").get("selected_date"),
        halves,
        _state(state_values, "reason").get("value"),
    )
