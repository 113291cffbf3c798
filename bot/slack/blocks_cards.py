"""The approver's request card (open, reminded and closed) and the requester's DMs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from slack_sdk.models.blocks import Block

from agent.i18n import t
from agent.tools.describe import what, where_it_is
from bot import wording
from bot.conversation.buttons import REQUEST_APPROVE, REQUEST_REJECT, step_value
from bot.slack.blocks_base import (
    LIST_MAX,
    SECTION_TEXT_MAX,
    SlackMessage,
    actions,
    and_more,
    button,
    confirm_dialog,
    context,
    escape,
    fields_section,
    fmt_time,
    header,
    message,
    process_of,
    section,
    step_of,
    truncate,
)
from bot.wording import name_of, out_line, routed_text, step_name
from workflow.engine import Engine
from workflow.models import Request, Step
from workflow.queries import OutEntry, RequestView

# --- pieces of a request, shared with the Home tab ---------------------------------------------


def reason_text(req: Request, locale: str) -> str | None:
    """'*Reason*\\n…' (escaped) for a leave with a reason, else None."""
    reason = req.fields.get("reason") if req.is_leave else None
    if not isinstance(reason, str) or not reason.strip():
        return None
    return truncate(f"*{t(locale, 'Reason', '事由')}*\n{escape(reason.strip())}", SECTION_TEXT_MAX)


def team_out_text(entries: Sequence[OutEntry], locale: str) -> str:
    """Who else in the team is out then: names and dates only, 'Nobody' otherwise."""
    title = f"*{t(locale, 'Also out in the team then', '同组同期请假')}*"
    if not entries:
        return f"{title}\n{t(locale, 'Nobody', '无')}"
    lines = [f"• {escape(out_line(o, locale))}" for o in entries[:LIST_MAX]]
    if len(entries) > LIST_MAX:
        lines.append(and_more(len(entries) - LIST_MAX, locale))
    return truncate("\n".join([title, *lines]), SECTION_TEXT_MAX)


def _title(req: Request, engine: Engine, locale: str) -> str:
    process = process_of(engine, req.process)
    kind = process.display_name(locale) if process else req.process
    who = name_of(engine, req.requester)
    return t(locale, f"{kind} request · {who}", f"{kind}申请 · {who}")


def _id_line(req: Request, locale: str) -> str:
    at = fmt_time(req.submitted_at or req.created_at)
    return escape(t(locale, f"{req.id} · submitted {at}", f"{req.id} · 提交于 {at}"))


def _detail_blocks(
    req: Request,
    engine: Engine,
    locale: str,
    balance_after: float | None,
    team_out: Sequence[OutEntry] | None,
) -> list[Block]:
    blocks: list[Block] = [
        header(_title(req, engine, locale)),
        fields_section(request_facts(req, engine, locale, balance_after)),
    ]
    if (reason := reason_text(req, locale)) is not None:
        blocks.append(section(reason))
    if req.is_leave and team_out is not None:
        blocks.append(section(team_out_text(team_out, locale)))
    return blocks


# --- the approver's card --------------------------------------------------------------------


def decision_buttons(req: Request, step: Step, engine: Engine, locale: str) -> list[Any]:
    """[Approve] (with a confirm dialog) and [Reject] (opens the reason modal)."""
    value = step_value(req.id, step.index)
    who = name_of(engine, req.requester)
    it = what(req, engine.config, locale)
    if step.index + 1 < len(req.steps):
        nxt = req.steps[step.index + 1]
        then = t(
            locale,
            f" It then goes to {name_of(engine, nxt.approver)} ({nxt.name}).",
            f"之后转 {name_of(engine, nxt.approver)}（{nxt.name_zh}）审批。",
        )
    else:
        then = t(locale, " This is the last step.", "这是最后一步。")
    dialog = confirm_dialog(
        t(locale, "Approve this request?", "批准此申请？"),
        t(locale, f"Approve {who}'s {it}?", f"批准 {who} 的{it}？") + then,
        t(locale, "Approve", "批准"),
        t(locale, "Cancel", "取消"),
        style="primary",
    )
    return [
        button(
            t(locale, "Approve", "批准"),
            REQUEST_APPROVE,
            value,
            style="primary",
            confirm=dialog,
        ),
        button(t(locale, "Reject", "驳回"), REQUEST_REJECT, value, style="danger"),
    ]


def _approval(view: RequestView, engine: Engine, locale: str) -> tuple[str, list[Block]]:
    req = view.request
    blocks = _detail_blocks(req, engine, locale, view.balance_after, view.team_out)
    step = req.open_step()
    who = name_of(engine, req.requester)
    fallback = t(
        locale,
        f"{who} asks for your approval: {what(req, engine.config, locale)}",
        f"{who} 请你审批：{what(req, engine.config, locale)}",
    )
    if step is None:  # decided meanwhile: the facts and where it stands, no buttons
        blocks.append(
            context(_id_line(req, locale), escape(where_it_is(req, engine.directory, locale)))
        )
        return fallback, blocks
    lines = [escape(step_of(step.index, len(req.steps), step_name(step, locale), locale))]
    if (routed := routed_text(step, engine, locale)) is not None:
        lines.append(escape(routed))
    lines.append(_id_line(req, locale))
    blocks.append(context(*lines))
    blocks.append(
        actions(
            *decision_buttons(req, step, engine, locale),
            block_id=f"request:{req.id}:{step.index}",
        )
    )
    return fallback, blocks


def approval_card(view: RequestView, engine: Engine, locale: str) -> SlackMessage:
    """The approver's DM: the request, who else is out, the step, [Approve] [Reject]."""
    fallback, blocks = _approval(view, engine, locale)
    return message(fallback, blocks)


