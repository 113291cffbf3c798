"""The confirm card an agent proposal shows in the thread, and the same card once it is clicked."""

from __future__ import annotations

from datetime import date
from typing import Any

from slack_sdk.models.blocks import Block

from agent.events import ProposalReady
from agent.i18n import fmt_days, fmt_range, t
from bot.conversation.buttons import PENDING_CANCEL, PENDING_CONFIRM
from bot.slack.blocks_base import (
    SECTION_TEXT_MAX,
    SlackMessage,
    actions,
    button,
    context,
    escape,
    fields_section,
    lower_first,
    message,
    process_of,
    section,
    step_of,
    truncate,
)
from bot.wording import days_text, field_label, field_value, leave_type_name, name_of
from workflow.engine import Engine
from workflow.models import Request, RequestStatus

# Proposal fields that are shown on their own line, not in the two-column facts.
_LONG = {"reason", "comment", "note"}
# Fields the propose tools add for the model that a person does not need to read twice.
_INTERNAL = {"process", "approver", "approvers", "half_day", "balance_after", "working_days"}


def confirm_label(p: ProposalReady, locale: str) -> tuple[str, str]:
    """The confirm button's text and style: Submit, Approve/Reject or Confirm."""
    if p.action == "submit":
        return t(locale, "Submit", "提交"), "primary"
    if p.action == "decide":
        if p.fields.get("decision") == "reject":
            return t(locale, "Reject", "驳回"), "danger"
        return t(locale, "Approve", "批准"), "primary"
    return t(locale, "Confirm", "确认"), "primary"


def _leave_facts(f: dict[str, Any], locale: str, engine: Engine | None) -> list[tuple[str, str]]:
    pairs = [(t(locale, "Type", "类型"), escape(leave_type_name(engine, f["leave_type"], locale)))]
    try:
        start, end = date.fromisoformat(str(f["start"])), date.fromisoformat(str(f["end"]))
        dates = fmt_range(start, end, bool(f.get("start_half")), bool(f.get("end_half")), locale)
        pairs.append((t(locale, "Dates", "日期"), escape(dates)))
    except (KeyError, ValueError):
        pass
    if isinstance(f.get("working_days"), int | float):
        pairs.append((t(locale, "Working days", "工作日"), fmt_days(f["working_days"], locale)))
    return pairs


def _submit_facts(f: dict[str, Any], locale: str, engine: Engine | None) -> list[tuple[str, str]]:
    if "leave_type" in f:
        pairs = _leave_facts(f, locale, engine)
    else:
        process = process_of(engine, f.get("process"))
        defs = {fd.name: fd for fd in process.fields} if process else {}
        pairs = []
        for key, value in f.items():
            if key in _INTERNAL or key in _LONG or value in (None, ""):
                continue
            fd = defs.get(key)
            label = field_label(fd, locale) if fd else key.replace("_", " ").capitalize()
            pairs.append((escape(label), escape(field_value(fd, value, engine, locale))))
    approvers = [str(a) for a in f.get("approvers") or []]
    if approvers:
        pairs.append((t(locale, "Approval", "审批人"), escape(" → ".join(approvers))))
    after = f.get("balance_after")
    if isinstance(after, int | float):
        left = t(locale, f"{days_text(after, locale)} left", f"剩余 {days_text(after, locale)}")
        pairs.append((t(locale, "Balance after", "提交后余额"), left))
    return pairs


def _facts(p: ProposalReady, locale: str, engine: Engine | None) -> list[tuple[str, str]]:
    f = p.fields
    match p.action:
        case "submit":
            return _submit_facts(f, locale, engine)
        case "decide":
            pairs = [(t(locale, "Request", "申请"), escape(p.request_id))]
            if f.get("requester"):
                pairs.append((t(locale, "Requester", "申请人"), escape(f["requester"])))
            verb = confirm_label(p, locale)[0]
            pairs.append((t(locale, "Decision", "决定"), verb))
            if isinstance(f.get("step"), int):
                pairs.append((t(locale, "Step", "步骤"), str(f["step"])))
            return pairs
        case "remind":
            pairs = [(t(locale, "Request", "申请"), escape(p.request_id))]
            if f.get("to"):
                pairs.append((t(locale, "To", "提醒对象"), escape(f["to"])))
            return pairs
        case _:
            return [(t(locale, "Request", "申请"), escape(p.request_id))]


