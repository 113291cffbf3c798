"""The modal [Suggest other dates] opens: two dates and an optional note for the requester.

Callback id `counter_form`, private_metadata `{"request_id", "step"}`, inputs `start`/`start`,
`end`/`end` (date pickers, first filled with the dates asked for) and `note`/`note`.
"""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import Block, DatePickerElement, InputBlock

from agent.tools.describe import what
from bot.slack.blocks_base import escape, plain, section
from bot.slack.blocks_forms import LABEL_MAX, _modal, text_area
from bot.wording import leave_dates, name_of, say
from workflow.engine import Engine
from workflow.models import Request

CALLBACK_ID = "counter_form"
BLOCKS = ("start", "end", "note")  # the engine's field names are the form's block ids


def _day(name: str, label: str, value: object) -> InputBlock:
    return InputBlock(
        block_id=name,
        label=plain(label, LABEL_MAX),
        element=DatePickerElement(action_id=name, initial_date=str(value) if value else None),
    )


def counter_modal(
    request: Request, step: int, engine: Engine, locale: str, card: str | None = None
) -> dict[str, Any]:
    """The form: the request in a line, first and last day, a note to the requester.

    `card` is where the clicked approver card is (`channel:ts`), redrawn after the Send.
    """
    who = name_of(engine, request.requester)
    f = request.fields
    blocks: list[Block] = [
        section(f"*{escape(who)}* · {escape(what(request, engine.config, locale))}"),
        section(escape(say("line.asked_dates", locale, dates=leave_dates(f, locale)))),
        _day("start", say("form.counter.start", locale), f.get("start")),
        _day("end", say("form.counter.end", locale), f.get("end")),
        text_area(
            "note",
            say("form.counter.note", locale, who=who),
            say("form.counter.title", locale),
            optional=True,
        ),
    ]
    return _modal(
        CALLBACK_ID,
        say("form.counter.title", locale),
        say("button.send", locale),
        say("button.cancel", locale),
        blocks,
        json.dumps({"request_id": request.id, "step": step, "card": card}),
    )


def parse_counter_form(
    view: dict[str, Any],
) -> tuple[str, int, Any, Any, str | None, str | None]:
    """(request_id, step, start, end, note, card address) from a submitted counter_form view."""
    meta = json.loads(view.get("private_metadata") or "{}")
    values = (view.get("state") or {}).get("values") or {}

    def value(block: str, key: str) -> Any:
        return (values.get(block) or {}).get(block, {}).get(key)

    note = value("note", "value")
    return (
        str(meta.get("request_id") or ""),
        int(meta.get("step") or 0),
        value("start", "selected_date"),
        value("end", "selected_date"),
        note.strip() if isinstance(note, str) and note.strip() else None,
        str(meta["card"]) if meta.get("card") else None,
    )