def reminder_card(
    view: RequestView, engine: Engine, locale: str, note: str | None = None
) -> SlackMessage:
    """The approval card with "Reminder from <requester>: <note>" on top."""
    fallback, blocks = _approval(view, engine, locale)
    who = name_of(engine, view.request.requester)
    line = t(locale, f"Reminder from {who}", f"{who} 的催办提醒")
    if note and note.strip():
        line += t(locale, f": {note.strip()}", f"：{note.strip()}")
    return message(f"{line} — {fallback}", [context(":alarm_clock: " + escape(line)), *blocks])


_DECISION_EMOJI = {
    "approved": ":white_check_mark:",
    "rejected": ":x:",
    "withdrawn": ":leftwards_arrow_with_hook:",
    "expired": ":hourglass:",
    "reassigned": ":arrow_right:",
}


def decision_text(req: Request, index: int, engine: Engine, locale: str) -> tuple[str, str]:
    """(emoji, raw sentence) for what became of step `index`: approved by, rejected by, …"""
    outcome, text = wording.decision_text(req, index, engine, locale)
    return _DECISION_EMOJI.get(outcome, ""), text


def request_facts(
    req: Request, engine: Engine, locale: str, balance_after: float | None = None
) -> list[tuple[str, str]]:
    """The request's facts as (label, value) pairs, escaped for mrkdwn."""
    return [
        (escape(k), escape(v)) for k, v in wording.request_facts(req, engine, locale, balance_after)
    ]


def approval_card_closed(
    request: Request, engine: Engine, locale: str, step_index: int
) -> SlackMessage:
    """The approval card after the decision (or withdrawal, or reassignment): no buttons."""
    emoji, outcome = decision_text(request, step_index, engine, locale)
    blocks = _detail_blocks(request, engine, locale, None, None)
    mark = f"{emoji} " if emoji else ""
    blocks.append(section(truncate(f"{mark}*{escape(outcome)}*", SECTION_TEXT_MAX)))
    blocks.append(
        context(_id_line(request, locale), escape(where_it_is(request, engine.directory, locale)))
    )
    return message(f"{outcome} · {what(request, engine.config, locale)}", blocks)


# --- the requester's DMs --------------------------------------------------------------------


def _detail(event_type: str, locale: str, data: dict[str, Any]) -> str | None:
    """The comment, reason or note that comes with an event (escaped), if any."""
    key = {"request_withdrawn": "reason", "reminder_sent": "note"}.get(event_type, "comment")
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    label = {
        "comment": t(locale, "Reason", "理由")
        if event_type == "request_rejected"
        else t(locale, "Comment", "意见"),
        "reason": t(locale, "Reason", "理由"),
        "note": t(locale, "Note", "附言"),
    }[key]
    return truncate(f"*{label}*\n{escape(value.strip())}", SECTION_TEXT_MAX)


# The emoji that leads a requester DM, by (event, outcome) first, else by outcome.
_OUTCOME_EMOJI = {
    ("request_submitted", "info"): ":outbox_tray:",
    ("request_approved", "approved"): ":tada:",
    ("reminder_sent", "info"): ":alarm_clock:",
    ("task_assigned", "info"): ":arrow_right:",
    ("step_escalated", "info"): ":arrow_right:",
    "approved": ":white_check_mark:",
    "rejected": ":x:",
    "withdrawn": ":leftwards_arrow_with_hook:",
}


def requester_dm(
    event_type: str, request: Request, engine: Engine, locale: str, data: dict[str, Any]
) -> SlackMessage:
    """The requester's DM for an outbox event: submitted, step approved, approved, rejected, …"""
    outcome, headline = wording.headline(event_type, request, engine, locale, data)
    emoji = _OUTCOME_EMOJI.get((event_type, outcome), _OUTCOME_EMOJI.get(outcome, ""))
    it = what(request, engine.config, locale)
    mark = f"{emoji} " if emoji else ""
    blocks: list[Block] = [section(truncate(f"{mark}*{escape(headline)}*\n{escape(it)}", 3000))]
    if (detail := _detail(event_type, locale, data)) is not None:
        blocks.append(section(detail))
    blocks.append(
        context(_id_line(request, locale), escape(where_it_is(request, engine.directory, locale)))
    )
    fallback = f"{headline} {it}"
    if event_type == "request_rejected" and data.get("comment"):
        fallback += t(locale, f" — {data['comment']}", f"：{data['comment']}")
    return message(fallback, blocks)
