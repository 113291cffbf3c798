"""Block Kit builders for everything the bot posts in Slack: pure functions, no I/O.

Messages come back as `SlackMessage(text, blocks)`; modals and the Home tab as view dicts.
Action ids and values are the contract with the interaction handlers:

- `pending_confirm` / `pending_cancel`, value = pending_id, block_id `pending:<pending_id>`
- `request_approve` / `request_reject`, value = `<request_id>:<step_index>`,
  block_id `request:<request_id>:<step_index>`
- `home_withdraw` (value = request_id), `open_leave_form`
- modals: `reject_reason` (private_metadata `{"request_id", "step"}`, input `reason`/`reason`)
  and `leave_form` (inputs `leave_type`, `start`, `end`, `halves`, `reason`)
"""

from bot.slack.blocks_base import SlackMessage, escape, truncate
from bot.slack.blocks_cards import (
    approval_card,
    approval_card_closed,
    reminder_card,
    render,
    requester_dm,
)
from bot.slack.blocks_confirm import confirm_card, confirm_card_closed, outcome_text
from bot.slack.blocks_forms import leave_modal, parse_leave_form, reject_modal
from bot.slack.blocks_home import home_view
from bot.slack.blocks_plan import TaskLine, plan_message

__all__ = [
    "SlackMessage",
    "TaskLine",
    "approval_card",
    "approval_card_closed",
    "confirm_card",
    "confirm_card_closed",
    "escape",
    "home_view",
    "leave_modal",
    "outcome_text",
    "parse_leave_form",
    "plan_message",
    "reject_modal",
    "reminder_card",
    "render",
    "requester_dm",
    "truncate",
]
