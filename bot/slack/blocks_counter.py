"""The modal [Suggest other dates] opens: the shared counter form (bot/presentation/forms.py).

Callback id `counter_form`, private_metadata `{"request_id", "step", "card"}`, inputs
`start`/`start`, `end`/`end` (date pickers, first filled with the dates asked for) and
`note`/`note`: the form's field names, which the core's refusals name too.
"""

from __future__ import annotations

import json
from typing import Any

from agent.tools.describe import what
from bot.presentation.forms import COUNTER_FIELDS, COUNTER_FORM, counter_fields, counter_form
from bot.slack.blocks_base import escape, section
from bot.slack.blocks_forms import form_modal
from bot.wording import name_of
from workflow.engine import Engine
from workflow.models import Request

CALLBACK_ID = COUNTER_FORM
BLOCKS = COUNTER_FIELDS  # the engine's field names are the form's block ids


def counter_modal(
    request: Request, step: int, engine: Engine, locale: str, card: str | None = None
) -> dict[str, Any]:
    """The form under the request in a line (the modal covers the card it was opened from).

    `card` is where the clicked approver card is (`channel:ts`), redrawn after the Send.
    """
    who = name_of(engine, request.requester)
    about = section(f"*{escape(who)}* · {escape(what(request, engine.config, locale))}")
    return form_modal(
        counter_form(request, engine, locale),
        about=[about],
        private_metadata=json.dumps({"request_id": request.id, "step": step, "card": card}),
    )


def parse_counter_form(
    view: dict[str, Any],
) -> tuple[str, int, str | None, str | None, str | None, str | None]:
    """(request_id, step, start, end, note, card address) from a submitted counter_form view."""
    meta = json.loads(view.get("private_metadata") or "{}")
    values = (view.get("state") or {}).get("values") or {}

    def value(block: str, key: str) -> Any:
        return (values.get(block) or {}).get(block, {}).get(key)

    got = counter_fields(
        value("start", "selected_date"), value("end", "selected_date"), value("note", "value")
    )
    return (
        str(meta.get("request_id") or ""),
        int(meta.get("step") or 0),
        got["start"],
        got["end"],
        got["note"],
        str(meta["card"]) if meta.get("card") else None,
    )
