"""The offline planner on everyday asks: one's requests, balances, who is out, the approval queue,
withdrawing, reminding, help, follow-ups to a question just answered, and asks it must refuse.

The phrasings are the tests' own; none comes from a held-out set. Today is Wednesday 2 December
2026 (tomorrow Thu 3, 后天 Fri 4, next week Mon 7 – Fri 11).
"""

from __future__ import annotations

from typing import Any

import pytest

from agent.planner import OfflinePlanner
from tests.agent.test_planner import (
    SYSTEM_EN,
    SYSTEM_ZH,
    TOOLS,
    assistant,
    called,
    chat,
    only_call,
    result,
    system_for,
)

READS: list[tuple[str, str, dict[str, Any]]] = [
    ("what requests do I have?", "my_requests", {}),
    ("which claims have i got in", "my_requests", {}),
    ("what have I applied for?", "my_requests", {}),
    ("where does my leave request stand?", "my_requests", {}),
    ("what happened to my leave?", "my_requests", {}),
    ("any news on my holiday?", "my_requests", {}),
    ("我有几个申请", "my_requests", {}),
    ("我这个月提交了哪些报销", "my_requests", {}),
    ("经理批了我的年假吗", "my_requests", {}),
    ("帮我查一下报销进度", "my_requests", {}),
    ("how much holiday do i have", "my_balances", {}),
    ("how many days off do I have", "my_balances", {}),
    ("how many days off have I got left?", "my_balances", {}),
    ("我还有多少病假", "my_balances", {}),
    ("is anybody in the office off tomorrow?", "who_is_out", {"start": "2026-12-03"}),
    (
        "who in our department is away next week?",
        "who_is_out",
        {"start": "2026-12-07", "end": "2026-12-11"},
    ),
    # a time between "who" and "on leave" is still a question, not a leave request
    ("谁下周请假了", "who_is_out", {"start": "2026-12-07", "end": "2026-12-11"}),
    ("哪些人下周休假", "who_is_out", {"start": "2026-12-07", "end": "2026-12-11"}),
    ("谁明天不在？", "who_is_out", {"start": "2026-12-03"}),
    ("what needs my signature?", "my_pending_approvals", {}),
    ("还有待批的吗", "my_pending_approvals", {}),
]


@pytest.mark.parametrize(("text", "tool", "arguments"), READS, ids=[r[0] for r in READS])
async def test_an_everyday_question_reads_the_right_thing(text, tool, arguments):
    """A question about one's own requests, balances, who is out or the queue calls its read."""
    response = await OfflinePlanner().complete(chat(system_for(text), text), TOOLS)
    call = only_call(response)
    assert (call.name, call.arguments) == (tool, arguments)


async def test_cancelling_a_named_leave_in_chinese_looks_for_the_request_to_withdraw():
    """'把病假取消了' is a withdrawal of the pending request, not a sick-leave draft."""
    text = "不请了，把病假取消了吧"
    call = only_call(await OfflinePlanner().complete(chat(SYSTEM_ZH, text), TOOLS))
    assert (call.name, call.arguments) == ("my_requests", {"status": "pending"})


@pytest.mark.parametrize("text", ["what can you help with?", "你能帮我干啥", "你会做些什么"])
async def test_asking_for_help_lists_what_the_bot_does_and_turns_nobody_away(text):
    response = await OfflinePlanner().complete(chat(system_for(text), text), TOOLS)
    assert not response.tool_calls
    assert "can't" not in response.content and "做不了" not in response.content
    assert "帮不上" not in response.content


@pytest.mark.parametrize("text", ["wfh tomorrow", "working from home on Friday"])
async def test_a_dated_plan_the_bot_cannot_record_is_not_cheered_as_if_done(text):
    """'wfh tomorrow' got 'Sounds good — enjoy!', which reads as if it were noted or approved."""
    response = await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS)
    assert not response.tool_calls
    assert "can't" in response.content and "enjoy" not in response.content


@pytest.mark.parametrize(
    "text", ["write me an email to the landlord", "translate this into French"]
)
async def test_an_imperative_outside_the_bots_work_is_refused_not_agreed_to(text):
    """Not the small-talk line ("Sounds good — enjoy!"), which reads as agreement."""
    response = await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS)
    assert not response.tool_calls
    assert "can't" in response.content and "enjoy" not in response.content


def _answered(question: str, tool: str, arguments: dict[str, Any], answer: str) -> list[Any]:
    """A question, the planner's read and its answer: the turn before a follow-up."""
    return [
        question,
        called(tool, "call_planner_1", **arguments),
        result(tool, "call_planner_1", ok=True, summary=answer),
        assistant(answer),
    ]