def _long_label(key: str, action: str, locale: str) -> str:
    if key == "comment":
        return t(locale, "Comment", "意见") if action == "decide" else t(locale, "Reason", "事由")
    if key == "note":
        return t(locale, "Note", "附言")
    return t(locale, "Reason", "事由")


def confirm_card(p: ProposalReady, locale: str, *, engine: Engine | None = None) -> SlackMessage:
    """The proposal's exact contents with [Submit|Approve|Reject|Confirm] [Cancel].

    Pass `engine` to show leave types and form labels in the reader's language (without it
    they show as their keys). Only `p.confirm_by` can click; the engine checks that.
    """
    verb, style = confirm_label(p, locale)
    blocks: list[Block] = [section(escape(p.summary))]
    facts = _facts(p, locale, engine)
    if facts:
        blocks.append(fields_section(facts))
    for key in ("reason", "comment", "note"):
        value = p.fields.get(key)
        if isinstance(value, str) and value.strip():
            label = _long_label(key, p.action, locale)
            blocks.append(
                section(truncate(f"*{label}*\n{escape(value.strip())}", SECTION_TEXT_MAX))
            )
    who = escape(p.confirm_by)
    blocks.append(
        context(
            t(
                locale,
                f"Nothing happens until you click *{verb}*. Only {who} can confirm this.",
                f"点击「{verb}」后才会生效；只有 {who} 可以确认。",
            )
        )
    )
    blocks.append(
        actions(
            button(verb, PENDING_CONFIRM, p.pending_id, style=style),
            button(t(locale, "Cancel", "取消"), PENDING_CANCEL, p.pending_id),
            block_id=f"pending:{p.pending_id}",
        )
    )
    return message(p.summary, blocks)


def confirm_card_closed(summary: str, outcome: str, locale: str) -> SlackMessage:
    """The confirm card after a click: the summary and what happened, no buttons."""
    blocks: list[Block] = [section(escape(summary))] if summary.strip() else []
    blocks.append(section(truncate(f"*{escape(outcome.strip() or '…')}*", SECTION_TEXT_MAX)))
    sep = t(locale, " — ", "：") if summary.strip() else ""
    return message(f"{outcome}{sep}{summary}", blocks)


def outcome_text(kind: str, request: Request | None, engine: Engine, locale: str) -> str:
    """What a click did, for `confirm_card_closed` (plain text; the card escapes it).

    `kind` is the pending action's kind (submit, decide, withdraw, remind) or "cancel".
    """
    kind = str(kind)
    if kind in ("cancel", "cancelled") or request is None:
        return t(locale, "Cancelled: nothing was sent", "已取消：未发送任何内容")
    step = request.open_step()
    total = len(request.steps)
    where = ""
    if step is not None:
        holder = name_of(engine, step.assignee or step.approver)
        where = t(
            locale,
            f"waiting for {holder} ({lower_first(step_of(step.index, total, None, locale))})",
            f"等待 {holder} 审批（{step_of(step.index, total, None, locale)}）",
        )
    match kind:
        case "submit":
            if where:
                return t(locale, f"Submitted — {where}", f"已提交，{where}")
            if request.status is RequestStatus.APPROVED:
                return t(locale, "Submitted and approved automatically", "已提交，并已自动批准")
            return t(locale, "Submitted", "已提交")
        case "decide":
            if request.status is RequestStatus.REJECTED:
                return t(locale, "Rejected", "已驳回")
            if where:
                return t(locale, f"Approved — now {where}", f"已批准，现{where}")
            return t(locale, "Approved", "已批准")
        case "withdraw":
            return t(locale, "Withdrawn", "已撤回")
        case "remind":
            if step is not None:
                holder = name_of(engine, step.assignee or step.approver)
                return t(locale, f"Reminder sent to {holder}", f"已提醒 {holder}")
            return t(locale, "Reminder sent", "已发送提醒")
    return t(locale, "Done", "已完成")
