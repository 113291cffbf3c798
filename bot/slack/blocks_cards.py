"""Block Kit for a presentation Card, and the request cards built with it.

`render` is the one Slack serializer of `bot.presentation.model.Card`: the title as a header,
paragraphs as sections (people's words escaped, so never a mention or a link), facts as a
two-column section, context lines, and buttons whose ids and values are the contract with
the interaction handlers (see bot/slack/blocks.py).
"""

from __future__ import annotations

from typing import Any

from slack_sdk.models.blocks import ActionsBlock, Block, ButtonElement, CheckboxesElement, Option

from bot.conversation.buttons import BULK_ITEMS, step_value
from bot.presentation import requests
from bot.presentation.model import Action, ActionKind, Card, Checklist, Paragraph, Reader, Tone
from bot.slack.blocks_base import (
    OPTION_TEXT_MAX,
    SECTION_TEXT_MAX,
    SlackMessage,
    actions,
    button,
    confirm_dialog,
    context,
    escape,
    fields_section,
    header,
    message,
    section,
    truncate,
)
from workflow.engine import Engine
from workflow.models import Request, Step
from workflow.queries import RequestView

# The emoji that marks a headline of this tone.
MARKS = {
    Tone.SUBMITTED: ":outbox_tray:",
    Tone.APPROVED: ":white_check_mark:",
    Tone.DONE: ":tada:",
    Tone.REJECTED: ":x:",
    Tone.WITHDRAWN: ":leftwards_arrow_with_hook:",
    Tone.EXPIRED: ":hourglass:",
    Tone.MOVED: ":arrow_right:",
    Tone.REMINDER: ":alarm_clock:",
}


def paragraph_text(p: Paragraph) -> str:
    """A paragraph as mrkdwn: '*Label*\\ntext', a bold headline with its mark, people's words escaped."""
    text = escape(p.text.strip() or "…")
    if p.strong:
        text = f"*{text}*"
    if p.tone is not None and (mark := MARKS.get(p.tone)):
        text = f"{mark} {text}"
    if p.label:
        text = f"*{escape(p.label)}*\n{text}"
    return truncate(text, SECTION_TEXT_MAX)


def action_button(a: Action) -> ButtonElement:
    """A button: value = pending_id, or `<request_id>:<step>` for a decision."""
    if a.kind in (ActionKind.PENDING_CONFIRM, ActionKind.PENDING_CANCEL):
        value = a.pending_id or ""
    else:
        value = step_value(a.request_id or "", a.step or 0)
    dialog = None
    if a.dialog is not None:
        d = a.dialog
        dialog = confirm_dialog(d.title, d.text, d.confirm, d.deny, style=a.style)
    style = a.style if a.style != "default" else None
    return button(a.label, a.kind.value, value, style=style, confirm=dialog)


def _block_id(a: Action) -> str:
    if a.pending_id is not None:
        return f"pending:{a.pending_id}"
    return f"request:{a.request_id}:{a.step}"


def card_blocks(card: Card) -> list[Block]:
    blocks: list[Block] = []
    if card.banner:
        blocks.append(context(f"{MARKS[Tone.REMINDER]} {escape(card.banner)}"))
    if card.title:
        blocks.append(header(card.title))
    blocks += [section(paragraph_text(p)) for p in card.lead]
    if card.facts:
        blocks.append(fields_section([(escape(f.label), escape(f.value)) for f in card.facts]))
    blocks += [section(paragraph_text(p)) for p in card.body]
    if card.context:
        blocks.append(context(*(escape(x) for x in card.context)))
    if card.actions:
        blocks.append(
            actions(*(action_button(a) for a in card.actions), block_id=_block_id(card.actions[0]))
        )
    if card.checklist is not None:
        blocks += checklist_blocks(card.checklist)
    return blocks


def checklist_blocks(c: Checklist) -> list[Block]:
    """Checkboxes (block and action id `bulk_items`) and the button acting on the ticked ones."""
    options = [Option(value=v, label=truncate(label, OPTION_TEXT_MAX)) for v, label in c.options]
    ticks = CheckboxesElement(action_id=BULK_ITEMS, options=options[:10])
    a = c.action
    dialog = None
    if a.dialog is not None:
        dialog = confirm_dialog(a.dialog.title, a.dialog.text, a.dialog.confirm, a.dialog.deny)
    go = button(a.label, a.kind.value, a.kind.value, style="primary", confirm=dialog)
    return [
        ActionsBlock(elements=[ticks], block_id=BULK_ITEMS),
        actions(go, block_id=a.kind.value),
    ]


def render(card: Card) -> SlackMessage:
    """The Slack message of a card; `card.fallback` is the notification text."""
    return message(card.fallback, card_blocks(card))


# --- the request's cards --------------------------------------------------------------------


def decision_buttons(req: Request, step: Step, engine: Engine, locale: str) -> list[Any]:
    """[Approve] (with a confirm dialog) and [Reject] (opens the reason modal)."""
    return [action_button(a) for a in requests.decision_actions(req, step, engine, locale)]


def approval_card(view: RequestView, engine: Engine, locale: Reader | str) -> SlackMessage:
    """The approver's DM: the request, who else is out, the step, [Approve] [Reject]."""
    return render(requests.approval_card(view, engine, locale))


def reminder_card(
    view: RequestView, engine: Engine, locale: Reader | str, note: str | None = None
) -> SlackMessage:
    """The approval card with "Reminder from <requester>: <note>" on top."""
    return render(requests.approval_card(view, engine, locale, reminder=note or ""))


def approval_card_closed(
    request: Request, engine: Engine, locale: Reader | str, step_index: int
) -> SlackMessage:
    """The approval card after the decision (or withdrawal, or reassignment): no buttons."""
    return render(requests.approval_card_closed(request, engine, locale, step_index))


def requester_dm(
    event_type: str,
    request: Request,
    engine: Engine,
    locale: Reader | str,
    data: dict[str, Any],
) -> SlackMessage:
    """The requester's DM for an outbox event: submitted, step approved, approved, rejected, …"""
    return render(requests.requester_notice(event_type, request, engine, locale, data))
