"""The delegation form (Home tab): who decides my approvals, from when to when."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from slack_sdk.models.blocks import (
    DatePickerElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from agent.catalogue import say
from bot.slack.blocks_base import OPTION_TEXT_MAX, VIEW_BLOCKS_MAX, VIEW_TITLE_MAX, dump, plain
from bot.wording import person_label
from workflow.config import Person
from workflow.engine import Engine

# Field name in the engine → block id in the form (for response_action errors).
DELEGATION_BLOCKS = {"delegate": "delegate", "start": "start", "end": "end", "reason": "reason"}


def delegation_modal(person: Person, engine: Engine, locale: str) -> dict[str, Any]:
    """A modal: pick the delegate among colleagues, the first and last day, an optional note."""
    options = [
        Option(value=p.id, text=plain(person_label(p, locale), OPTION_TEXT_MAX))
        for p in engine.directory
        if p.id != person.id
    ][:100]
    blocks = [
        InputBlock(
            block_id="delegate",
            label=plain(say("form.delegate.who", locale), 2000),
            element=StaticSelectElement(action_id="delegate", options=options),
        ),
        InputBlock(
            block_id="start",
            label=plain(say("form.delegate.from", locale), 2000),
            element=DatePickerElement(action_id="start"),
        ),
        InputBlock(
            block_id="end",
            label=plain(say("form.delegate.until", locale), 2000),
            element=DatePickerElement(action_id="end"),
        ),
        InputBlock(
            block_id="reason",
            optional=True,
            label=plain(say("form.delegate.note", locale), 2000),
            element=PlainTextInputElement(action_id="reason", max_length=300),
        ),
    ]
    return View(
        type="modal",
        callback_id="delegation_form",
        title=plain(say("form.delegate.title", locale), VIEW_TITLE_MAX),
        submit=plain(say("form.delegate.submit", locale), VIEW_TITLE_MAX),
        close=plain(say("button.cancel", locale), VIEW_TITLE_MAX),
        blocks=dump(blocks, VIEW_BLOCKS_MAX),
    ).to_dict()


def parse_delegation_form(values: Mapping[str, Any]) -> dict[str, Any]:
    """view.state.values → {delegate, start, end, reason} (missing values → None)."""

    def get(block: str) -> Mapping[str, Any]:
        outer = values.get(block) if isinstance(values, Mapping) else None
        inner = outer.get(block) if isinstance(outer, Mapping) else None
        return inner if isinstance(inner, Mapping) else {}

    def text(value: Any) -> str | None:
        return value if isinstance(value, str) else None

    selected = get("delegate").get("selected_option")
    return {
        "delegate": text(selected.get("value")) if isinstance(selected, Mapping) else None,
        "start": text(get("start").get("selected_date")),
        "end": text(get("end").get("selected_date")),
        "reason": text(get("reason").get("value")),
    }
