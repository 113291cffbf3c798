"""The offline planner on issue 17's edges: HR naming nobody or several people, and a
requester's own correction that must not read as a counter-offer."""

from __future__ import annotations

from agent.messages import ToolSpec
from agent.planner import OfflinePlanner
from tests.agent.test_planner import TOOL_NAMES, called, chat, only_call, result

TOOLS = tuple(
    ToolSpec(name=n, description=f"The {n} tool.") for n in (*TOOL_NAMES, "propose_counter")
)
SYSTEM_HR = (
    "User: 刘洋 (id liuyang), manager David Chen, timezone Asia/Shanghai, locale zh, roles hr\n"
    "Today: 2026-12-02 (Wednesday)"
)
ASKED = "帮王总请明天一天年假"


async def _after_lookup(people: list[dict[str, str]]) -> str:
    messages = chat(
        SYSTEM_HR,
        ASKED,
        called("find_people", query="王总"),
        result("find_people", ok=True, people=people),
    )
    response = await OfflinePlanner().complete(messages, TOOLS)
    assert not response.tool_calls
    return response.content or ""


async def test_hr_looks_the_person_up_before_drafting():
    """The first step of HR's filing is the directory look-up of the name they gave."""
    call = only_call(await OfflinePlanner().complete(chat(SYSTEM_HR, ASKED), TOOLS))
    assert (call.name, call.arguments) == ("find_people", {"query": "王总"})


async def test_hr_is_asked_which_person_when_several_match():
    """Two people match: HR is asked which, by name; nothing is drafted."""
    people = [{"id": "wangfang", "name": "王芳"}, {"id": "wangwu", "name": "王五"}]
    assert await _after_lookup(people) == "你指的是哪一位：王芳、王五？"


async def test_hr_is_told_when_nobody_matches():
    """Nobody of that name: said plainly; nothing is drafted for HR themselves."""
    assert "通讯录里找不到王总" in await _after_lookup([])


async def test_hr_filing_without_the_days_asks_for_everything_in_one_message():
    """Type and days missing: one question naming the person (a bare answer would be HR's own)."""
    messages = chat(
        SYSTEM_HR,
        "帮张三请假",
        called("find_people", query="张三"),
        result("find_people", ok=True, people=[{"id": "zhangsan", "name": "张三"}]),
    )
    response = await OfflinePlanner().complete(messages, TOOLS)
    assert "给张三请哪种假、哪几天" in (response.content or "")


async def test_a_requesters_own_correction_is_not_a_counter_offer():
    """'改成周三周四' from the requester changes nothing of anyone else's: no counter-offer."""
    system = (
        "User: 张三 (id zhangsan), manager 王芳, timezone Asia/Shanghai, locale zh\n"
        "Today: 2026-12-02 (Wednesday)"
    )
    response = await OfflinePlanner().complete(chat(system, "改成周三周四吧"), TOOLS)
    assert all(c.name != "propose_counter" for c in response.tool_calls)
    assert all(c.name != "my_pending_approvals" for c in response.tool_calls)
