"""Feishu's [Suggest other dates] form card: the request, two dates, a note, [Send] and [Back].

It replaces the approver's card when the button is clicked; [Send] (a form submit, value
`counter_submit` with the request and step) goes to the conversation core, and a refusal comes
back as a toast with the form still there. [Back] returns to the approver's card.
"""

from __future__ import annotations

from typing import Any

from bot.conversation.buttons import COUNTER_SUBMIT, REQUEST_BACK, StepRef, feishu_value
from bot.feishu.cards import REASON_MAX, Card, actions, button, card, elements_of, plain
from bot.feishu.forms import _labelled
from bot.presentation import requests
from bot.presentation.model import Reader
from bot.presentation.model import reader as model_reader
from bot.wording import name_of, say
from workflow.engine import Engine
from workflow.models import Request


def counter_form_card(req: Request, step: int, engine: Engine, locale: Reader | str) -> Card:
    """The request's facts, then the form: first day, last day, a note; [Send] and [Back]."""
    model = requests.request_card(req, engine, locale)
    loc = model_reader(locale).locale
    who = name_of(engine, req.requester)
    ref = StepRef(request_id=req.id, step=step)

    def picker(name: str) -> Card:
        return {
            "tag": "date_picker",
            "name": name,
            "required": True,
            "initial_date": req.fields[name],
        }

    note: Card = {
        "tag": "input",
        "name": "note",
        "max_length": REASON_MAX,
        "placeholder": plain(say("form.counter.title", loc)),
    }
    elements: list[Card] = []
    elements += _labelled(say("form.counter.start", loc), picker("start"), None)
    elements += _labelled(say("form.counter.end", loc), picker("end"), None)
    elements += _labelled(say("form.counter.note", loc, who=who), note, None)
    elements.append(
        button(
            say("button.send", loc),
            feishu_value(COUNTER_SUBMIT, ref),
            "primary",
            action_type="form_submit",
            name="counter_submit",
        )
    )
    form = {"tag": "form", "name": "counter_form", "elements": elements}
    body = elements_of(model, with_actions=False)
    body += [form, actions(button(say("button.back", loc), feishu_value(REQUEST_BACK, ref)))]
    return card(say("form.counter.title", loc), body, "blue")


def parse_counter_form(form: dict[str, Any]) -> tuple[Any, Any, str | None]:
    """(start, end, note) of a submitted form; Feishu sends dates as "2026-12-16 +0800"."""

    def day(value: Any) -> Any:
        return str(value)[:10] if isinstance(value, str) and value.strip() else value

    note = form.get("note")
    text = note.strip() if isinstance(note, str) and note.strip() else None
    return day(form.get("start")), day(form.get("end")), text
