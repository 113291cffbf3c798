"""Feishu's [Suggest other dates] form card: the request, then the shared counter form
(bot/presentation/forms.py) with [Send], and [Back].

It replaces the approver's card when the button is clicked, so the request's facts stay above
the form (its dates among them: the form's "Asked for" line would say them twice); [Send] (a
form submit, value `counter_submit` with the request and step) goes to the conversation core,
and a refusal comes back as a toast with the form still there. [Back] returns to the
approver's card.
"""

from __future__ import annotations

from typing import Any

from bot.conversation.buttons import COUNTER_SUBMIT, REQUEST_BACK, StepRef, feishu_value
from bot.feishu.cards import Card, actions, button, card, elements_of
from bot.feishu.forms import field_elements
from bot.presentation import requests
from bot.presentation.forms import counter_fields, counter_form
from bot.presentation.model import Reader
from bot.presentation.model import reader as model_reader
from bot.wording import say
from workflow.engine import Engine
from workflow.models import Request


def counter_form_card(req: Request, step: int, engine: Engine, locale: Reader | str) -> Card:
    """The request's facts, then the form: first day, last day, a note; [Send] and [Back]."""
    model = requests.request_card(req, engine, locale)
    loc = model_reader(locale).locale
    form = counter_form(req, engine, loc)
    ref = StepRef(request_id=req.id, step=step)
    elements = field_elements(form)
    elements.append(
        button(
            form.submit,
            feishu_value(COUNTER_SUBMIT, ref),
            "primary",
            action_type="form_submit",
            name="counter_submit",
        )
    )
    body = elements_of(model, with_actions=False)
    body += [
        {"tag": "form", "name": form.form_id, "elements": elements},
        actions(button(say("button.back", loc), feishu_value(REQUEST_BACK, ref))),
    ]
    return card(form.title, body, "blue")


def parse_counter_form(form: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(start, end, note) of a submitted form (`counter_fields`: Feishu's dates cut to the day)."""
    got = counter_fields(form.get("start"), form.get("end"), form.get("note"))
    return got["start"], got["end"], got["note"]