FOLLOW_UPS: list[tuple[str, list[Any], str, str, dict[str, Any]]] = [
    (
        SYSTEM_EN,
        _answered("how much annual leave is left?", "my_balances", {}, "Annual leave: 20 of 25."),
        "and personal days?",
        "my_balances",
        {},
    ),
    (
        SYSTEM_ZH,
        _answered("年假余额", "my_balances", {}, "年假：还剩 5 天"),
        "那事假呢？",
        "my_balances",
        {},
    ),
    (
        SYSTEM_EN,
        _answered("who is out today", "who_is_out", {"start": "2026-12-02"}, "Nobody is out."),
        "how about thursday?",
        "who_is_out",
        {"start": "2026-12-03"},
    ),
    (
        SYSTEM_ZH,
        _answered("今天谁请假", "who_is_out", {"start": "2026-12-02"}, "今天没有人请假"),
        "下周一呢",
        "who_is_out",
        {"start": "2026-12-07"},
    ),
]


@pytest.mark.parametrize(
    ("system", "before", "text", "tool", "arguments"),
    FOLLOW_UPS,
    ids=[f[2] for f in FOLLOW_UPS],
)
async def test_a_short_follow_up_asks_the_question_just_answered_again(
    system, before, text, tool, arguments
):
    """'and personal days?' after a balance is the balance again, never a leave draft."""
    response = await OfflinePlanner().complete(chat(system, *before, text), TOOLS)
    call = only_call(response)
    assert (call.name, call.arguments) == (tool, arguments)


async def test_a_follow_up_after_a_draft_is_not_taken_for_a_read():
    """'and sick leave?' with no read before it is about leave, not a balance."""
    response = await OfflinePlanner().complete(chat(SYSTEM_EN, "and sick leave?"), TOOLS)
    assert not any(c.name == "my_balances" for c in response.tool_calls)


async def test_a_request_after_a_balance_is_a_request_not_the_balance_again():
    """'那我后天请年假' after a balance answer drafts the leave; it is no follow-up question."""
    before = _answered("年假还有几天", "my_balances", {}, "年假：还剩 5 天")
    response = await OfflinePlanner().complete(chat(SYSTEM_ZH, *before, "那我后天请年假"), TOOLS)
    call = only_call(response)
    assert call.name == "propose_leave" and call.arguments["start"] == "2026-12-04"


async def test_a_reminder_that_names_the_approving_is_a_reminder_not_an_approval():
    """'提醒王芳审批一下' looks for the request to remind about; nothing is decided."""
    call = only_call(await OfflinePlanner().complete(chat(SYSTEM_ZH, "提醒王芳审批一下"), TOOLS))
    assert (call.name, call.arguments) == ("my_requests", {"status": "pending"})


async def test_dropping_the_kids_off_is_leave_not_a_withdrawal():
    """'drop' withdraws only a request, leave or claim: dropping the kids off asks for leave."""
    text = "need to drop the kids at school, friday morning off"
    response = await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS)
    assert not any(c.name in ("my_requests", "propose_withdraw") for c in response.tool_calls)
    assert "What kind of leave" in response.content


def _a_page(question: str, arguments: dict[str, Any], next_page: int | None) -> list[Any]:
    """A whole organisation's who-is-out answered with a page, and the planner's reply."""
    return [
        question,
        called("who_is_out", "call_planner_1", **arguments),
        result(
            "who_is_out", "call_planner_1", ok=True, summary="…", total=120, next_page=next_page
        ),
        assistant("…"),
    ]


@pytest.mark.parametrize(
    ("system", "question", "more"),
    [
        (SYSTEM_EN, "who is out this week across the company?", "more"),
        (SYSTEM_EN, "who is out this week across the company?", "show me the rest please"),
        (SYSTEM_ZH, "这周全公司谁请假", "更多"),
        (SYSTEM_ZH, "这周全公司谁请假", "下一页"),
    ],
)
async def test_more_after_a_page_of_who_is_out_asks_the_next_page(system, question, more):
    """'more' after the whole organisation's first page of who's out is the same question's
    next page; after the last page it is not."""
    asked = {"start": "2026-11-30", "end": "2026-12-06", "scope": "all"}
    response = await OfflinePlanner().complete(
        chat(system, *_a_page(question, asked, 2), more), TOOLS
    )
    call = only_call(response)
    assert (call.name, call.arguments) == ("who_is_out", {**asked, "page": 2})
    last = await OfflinePlanner().complete(
        chat(system, *_a_page(question, asked, None), more), TOOLS
    )
    assert not last.tool_calls or last.tool_calls[0].arguments.get("page") is None
