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
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from agent.events import ProposalReady
from agent.i18n import fmt_days, fmt_range, t
from agent.tools.describe import what, where_it_is
from bot.conversation.buttons import (
    ACTIONS as ACTIONS,
)
from bot.conversation.buttons import (
    PENDING_CANCEL,
    PENDING_CONFIRM,
    REQUEST_APPROVE,
    REQUEST_BACK,
    REQUEST_REJECT,
    REQUEST_REJECT_SUBMIT,
    PendingRef,
    StepRef,
    feishu_value,
)
from bot.wording import (
    confirm_label,
    days_text,
    decision_text,
    detail,
    headline,
    id_line,
    leave_type_name,
    name_of,
    out_line,
    request_facts,
    routed_text,
    step_name,
    step_of,
    title_of,
)
from workflow.engine import Engine
from workflow.models import Request, Step
from workflow.queries import RequestView

Card = dict[str, Any]
TaskStatus = Literal["pending", "in_progress", "complete", "error"]

REASON_INPUT = "reason"

ELLIPSIS = "…"
TEXT_MAX = 2000
TITLE_MAX = 100
BUTTON_MAX = 40
TOAST_MAX = 200
REASON_MAX = 500
TASKS_MAX = 30
LIST_MAX = 10
_MARKS = {"pending": "○", "in_progress": "⏳", "complete": "✅", "error": "❌"}
_TEMPLATES = {
    "approved": "green",
    "rejected": "red",
    "withdrawn": "grey",
    "expired": "grey",
    "reassigned": "grey",
    "open": "grey",
    "info": "blue",
}


@dataclass(frozen=True)
class TaskLine:
    """One tool call as a person sees it: a title, a status and a one-line output."""

    task_id: str
    title: str
    status: TaskStatus
    output: str | None = None


# --- pieces -------------------------------------------------------------------------------------


