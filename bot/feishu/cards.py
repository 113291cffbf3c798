"""Interactive cards (JSON 1.0) for everything the bot shows in Feishu: pure functions, no I/O.

Each builder returns the card as a dict, ready for `content` (send, reply, PATCH) or for a
callback's `{"card": {"type": "raw", "data": card}}`. Every card is a shared card
(`update_multi`), so one PATCH updates it for everyone. Button values are the contract with
the callback handler: `{"action": <one of ACTIONS>, …}`:

- `pending_confirm` / `pending_cancel`: `pending_id`, `thread` (the conversation to note it in)
- `request_approve` / `request_reject` / `request_back`: `request_id`, `step`
- `request_reject_submit`: the same, inside a form whose input `reason` arrives as `form_value`

Text people wrote (reasons, comments, notes) is shown as plain text, never as markdown; other
text goes into lark_md only through `escape`, so it cannot become a mention or a link.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from agent.events import ProposalReady
from bot.conversation.buttons import (  # the button contract, re-exported for the callers
    ACTIONS as ACTIONS,
)
from bot.conversation.buttons import (
    BULK_ITEMS,
    FEED_CREATE,
    FEED_REVOKE,
    REQUEST_BACK,
    REQUEST_REJECT_SUBMIT,
    PendingRef,
    StepRef,
    feishu_value,
)
from bot.conversation.buttons import (
    PENDING_CANCEL as PENDING_CANCEL,
)
from bot.conversation.buttons import (
    PENDING_CONFIRM as PENDING_CONFIRM,
)
from bot.conversation.buttons import (
    REQUEST_APPROVE as REQUEST_APPROVE,
)
from bot.conversation.buttons import (
    REQUEST_REJECT as REQUEST_REJECT,
)
from bot.presentation import confirm, requests
from bot.presentation.model import Action, ActionKind, Checklist, Paragraph, Reader, Tone
from bot.presentation.model import Card as Model
from bot.presentation.model import reader as model_reader
from bot.presentation.steps import TaskLine
from bot.presentation.text import ELLIPSIS, escape_html, truncate
from bot.wording import name_of, say
from workflow.engine import Engine
from workflow.models import Request, Step

Card = dict[str, Any]

REASON_INPUT = "reason"

TEXT_MAX = 2000
TITLE_MAX = 100
BUTTON_MAX = 40
TOAST_MAX = 200
REASON_MAX = 500
TASKS_MAX = 30
_MARKS = {"pending": "○", "in_progress": "⏳", "complete": "✅", "error": "❌"}


# --- pieces -------------------------------------------------------------------------------------


escape = escape_html  # text for lark_md that shows as typed: no `<at>` mentions, no tags


def plain(text: str, limit: int = TEXT_MAX) -> dict[str, str]:
    return {"tag": "plain_text", "content": truncate(text.strip() or ELLIPSIS, limit)}


def md(text: str, limit: int = TEXT_MAX) -> dict[str, str]:
    """A lark_md text of already escaped text."""
    return {"tag": "lark_md", "content": truncate(text.strip() or ELLIPSIS, limit)}


def div(text: str) -> Card:
    """A paragraph of lark_md (escape people's text before passing it)."""
    return {"tag": "div", "text": md(text)}


def plain_div(text: str) -> Card:
    """A paragraph shown literally (for what people wrote)."""
    return {"tag": "div", "text": plain(text)}


def fields(pairs: Sequence[tuple[str, str]]) -> Card:
    """Two columns of **label** / value (both raw: escaped here)."""
    return {
        "tag": "div",
        "fields": [
            {"is_short": True, "text": md(f"**{escape(label)}**\n{escape(value)}")}
            for label, value in pairs[:10]
        ],
    }


def note(*texts: str) -> Card:
    return {"tag": "note", "elements": [plain(x) for x in texts if x][:10]}


def hr() -> Card:
    return {"tag": "hr"}


def button(
    text: str,
    value: dict[str, Any],
    kind: str = "default",
    confirm: tuple[str, str] | None = None,
    **extra: Any,
) -> Card:
    """A button; `confirm` (title, text) makes Feishu ask "are you sure?" first."""
    b: Card = {"tag": "button", "text": plain(text, BUTTON_MAX), "type": kind, "value": value}
    if confirm is not None:
        b["confirm"] = {"title": plain(confirm[0], TITLE_MAX), "text": plain(confirm[1], 300)}
    b.update(extra)
    return b


def actions(*buttons: Card) -> Card:
    return {"tag": "action", "actions": list(buttons)}


def card(title: str | None, elements: list[Card], template: str = "blue") -> Card:
    """A shared JSON 1.0 card (one PATCH updates it for everyone who sees it)."""
    c: Card = {"config": {"wide_screen_mode": True, "update_multi": True}, "elements": elements}
    if title:
        c["header"] = {"title": plain(title, TITLE_MAX), "template": template}
    return c


def feed_card(text: str, locale: str, *, on: bool) -> Card:
    """The team calendar link (or that it is off), with [Turn off calendar link] or [New calendar link]."""
    if on:
        dialog = (say("dialog.feed_revoke.title", locale), say("dialog.feed_revoke.text", locale))
        act = button(
            say("button.feed_revoke", locale), {"action": FEED_REVOKE}, "danger", confirm=dialog
        )
    else:
        act = button(say("button.feed_new", locale), {"action": FEED_CREATE}, "primary")
    return card(say("feed.title", locale), [plain_div(text), actions(act)])


def text_content(text: str) -> dict[str, str]:
    """The content of a `text` message."""
    return {"text": truncate(text.strip() or ELLIPSIS, 4000)}


def toast(kind: Literal["success", "error", "info", "warning"], text: str) -> dict[str, str]:
    return {"type": kind, "content": truncate(text.strip() or ELLIPSIS, TOAST_MAX)}


def buttons_of(c: Card) -> list[Card]:
    """Every button of a card, in forms too (tests and the stand-in read them)."""
    found: list[Card] = []

    def walk(elements: Sequence[Any]) -> None:
        for e in elements:
            if not isinstance(e, dict):
                continue
            if e.get("tag") == "button":
                found.append(e)
            walk(e.get("actions") or [])
            walk(e.get("elements") or [])

    walk(c.get("elements") or [])
    return found


# --- the steps of a turn ------------------------------------------------------------------------


def steps_card(
    locale: str, tasks: Sequence[TaskLine], final_text: str | None = None, *, done: bool = False
) -> Card:
    """The turn's steps as a task list updated in place, then the answer when there is one."""
    elements: list[Card] = []
    shown = list(tasks)[-TASKS_MAX:]
    if shown:
        lines = []
        for x in shown:
            line = f"{_MARKS.get(x.status, '○')} {escape(x.title.strip() or ELLIPSIS)}"
            if x.output and x.output.strip():
                line += f"\n　　{escape(truncate(x.output.strip(), 200))}"
            lines.append(line)
        elements.append(div("\n".join(lines)))
    if final_text and final_text.strip():
        if elements:
            elements.append(hr())
        elements.append(div(escape(final_text)))
    if not elements:
        elements.append(note(say("steps.thinking", locale)))
    if done and not shown:
        return card(None, elements)
    title = say("steps.done" if done else "steps.working", locale)
    return card(title, elements, "grey" if done else "blue")


# --- a presentation Card as Feishu card JSON -----------------------------------------------------

TEMPLATES = {
    Tone.INFO: "blue",
    Tone.SUBMITTED: "blue",
    Tone.ASK: "blue",
    Tone.APPROVED: "green",
    Tone.DONE: "green",
    Tone.REJECTED: "red",
    Tone.WITHDRAWN: "grey",
    Tone.EXPIRED: "grey",
    Tone.MOVED: "grey",
    Tone.CLOSED: "grey",
    Tone.REMINDER: "orange",
}


def paragraph(p: Paragraph) -> list[Card]:
    """A paragraph: people's words as plain text under a bold label, other text as lark_md."""
    label = div(f"**{escape(p.label)}**") if p.label else None
    if p.literal:
        return [x for x in (label, plain_div(truncate(p.text.strip(), REASON_MAX))) if x]
    text = escape(p.text.strip() or ELLIPSIS)
    if p.strong:
        text = f"**{text}**"
    return [div(f"**{escape(p.label)}**\n{text}" if p.label else text)]


def action_value(a: Action, thread: str | None = None) -> dict[str, Any]:
    """The button's value: the contract with the callback handler (bot/conversation/buttons.py)."""
    if a.kind in (ActionKind.PENDING_CONFIRM, ActionKind.PENDING_CANCEL):
        return feishu_value(a.kind.value, PendingRef(pending_id=a.pending_id or "", thread=thread))
    return feishu_value(a.kind.value, StepRef(request_id=a.request_id or "", step=a.step or 0))


def action_button(a: Action, thread: str | None = None) -> Card:
    dialog = (a.dialog.title, a.dialog.text) if a.dialog is not None else None
    return button(a.label, action_value(a, thread), a.style, dialog)


def elements_of(c: Model, *, with_actions: bool = True, thread: str | None = None) -> list[Card]:
    """The card's body as Feishu elements, in the model's order."""
    elements: list[Card] = [plain_div(f"⏰ {c.banner}")] if c.banner else []
    for p in c.lead:
        elements += paragraph(p)
    if c.facts:
        elements.append(fields([(f.label, f.value) for f in c.facts]))
    for p in c.body:
        elements += paragraph(p)
    if c.context:
        elements.append(note(*c.context))
    if with_actions and c.actions:
        elements.append(actions(*(action_button(a, thread) for a in c.actions)))
    if with_actions and c.checklist is not None:
        elements.append(checklist_form(c.checklist))
    return elements


def checklist_form(c: Checklist) -> Card:
    """A form: a multi-select of the items (`bulk_items`) and the button acting on the ticked ones."""
    a = c.action
    ticks = {
        "tag": "multi_select_static",
        "name": BULK_ITEMS,
        "placeholder": plain(a.label),
        "options": [{"text": plain(label), "value": v} for v, label in c.options],
    }
    dialog = (a.dialog.title, a.dialog.text) if a.dialog is not None else None
    go = button(
        a.label,
        {"action": a.kind.value},
        "primary",
        dialog,
        action_type="form_submit",
        name=a.kind.value,
    )
    return {"tag": "form", "name": "bulk_form", "elements": [ticks, go]}


def render(c: Model, *, thread: str | None = None) -> Card:
    """The Feishu card of a presentation Card; `thread` goes into confirm/cancel button values."""
    return card(c.title, elements_of(c, thread=thread), TEMPLATES.get(c.tone, "blue"))


# --- the confirm card of a proposal -------------------------------------------------------------


def confirm_card(
    p: ProposalReady, locale: Reader | str, *, thread: str, engine: Engine | None = None
) -> Card:
    """The proposal's exact contents with [Submit|Approve|Reject|Withdraw|…] [Cancel].

    Only `p.confirm_by` can click; the engine checks that. `thread` is noted in the button
    values so the click's outcome is added to the conversation.
    """
    return render(confirm.confirm_card(p, locale, engine=engine), thread=thread)


def confirm_card_closed(
    summary: str, outcome: str, locale: Reader | str, *, ok: bool = True
) -> Card:
    """The confirm card after a click: the summary and what happened, no buttons."""
    return render(confirm.confirm_card_closed(summary, outcome, locale, ok=ok))


# --- the approver's card ----------------------------------------------------------------------


def reject_form_card(req: Request, step: Step, engine: Engine, locale: Reader | str) -> Card:
    """The approver's card asking for the reason: an input, [Reject] (confirmed) and [Back]."""
    model = requests.request_card(req, engine, locale)
    loc = model_reader(locale).locale
    who = name_of(engine, req.requester)
    ref = StepRef(request_id=req.id, step=step.index)
    form = {
        "tag": "form",
        "name": "reject_form",
        "elements": [
            {
                "tag": "input",
                "name": REASON_INPUT,
                "required": True,
                "max_length": REASON_MAX,
                "label": plain(say("form.reject.label", loc)),
                "placeholder": plain(say("form.reject.placeholder", loc, who=who)),
            },
            button(
                say("button.reject", loc),
                feishu_value(REQUEST_REJECT_SUBMIT, ref),
                "danger",
                (
                    say("confirm.title.reject", loc),
                    say("dialog.reject.text", loc, who=who),
                ),
                action_type="form_submit",
                name="reject_submit",
            ),
        ],
    }
    elements = elements_of(model, with_actions=False)
    elements += [form, actions(button(say("button.back", loc), feishu_value(REQUEST_BACK, ref)))]
    return card(model.title, elements, "red")


def approval_card_closed(
    request: Request, engine: Engine, locale: Reader | str, step_index: int
) -> Card:
    """The approval card after the decision (or withdrawal, or reassignment): no buttons."""
    return render(requests.approval_card_closed(request, engine, locale, step_index))


# --- the requester's notices -----------------------------------------------------------------


def requester_notice(
    event_type: str, request: Request, engine: Engine, locale: Reader | str, data: dict[str, Any]
) -> Card:
    """The requester's card for an outbox event: submitted, step approved, approved, rejected, …"""
    return render(requests.requester_notice(event_type, request, engine, locale, data))


def notice_card(title: str, lines: Sequence[str], template: str = "blue") -> Card:
    """A plain notice from the worker (expiry, escalation, digest, who's out): a title and lines."""
    return card(title, [plain_div(truncate("\n".join(lines), TEXT_MAX))], template)
