"""Which tools a turn is offered: the few its intent needs, and a way to ask for the rest.

Every offered schema is paid on every model call, so a turn starts with the tools that the
offline planner's reading of the conversation says it needs (a leave request needs the
leave tool, not the expense, delegation or decision tools), plus those the thread's state
calls for (a draft still open, a list of requests the user is picking from). `more_tools`
is always offered besides: a model that needs something else calls it and is asked again
with every tool, so nothing becomes impossible — it only costs one more call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from agent.messages import Message, ToolSpec
from agent.planner._context import read_context
from agent.planner._conversation import current_task, split_turns
from agent.planner._draft import apply_correction

MORE_TOOLS = "more_tools"
MORE_TOOLS_SPEC = ToolSpec(
    MORE_TOOLS,
    "Call this when the user needs a tool not listed here (other requests, approvals, "
    "withdrawals, reminders, delegation, look-ups): you are then offered every tool.",
)

# What each intent of the planner's reading needs (by the intent's value, so that an intent the
# planner adds or renames costs an escape, never an error).
BY_INTENT: dict[str, tuple[str, ...]] = {
    "leave": ("propose_leave", "my_balances"),
    "expense": ("propose_request",),
    "business_trip": ("propose_request",),
    "approve": ("my_pending_approvals", "propose_decision", "request_details"),
    "reject": ("my_pending_approvals", "propose_decision", "request_details"),
    "pending_approvals": ("my_pending_approvals", "propose_decision"),
    "counter": ("my_pending_approvals", "propose_counter", "request_details"),
    "withdraw": ("my_requests", "propose_withdraw"),
    "remind": ("my_requests", "propose_reminder"),
    "status": ("my_requests", "request_details"),
    "my_requests": ("my_requests", "request_details"),
    "balance": ("my_balances",),
    "who_is_out": ("who_is_out",),
    "working_days": ("working_days",),
    "processes": ("list_processes",),
    "find_people": ("find_people",),
    "approver_choice": ("find_people",),
    "for_other": ("find_people", "propose_leave"),
}
# What the planner does not read as an intent of its own, found by a few words.
_DELEGATION = re.compile(
    r"\bdelegat\w*|\bapproves?\s+for\s+me\b|\bcover\s+(?:my\s+)?approvals?\b|委托|代(?:我)?审批?|代批",
    re.IGNORECASE,
)
_REQUEST_ID = re.compile(r"\bR-[A-Z0-9]{8}\b", re.IGNORECASE)


@dataclass(frozen=True)
class Offer:
    """The tools offered to one model call; `full` when every tool is (no escape needed)."""

    names: frozenset[str]
    full: bool = False
    intent: str | None = None


def choose_tools(messages: Sequence[Message], today: date) -> Offer:
    """The tools the newest user message needs, read as the offline planner reads it.

    `messages` is what the model is about to see: system, history and the new user message.
    """
    ctx = read_context(messages, today)
    turns = split_turns(messages)
    if not turns:
        return Offer(frozenset())
    task = current_task(turns, ctx)
    apply_correction(task, turns, ctx)
    intent = task.intent.value if task.intent else None
    names: set[str] = set(BY_INTENT.get(intent, ())) if intent else set()
    text = turns[-1].user
    if _REQUEST_ID.search(text):
        names.add("request_details")
    if _DELEGATION.search(text):
        names.add("propose_delegation")
    if len(turns) > 1:
        names |= _carried_over(turns[-2], task.intent is None)
    return Offer(frozenset(names), intent=intent)


def _carried_over(previous, continuing: bool) -> set[str]:
    """Tools the last turn leaves the thread needing: its draft's tool (a correction comes
    next), and when the new message starts nothing of its own, the tools it used."""
    names = {o.call.name for o in previous.observations if o.ok and o.result.get("pending_id")}
    if continuing:
        names |= {o.call.name for o in previous.observations if o.call.name != MORE_TOOLS}
    return names


def offered_specs(all_specs: Sequence[ToolSpec], offer: Offer) -> list[ToolSpec]:
    """The schemas to send: the escape, then the offered tools in registry order (every reduced
    set starts with the same schema, a longer prefix for caches that put tools first)."""
    if offer.full:
        return list(all_specs)
    return [MORE_TOOLS_SPEC, *(s for s in all_specs if s.name in offer.names)]