def truncate(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with a trailing "…", never inside an &entity;."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut.rstrip() + ELLIPSIS


def escape(text: object) -> str:
    """Text for lark_md that shows as typed: no `<at>` mentions, no tags, no entities."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


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
        elements.append(note(t(locale, "Thinking…", "正在思考…")))
    if done and not shown:
        return card(None, elements)
    title = t(locale, "Steps", "处理步骤") if done else t(locale, "Working on it…", "处理中…")
    return card(title, elements, "grey" if done else "blue")


# --- the confirm card of a proposal -------------------------------------------------------------

_INTERNAL = {"process", "approver", "approvers", "half_day", "balance_after", "working_days"}
_LONG = ("reason", "comment", "note")


def _proposal_facts(p: ProposalReady, locale: str, engine: Engine | None) -> list[tuple[str, str]]:
    f = p.fields
    if p.action != "submit":
        pairs = [(t(locale, "Request", "申请"), p.request_id)]
        if f.get("requester"):
            pairs.append((t(locale, "Requester", "申请人"), str(f["requester"])))
        if p.action == "decide":
            pairs.append((t(locale, "Decision", "决定"), confirm_label(p, locale)[0]))
        if f.get("to"):
            pairs.append((t(locale, "To", "提醒对象"), str(f["to"])))
        return pairs
    pairs = []
    if "leave_type" in f:
        pairs.append((t(locale, "Type", "类型"), leave_type_name(engine, f["leave_type"], locale)))
        try:
            start, end = date.fromisoformat(str(f["start"])), date.fromisoformat(str(f["end"]))
            dates = fmt_range(
                start, end, bool(f.get("start_half")), bool(f.get("end_half")), locale
            )
            pairs.append((t(locale, "Dates", "日期"), dates))
        except (KeyError, ValueError):
            pass
        if isinstance(f.get("working_days"), int | float):
            pairs.append((t(locale, "Working days", "工作日"), fmt_days(f["working_days"], locale)))
    else:
        for key, value in f.items():
            if key not in _INTERNAL and key not in _LONG and value not in (None, ""):
                pairs.append((key.replace("_", " ").capitalize(), str(value)))
    if approvers := [str(a) for a in f.get("approvers") or []]:
        pairs.append((t(locale, "Approval", "审批人"), " → ".join(approvers)))
    if isinstance(after := f.get("balance_after"), int | float):
        left = days_text(after, locale)
        pairs.append(
            (t(locale, "Balance after", "提交后余额"), t(locale, f"{left} left", f"剩余 {left}"))
        )
    return pairs


def confirm_card(
    p: ProposalReady, locale: str, *, thread: str, engine: Engine | None = None
) -> Card:
    """The proposal's exact contents with [Submit|Approve|Reject|Confirm] [Cancel].

    Only `p.confirm_by` can click; the engine checks that. `thread` is noted in the button
    values so the click's outcome is added to the conversation.
    """
    verb, kind = confirm_label(p, locale)
    elements: list[Card] = [div(escape(p.summary))]
    if facts := _proposal_facts(p, locale, engine):
        elements.append(fields(facts))
    for key in _LONG:
        value = p.fields.get(key)
        if isinstance(value, str) and value.strip():
            label = (
                t(locale, "Comment", "意见") if key == "comment" else t(locale, "Reason", "事由")
            )
            if key == "note":
                label = t(locale, "Note", "附言")
            elements += [
                div(f"**{escape(label)}**"),
                plain_div(truncate(value.strip(), REASON_MAX)),
            ]
    elements.append(
        note(
            t(
                locale,
                f"Nothing happens until you click {verb}. Only {p.confirm_by} can confirm this.",
                f"点击「{verb}」后才会生效；只有 {p.confirm_by} 可以确认。",
            )
        )
    )
    ref = PendingRef(pending_id=p.pending_id, thread=thread)
    elements.append(
        actions(
            button(verb, feishu_value(PENDING_CONFIRM, ref), kind),
            button(t(locale, "Cancel", "取消"), feishu_value(PENDING_CANCEL, ref)),
        )
    )
    return card(t(locale, "Please confirm", "请确认"), elements, "blue")


def confirm_card_closed(summary: str, outcome: str, locale: str, *, ok: bool = True) -> Card:
    """The confirm card after a click: the summary and what happened, no buttons."""
    elements = [div(escape(summary))] if summary.strip() else []
    elements.append(div(f"**{escape(outcome)}**"))
    title = t(locale, "Confirmed", "已确认") if ok else t(locale, "Cancelled", "已取消")
    return card(title, elements, "green" if ok else "grey")


# --- the approver's card ----------------------------------------------------------------------


def _details(
    req: Request,
    engine: Engine,
    locale: str,
    balance_after: float | None = None,
    team_out: Sequence[Any] | None = None,
) -> list[Card]:
    elements: list[Card] = [fields(request_facts(req, engine, locale, balance_after))]
    reason = req.fields.get("reason") if req.is_leave else None
    if isinstance(reason, str) and reason.strip():
        elements += [
            div(f"**{escape(t(locale, 'Reason', '事由'))}**"),
            plain_div(truncate(reason.strip(), REASON_MAX)),
        ]
    if req.is_leave and team_out is not None:
        lines = [f"**{escape(t(locale, 'Also out in the team then', '同组同期请假'))}**"]
        lines += [f"• {escape(out_line(o, locale))}" for o in team_out[:LIST_MAX]]
        if not team_out:
            lines.append(escape(t(locale, "Nobody", "无")))
        elif len(team_out) > LIST_MAX:
            lines.append(
                escape(
                    t(
                        locale,
                        f"…and {len(team_out) - LIST_MAX} more",
                        f"……另有 {len(team_out) - LIST_MAX} 人",
                    )
                )
            )
        elements.append(div("\n".join(lines)))
    return elements


def _step_note(req: Request, step: Step, engine: Engine, locale: str) -> Card:
    lines = [step_of(step.index, len(req.steps), step_name(step, locale), locale)]
    if (routed := routed_text(step, engine, locale)) is not None:
        lines.append(routed)
    lines.append(id_line(req, locale))
    return note(*lines)


def _value(action: str, req: Request, step: Step) -> dict[str, Any]:
    return feishu_value(action, StepRef(request_id=req.id, step=step.index))


def decision_buttons(req: Request, step: Step, engine: Engine, locale: str) -> Card:
    """[Approve] (with a confirm dialog) and [Reject] (asks for the reason on the card)."""
    who, it = name_of(engine, req.requester), what(req, engine.config, locale)
    if step.index + 1 < len(req.steps):
        nxt = req.steps[step.index + 1]
        then = t(
            locale,
            f" It then goes to {name_of(engine, nxt.approver)} ({nxt.name}).",
            f"之后转 {name_of(engine, nxt.approver)}（{nxt.name_zh}）审批。",
        )
    else:
        then = t(locale, " This is the last step.", "这是最后一步。")
    dialog = (
        t(locale, "Approve this request?", "批准此申请？"),
        t(locale, f"Approve {who}'s {it}?", f"批准 {who} 的{it}？") + then,
    )
    return actions(
        button(
            t(locale, "Approve", "批准"),
            _value(REQUEST_APPROVE, req, step),
            "primary",
            dialog,
        ),
        button(t(locale, "Reject", "驳回"), _value(REQUEST_REJECT, req, step), "danger"),
    )


def approval_card(
    view: RequestView, engine: Engine, locale: str, reminder: str | None = None
) -> Card:
    """The approver's card: the request, who else is out, step k of n, [Approve] [Reject].

    `reminder` (a line such as "Reminder from 张三: …") goes on top when the requester nudged.
    """
    req = view.request
    step = req.open_step()
    if step is None:  # decided meanwhile: the facts and where it stands, no buttons
        return approval_card_closed(req, engine, locale, req.current_step or 0)
    elements = [plain_div(reminder)] if reminder else []
    elements += _details(req, engine, locale, view.balance_after, view.team_out)
    elements += [_step_note(req, step, engine, locale), decision_buttons(req, step, engine, locale)]
    return card(title_of(req, engine, locale), elements, "orange" if reminder else "blue")


def reminder_card(
    view: RequestView, engine: Engine, locale: str, note_text: str | None = None
) -> Card:
    """The approval card with "Reminder from <requester>: <note>" on top."""
    who = name_of(engine, view.request.requester)
    line = t(locale, f"⏰ Reminder from {who}", f"⏰ {who} 的催办提醒")
    if note_text and note_text.strip():
        line += t(locale, f": {note_text.strip()}", f"：{note_text.strip()}")
    return approval_card(view, engine, locale, reminder=line)


def reject_form_card(req: Request, step: Step, engine: Engine, locale: str) -> Card:
    """The approver's card asking for the reason: an input, [Reject] (confirmed) and [Back]."""
    who = name_of(engine, req.requester)
    form = {
        "tag": "form",
        "name": "reject_form",
        "elements": [
            {
                "tag": "input",
                "name": REASON_INPUT,
                "required": True,
                "max_length": REASON_MAX,
                "label": plain(t(locale, "Reason for rejecting", "驳回理由")),
                "placeholder": plain(
                    t(locale, f"{who} will see this reason.", f"{who} 会看到这条理由。")
                ),
            },
            button(
                t(locale, "Reject", "驳回"),
                _value(REQUEST_REJECT_SUBMIT, req, step),
                "danger",
                (
                    t(locale, "Reject this request?", "驳回此申请？"),
                    t(
                        locale,
                        f"{who} will be told, with your reason.",
                        f"将通知 {who}，并附上你的理由。",
                    ),
                ),
                action_type="form_submit",
                name="reject_submit",
            ),
        ],
    }
    elements = _details(req, engine, locale)
    elements += [
        _step_note(req, step, engine, locale),
        form,
        actions(button(t(locale, "Back", "返回"), _value(REQUEST_BACK, req, step))),
    ]
    return card(title_of(req, engine, locale), elements, "red")


def approval_card_closed(request: Request, engine: Engine, locale: str, step_index: int) -> Card:
    """The approval card after the decision (or withdrawal, or reassignment): no buttons."""
    outcome, sentence = decision_text(request, step_index, engine, locale)
    elements = _details(request, engine, locale)
    elements += [
        div(f"**{escape(sentence)}**"),
        note(id_line(request, locale), where_it_is(request, engine.directory, locale)),
    ]
    return card(title_of(request, engine, locale), elements, _TEMPLATES.get(outcome, "grey"))


# --- the requester's notices -----------------------------------------------------------------


def requester_notice(
    event_type: str, request: Request, engine: Engine, locale: str, data: dict[str, Any]
) -> Card:
    """The requester's card for an outbox event: submitted, step approved, approved, rejected, …"""
    outcome, sentence = headline(event_type, request, engine, locale, data)
    elements = [div(f"**{escape(sentence)}**\n{escape(what(request, engine.config, locale))}")]
    if (extra := detail(event_type, locale, data)) is not None:
        label, text = extra
        elements += [div(f"**{escape(label)}**"), plain_div(truncate(text, REASON_MAX))]
    elements.append(note(id_line(request, locale), where_it_is(request, engine.directory, locale)))
    return card(title_of(request, engine, locale), elements, _TEMPLATES.get(outcome, "blue"))


def notice_card(title: str, lines: Sequence[str], template: str = "blue") -> Card:
    """A plain notice from the worker (expiry, escalation, digest, who's out): a title and lines."""
    return card(title, [plain_div(truncate("\n".join(lines), TEXT_MAX))], template)
