"""Modals: the reason for a rejection, and the /leave form with its parser."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slack_sdk.models.blocks import (
    Block,
    CheckboxesElement,
    DatePickerElement,
    InputBlock,
    Option,
    PlainTextInputElement,
    StaticSelectElement,
)
from slack_sdk.models.views import View

from agent.i18n import t
from agent.tools.describe import what
from bot.slack.blocks_base import (
    OPTION_TEXT_MAX,
    PLACEHOLDER_MAX,
    VIEW_BLOCKS_MAX,
    VIEW_TITLE_MAX,
    context,
    dump,
    escape,
    plain,
    section,
)
from bot.wording import field_label, name_of
from workflow.config import Person, ProcessDef
from workflow.engine import Engine
from workflow.models import Request

REASON_MAX = 500
LABEL_MAX = 2000


def _modal(
    callback_id: str,
    title: str,
    submit: str,
    close: str,
    blocks: list[Block],
    private_metadata: str | None = None,
) -> dict[str, Any]:
    return View(
        type="modal",
        callback_id=callback_id,
        title=plain(title, VIEW_TITLE_MAX),
        submit=plain(submit, VIEW_TITLE_MAX),
        close=plain(close, VIEW_TITLE_MAX),
        blocks=dump(blocks, VIEW_BLOCKS_MAX),
        private_metadata=private_metadata,
    ).to_dict()


def reject_modal(request: Request, step_index: int, engine: Engine, locale: str) -> dict[str, Any]:
    """The modal [Reject] opens: one required reason, sent to the requester."""
    who = name_of(engine, request.requester)
    blocks: list[Block] = [
        section(f"*{escape(who)}* · {escape(what(request, engine.config, locale))}"),
        InputBlock(
            block_id="reason",
            label=plain(
                t(locale, f"Reason ({who} will see it)", f"驳回理由（{who} 可见）"), LABEL_MAX
            ),
            element=PlainTextInputElement(
                action_id="reason",
                multiline=True,
                max_length=REASON_MAX,
                placeholder=plain(
                    t(locale, "Why is it rejected?", "请说明驳回原因"), PLACEHOLDER_MAX
                ),
            ),
            optional=False,
        ),
    ]
    metadata = json.dumps({"request_id": request.id, "step": step_index})
    return _modal(
        "reject_reason",
        t(locale, "Reject request", "驳回申请"),
        t(locale, "Reject", "驳回"),
        t(locale, "Cancel", "取消"),
        blocks,
        metadata,
    )


def _leave_process(engine: Engine) -> ProcessDef | None:
    return next((p for p in engine.config.processes if p.kind == "leave"), None)


def _label(process: ProcessDef | None, name: str, en: str, zh: str, locale: str) -> str:
    fd = process.field(name) if process is not None else None
    return field_label(fd, locale) if fd is not None else t(locale, en, zh)


def _half_options(process: ProcessDef | None, locale: str) -> list[Option]:
    return [
        Option(
            value=name,
            text=plain(_label(process, name, en, zh, locale), OPTION_TEXT_MAX),
        )
        for name, en, zh in (
            ("start_half", "First day: afternoon only", "首日仅下午"),
            ("end_half", "Last day: morning only", "末日仅上午"),
        )
    ]


def leave_modal(
    person: Person,
    engine: Engine,
    locale: str,
    *,
    approvers: list[str],
    initial: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The /leave form: type, first and last day, half days, reason, and who approves.

    `approvers` are display names from the engine's chain preview, in order (a name may carry
    its condition, e.g. "刘洋 (HR for more than 3 days)"). `initial` pre-fills the fields
    (the engine's field names) when the form is shown again.
    """
    initial = initial or {}
    process = _leave_process(engine)
    allowed = None
    if process is not None and (fd := process.field("leave_type")) is not None and fd.choices:
        allowed = set(fd.choices)
    options = [
        Option(value=lt.key, text=plain(lt.display_name(locale), OPTION_TEXT_MAX))
        for lt in engine.config.leave_types
        if allowed is None or lt.key in allowed
    ][:100]
    chosen = next((o for o in options if o.value == initial.get("leave_type")), None)
    halves = _half_options(process, locale)
    ticked = [o for o in halves if initial.get(o.value)]
    reason_field = process.field("reason") if process is not None else None
    reason_max = min(reason_field.max_length if reason_field else REASON_MAX, 3000)
    needs_reason = [
        lt.display_name(locale) for lt in engine.config.leave_types if lt.reason_required
    ]
    hint = t(
        locale,
        "Only your approvers and HR see it.",
        "仅审批人和人事可见。",
    )
    if needs_reason:
        joined = t(locale, ", ", "、").join(needs_reason)
        hint = t(locale, f"Required for {joined}. ", f"{joined}必填。") + hint

    def date_input(name: str, en: str, zh: str) -> InputBlock:
        value = initial.get(name)
        return InputBlock(
            block_id=name,
            label=plain(_label(process, name, en, zh, locale), LABEL_MAX),
            element=DatePickerElement(
                action_id=name,
                initial_date=str(value) if value else None,
                placeholder=plain(t(locale, "Pick a date", "选择日期"), PLACEHOLDER_MAX),
            ),
        )

    chain = (
        " → ".join(approvers) if approvers else t(locale, "decided when you submit", "提交时确定")
    )
    blocks: list[Block] = [
        InputBlock(
            block_id="leave_type",
            label=plain(
                _label(process, "leave_type", "Type of leave", "假期类型", locale), LABEL_MAX
            ),
            element=StaticSelectElement(
                action_id="leave_type",
                placeholder=plain(t(locale, "Choose a type", "选择假期类型"), PLACEHOLDER_MAX),
                options=options,
                initial_option=chosen,
            ),
        ),
        date_input("start", "First day", "开始日期"),
        date_input("end", "Last day", "结束日期"),
        InputBlock(
            block_id="halves",
            label=plain(t(locale, "Half days", "半天"), LABEL_MAX),
            element=CheckboxesElement(
                action_id="halves", options=halves, initial_options=ticked or None
            ),
            optional=True,
        ),
        InputBlock(
            block_id="reason",
            label=plain(_label(process, "reason", "Reason", "事由", locale), LABEL_MAX),
            element=PlainTextInputElement(
                action_id="reason",
                multiline=True,
                max_length=reason_max,
                initial_value=str(initial["reason"]) if initial.get("reason") else None,
            ),
            hint=plain(hint, LABEL_MAX),
            optional=True,
        ),
        context(
            escape(t(locale, f"Approval: {chain}", f"审批：{chain}")),
            escape(
                t(
                    locale,
                    f"For {person.name}. Working days, your balance and clashes are checked when you submit.",
                    f"申请人：{person.name}。提交时会核对工作日、余额和日期冲突。",
                )
            ),
        ),
    ]
    return _modal(
        "leave_form",
        t(locale, "Request leave", "请假申请"),
        t(locale, "Submit", "提交"),
        t(locale, "Cancel", "取消"),
        blocks,
    )


def _state(values: Mapping[str, Any], block_id: str) -> Mapping[str, Any]:
    block = values.get(block_id)
    if not isinstance(block, Mapping):
        return {}
    element = block.get(block_id)
    return element if isinstance(element, Mapping) else {}


def parse_leave_form(state_values: Mapping[str, Any]) -> dict[str, Any]:
    """`view.state.values` of the leave form → the engine's fields (missing values → None).

    The half days are always booleans: an unticked box is False.
    """
    selected = _state(state_values, "leave_type").get("selected_option")
    options = _state(state_values, "halves").get("selected_options")
    ticked = {
        o.get("value")
        for o in (options if isinstance(options, list) else [])
        if isinstance(o, Mapping) and isinstance(o.get("value"), str)
    }
    reason = _state(state_values, "reason").get("value")
    return {
        "leave_type": selected.get("value") if isinstance(selected, Mapping) else None,
        "start": _state(state_values, "start").get("selected_date") or None,
        "end": _state(state_values, "end").get("selected_date") or None,
        "start_half": "start_half" in ticked,
        "end_half": "end_half" in ticked,
        "reason": reason.strip() or None if isinstance(reason, str) else None,
    }
