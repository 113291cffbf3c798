"""Feishu's "Request leave" form card: the same fields and checks as Slack's /leave modal.

Opened from the bot's menu (event key `request_leave`) or by writing `/leave` (`/请假`); its
Submit is the confirmation and goes through `bot.conversation.forms.submit_leave`; errors come
back on the same card, under the field they concern.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agent.i18n import t
from bot.conversation.buttons import LEAVE_FORM_SUBMIT
from bot.feishu.cards import REASON_MAX, Card, button, card, div, escape, note, plain
from workflow.config import Person
from workflow.engine import Engine

MENU_KEY = "request_leave"
COMMANDS = frozenset({"/leave", "/请假"})


def _labelled(label: str, element: Card, error: str | None) -> list[Card]:
    out = [div(f"**{escape(label)}**"), element]
    if error:
        out.append(note("⚠️ " + error))
    return out


def leave_form_card(
    person: Person,
    engine: Engine,
    locale: str,
    *,
    approvers: list[str],
    initial: Mapping[str, Any] | None = None,
    errors: Mapping[str, str] | None = None,
) -> Card:
    """Type, first and last day, half days, reason, who approves, and [Submit]."""
    initial, errors = initial or {}, errors or {}
    process = engine.process("leave")
    fd = process.field("leave_type")
    allowed = set(fd.choices) if fd is not None and fd.choices else None
    types = [lt for lt in engine.config.leave_types if allowed is None or lt.key in allowed]

    def label(name: str, en: str, zh: str) -> str:
        f = process.field(name)
        return (f.label_zh if locale == "zh" else f.label) if f is not None else t(locale, en, zh)

    def picker(name: str) -> Card:
        el: Card = {
            "tag": "date_picker",
            "name": name,
            "required": True,
            "placeholder": plain(t(locale, "Pick a date", "选择日期")),
        }
        if initial.get(name):
            el["initial_date"] = str(initial[name])
        return el

    leave_type: Card = {
        "tag": "select_static",
        "name": "leave_type",
        "required": True,
        "placeholder": plain(t(locale, "Choose a type", "选择假期类型")),
        "options": [{"text": plain(lt.display_name(locale)), "value": lt.key} for lt in types],
    }
    if initial.get("leave_type"):
        leave_type["initial_option"] = str(initial["leave_type"])
    halves: Card = {
        "tag": "multi_select_static",
        "name": "halves",
        "placeholder": plain(t(locale, "Whole days", "整天")),
        "options": [
            {
                "text": plain(t(locale, "First day: afternoon only", "第一天仅下午")),
                "value": "start_half",
            },
            {
                "text": plain(t(locale, "Last day: morning only", "最后一天仅上午")),
                "value": "end_half",
            },
        ],
    }
    reason: Card = {
        "tag": "input",
        "name": "reason",
        "max_length": REASON_MAX,
        "placeholder": plain(
            t(locale, "Only your approvers and HR see it.", "仅审批人和人事可见。")
        ),
    }
    if initial.get("reason"):
        reason["default_value"] = str(initial["reason"])
    elements: list[Card] = []
    elements += _labelled(
        label("leave_type", "Type of leave", "假期类型"), leave_type, errors.get("leave_type")
    )
    elements += _labelled(
        label("start", "First day", "开始日期"), picker("start"), errors.get("start")
    )
    elements += _labelled(label("end", "Last day", "结束日期"), picker("end"), errors.get("end"))
    elements += _labelled(
        t(locale, "Half days", "半天"), halves, errors.get("start_half") or errors.get("end_half")
    )
    elements += _labelled(label("reason", "Reason", "事由"), reason, errors.get("reason"))
    elements.append(
        button(
            t(locale, "Submit", "提交"),
            {"action": LEAVE_FORM_SUBMIT},
            "primary",
            action_type="form_submit",
            name="leave_submit",
        )
    )
    chain = (
        " → ".join(approvers) if approvers else t(locale, "decided when you submit", "提交时确定")
    )
    form = {"tag": "form", "name": "leave_form", "elements": elements}
    return card(
        t(locale, "Request leave", "申请请假"),
        [form, note(t(locale, f"Approval: {chain}", f"审批人：{chain}"))],
        "red" if errors else "blue",
    )


def parse_leave_form(form: Mapping[str, Any]) -> dict[str, Any]:
    """A submitted form's values → the engine's fields (missing values → None)."""

    def day(value: Any) -> str | None:  # Feishu sends "2026-12-03 +0800"
        return str(value)[:10] if isinstance(value, str) and value.strip() else None

    halves = form.get("halves")
    ticked = set(halves) if isinstance(halves, list) else set()
    reason = form.get("reason")
    kind = form.get("leave_type")
    return {
        "leave_type": kind if isinstance(kind, str) and kind else None,
        "start": day(form.get("start")),
        "end": day(form.get("end")),
        "start_half": "start_half" in ticked,
        "end_half": "end_half" in ticked,
        "reason": reason.strip() or None if isinstance(reason, str) else None,
    }
