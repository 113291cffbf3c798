"""Routing reasons are stored as codes and worded per reader: an escalation is never called a leave."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.feishu import cards
from bot.presentation.requests import approval_card
from bot.slack import blocks
from bot.wording import routed_text
from tests.helpers import ANNUAL_2_DAYS, submitted
from workflow.clock import FixedClock
from workflow.engine import Engine
from workflow.models import RoutedReason, RoutingCode, Step
from workflow.scheduler import Scheduler

SHANGHAI = ZoneInfo("Asia/Shanghai")


def use_clock(engine: Engine, clock: FixedClock) -> FixedClock:
    engine.clock = clock
    engine.setting = engine.setting.__class__(
        engine.directory, clock, engine.keys, engine.config.policy
    )
    return clock


async def escalated_request(engine: Engine):
    clock = use_clock(
        engine, FixedClock(datetime(2026, 12, 2, 9, 0, tzinfo=SHANGHAI).astimezone(UTC))
    )
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(days=8))  # past 王芳's 48 working hours: the step goes to David
    await Scheduler(engine).run_due()
    return req


async def test_an_escalated_step_is_stored_as_a_code_and_worded_as_an_escalation(engine: Engine):
    """The stored step says escalated/from/to/hours; the Chinese card says 未审批, never 休假."""
    req = await escalated_request(engine)
    stored = await engine.get_request(req.id, "zhangsan")
    assert stored.steps[0].routed_reason.model_dump(mode="json") == {
        "code": "escalated",
        "from": "wangfang",
        "to": "david",
        "until": None,
        "hours": 48.0,
    }
    view = await engine.request_view(req.id, "david")
    slack_zh = json.dumps(blocks.approval_card(view, engine, "zh").blocks, ensure_ascii=False)
    feishu_zh = json.dumps(cards.render(approval_card(view, engine, "zh")), ensure_ascii=False)
    for text in (slack_zh, feishu_zh):
        assert "王芳 在 48 个工作小时内未审批，已上报 David Chen 审批。" in text
        assert "休假" not in text
    slack_en = json.dumps(blocks.approval_card(view, engine, "en").blocks, ensure_ascii=False)
    assert "No decision by 王芳 within 48 working hours; escalated to David Chen." in slack_en


def step_with(reason: str | RoutedReason) -> Step:
    return Step(
        index=0,
        name="Manager",
        name_zh="直属主管",
        approver="wangfang",
        assignee="david",
        routed_reason=reason,
    )


async def test_old_prose_reasons_are_read_back_into_codes(engine: Engine):
    """Records written before codes still render: each old sentence in its own meaning, in Chinese too."""
    escalated = step_with("No decision by 王芳 within 48 working hours; escalated to David Chen.")
    on_leave = step_with("王芳 is on leave until 2026-12-09; sent to David Chen.")
    delegated = step_with("王芳 delegated approvals to 陈静 until 2026-12-09.")
    unknown = step_with("Something else happened.")
    assert (
        routed_text(escalated, engine, "zh")
        == "王芳 在 48 个工作小时内未审批，已上报 David Chen 审批。"
    )
    assert (
        routed_text(on_leave, engine, "zh")
        == "王芳 休假至 2026年12月9日 周三，已转交 David Chen 审批。"
    )
    assert (
        routed_text(delegated, engine, "zh")
        == "王芳 已委托 陈静 代为审批（至 2026年12月9日 周三）。"
    )
    assert routed_text(unknown, engine, "zh") == "已转交 David Chen 审批。"
    assert routed_text(escalated, engine, "en") == (
        "No decision by 王芳 within 48 working hours; escalated to David Chen."
    )
    assert routed_text(on_leave, engine, "en") == (
        "王芳 is on leave until Wed 9 Dec 2026; sent to David Chen."
    )


async def test_a_code_renders_names_from_ids_in_each_language(engine: Engine):
    reason = RoutedReason(code=RoutingCode.DELEGATED, from_="wangfang", to="chenjing")
    step = step_with(reason)
    assert routed_text(step, engine, "en") == "王芳 delegated approvals to 陈静 until ?."
    stored = Step.model_validate_json(step.model_dump_json())
    assert stored.routed_reason == reason
