"""Tools chosen per turn: a small set for the intent, every tool reachable through the escape,
lean schemas from the organisation's config, and a prompt prefix that stays the same."""

from __future__ import annotations

import json
from datetime import datetime

import fakeredis
import pytest

from agent.events import ModelStep, ProposalReady, StopReason, ToolStarted
from agent.loop import Agent
from agent.memory import ThreadMemory, compact_answered
from agent.messages import Message
from agent.testing import FunctionModel, ScriptedModel, call, reply
from agent.tools import default_tools
from agent.tools.choose import MORE_TOOLS
from workflow.clock import FixedClock
from workflow.config import LeaveType, Organisation, load_config
from workflow.engine import Engine

ALL_TOOLS = default_tools().names
# Arguments good enough for each tool to run (its result may still be a refusal).
ARGS = {
    "find_people": {"query": "Li Si"},
    "working_days": {"start": "2026-12-07", "end": "2026-12-08"},
    "request_details": {"request_id": "R-AAAAAAAA"},
    "who_is_out": {"start": "2026-12-07"},
    "propose_leave": {"leave_type": "annual", "start": "2026-12-07"},
    "propose_request": {"process": "expense", "fields": {}},
    "propose_decision": {"request_id": "R-AAAAAAAA", "decision": "approve"},
    "propose_withdraw": {"request_id": "R-AAAAAAAA"},
    "propose_delegation": {"delegate": "Li Si", "start": "2026-12-07", "end": "2026-12-08"},
    "propose_reminder": {"request_id": "R-AAAAAAAA"},
}


def make_engine(now: datetime = datetime(2026, 12, 2, 9, 0)) -> tuple[Engine, ThreadMemory]:
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config().model_copy(
        update={"organisation": Organisation(id="choice", name="Acme")}
    )
    return Engine(config, redis, FixedClock(now)), ThreadMemory(redis)


async def run(agent: Agent, text: str, actor: str = "zhangsan", thread: str = "t") -> list:
    return [e async for e in agent.run(thread, actor, text)]


def offered(model) -> list[list[str]]:
    return [[t.name for t in c.tools] for c in model.calls]


async def test_a_leave_request_is_offered_the_leave_tools_and_the_escape_only():
    """'annual leave on Monday' carries propose_leave, not the expense, delegation or decision tools."""
    engine, memory = make_engine()
    model = ScriptedModel([call("propose_leave", leave_type="annual", start="2026-12-07")])
    await run(Agent(model, engine, memory), "annual leave on 2026-12-07")
    [names] = offered(model)
    assert "propose_leave" in names and MORE_TOOLS in names
    assert not {"propose_request", "propose_delegation", "propose_decision"} & set(names)
    assert len(names) <= 4


async def test_small_talk_is_offered_only_the_escape():
    engine, memory = make_engine()
    model = ScriptedModel(["Enjoy!"])
    await run(Agent(model, engine, memory), "I'm having skewers with Li Si tonight")
    assert offered(model) == [[MORE_TOOLS]]


@pytest.mark.parametrize("tool", ALL_TOOLS)
async def test_every_tool_is_reachable_through_the_escape(tool: str):
    """A model that uses only what it is offered asks for more_tools, then calls the tool."""
    engine, memory = make_engine()

    def fn(messages, tools):
        names = {t.name for t in tools}
        if any(m.role == "tool" for m in messages[2:]) or messages[-1].role == "tool":
            return reply("done")
        if tool in names:
            return call(tool, **ARGS.get(tool, {}))
        assert MORE_TOOLS in names, f"{tool} is neither offered nor reachable"
        return call(MORE_TOOLS)

    model = FunctionModel(fn)
    events = await run(Agent(model, engine, memory), "hello there")
    escapes = [e for e in events if isinstance(e, ModelStep) and e.escape]
    assert len(escapes) == 1
    assert [e.tool for e in events if isinstance(e, ToolStarted)] == [tool]
    # the more_tools exchange is not kept: the model is simply asked again with every tool
    assert MORE_TOOLS not in json.dumps([m.to_dict() for m in model.calls[1].messages])
    assert sorted(t.name for t in model.calls[1].tools) == sorted(ALL_TOOLS)
    assert events[-1].stop_reason is StopReason.FINAL


async def test_a_tool_that_exists_but_was_not_offered_still_runs_and_widens_the_offer():
    engine, memory = make_engine()
    model = ScriptedModel([call("my_balances"), reply("You have days left.")])
    events = await run(Agent(model, engine, memory), "hello")
    assert [e.tool for e in events if isinstance(e, ToolStarted)] == ["my_balances"]
    assert [e.escape for e in events if isinstance(e, ModelStep)] == [True, False]
    assert len(model.calls[1].tools) == len(ALL_TOOLS)


async def test_a_successful_proposal_ends_the_turn_without_a_second_call():
    """The card and a fixed sentence say it: one model call, the summary and what to click."""
    engine, memory = make_engine()
    model = ScriptedModel([call("propose_leave", leave_type="annual", start="2026-12-07")])
    events = await run(Agent(model, engine, memory), "annual leave on 2026-12-07")
    [proposal] = [e for e in events if isinstance(e, ProposalReady)]
    final = events[-1]
    assert final.model_calls == 1 and final.stop_reason is StopReason.FINAL
    assert final.text == proposal.summary  # what to click is on the card, not in the answer
    model.assert_complete()


async def test_a_failed_proposal_goes_back_to_the_model():
    engine, memory = make_engine()
    model = ScriptedModel(
        [call("propose_leave", leave_type="annual", start="2026-11-01"), reply("That is past.")]
    )
    events = await run(Agent(model, engine, memory), "annual leave on 2026-11-01")
    assert events[-1].model_calls == 2 and events[-1].text == "That is past."


async def test_the_rules_and_schemas_are_byte_identical_across_people_and_days():
    """The cacheable prefix: the first system message and the tools do not depend on who or when."""
    seen = []
    for actor, now in (("zhangsan", datetime(2026, 12, 2, 9)), ("oliver", datetime(2027, 1, 5, 9))):
        engine, memory = make_engine(now)
        model = ScriptedModel([call("propose_leave", leave_type="annual", start="2027-02-01")])
        await run(Agent(model, engine, memory), "annual leave on 2027-02-01", actor=actor)
        [c] = model.calls
        seen.append((c.messages[0], c.tools, c.messages[1].content))
    (rules_a, tools_a, person_a), (rules_b, tools_b, person_b) = seen
    assert rules_a == rules_b and tools_a == tools_b
    assert person_a != person_b and "User:" in person_a and "User:" not in rules_a.content


def test_leave_types_and_processes_come_from_the_organisation():
    """A new leave type reaches the schema without code; an unknown one is a field error."""
    base = load_config()
    config = base.model_copy(
        update={
            "organisation": Organisation(id="choice-new", name="Acme"),
            "leave_types": (
                *base.leave_types,
                LeaveType(key="study", name="Study", name_zh="学习假"),
            ),
        }
    )
    tools = default_tools()
    leave = tools.spec("propose_leave", config)
    assert leave is not None and "study" in leave.parameters["properties"]["leave_type"]["enum"]
    request = tools.spec("propose_request", config)
    assert request.parameters["properties"]["process"]["enum"] == ["expense", "business_trip"]
    assert "spent_on" in request.parameters["properties"]["fields"]["description"]
    # built once per organisation: the same objects every time
    assert tools.spec("propose_leave", config) is leave


def test_schemas_are_lean():
    """One-sentence descriptions; no titles, defaults, length limits or null unions."""
    for spec in default_tools().specs(load_config()):
        assert spec.description.count(". ") == 0, spec.name
        text = json.dumps(spec.parameters)
        for noise in (
            '"title"',
            '"default"',
            "maxLength",
            '"null"',
            "anyOf",
            "additionalProperties",
        ):
            assert noise not in text, (spec.name, noise)


async def test_an_unknown_leave_type_is_named_with_the_choices():
    engine, memory = make_engine()
    model = ScriptedModel([call("propose_leave", leave_type="holiday", start="2026-12-07"), "?"])
    await run(Agent(model, engine, memory), "leave")
    obs = json.loads(model.calls[1].messages[-1].content)
    assert obs["error"] == "invalid_arguments"
    assert "annual" in obs["field_errors"]["leave_type"]


def test_answered_tool_output_is_summarised_but_the_last_turn_keeps_it_whole():
    big = json.dumps({"ok": True, "summary": "Found: Li Si.", "people": [{"id": "x" * 50}] * 20})
    history = [
        Message(role="user", content="find Li Si"),
        Message(role="tool", content=big, tool_call_id="c1", name="find_people"),
        Message(role="assistant", content="Li Si is in engineering."),
        Message(role="user", content="and Wang Fang?"),
        Message(role="tool", content=big, tool_call_id="c2", name="find_people"),
        Message(role="assistant", content="Found."),
    ]
    compact = compact_answered(history)
    assert json.loads(compact[1].content) == {"ok": True, "summary": "Found: Li Si."}
    assert compact[4].content == big


async def test_a_long_thread_does_not_resend_old_tool_output():
    engine, memory = make_engine()
    model = ScriptedModel()
    agent = Agent(model, engine, memory)
    for _ in range(3):
        model.add(call("who_is_out", start="2026-12-07", scope="all"), "Here they are.")
        await run(agent, "who is out on 2026-12-07?")
    model.add("Bye!")
    await run(agent, "bye")
    last = model.calls[-1].messages
    results = [m.content for m in last if m.role == "tool"]
    assert len(results) == 3
    assert all('"out"' not in r for r in results[:2])


def test_the_offline_planner_asks_for_more_tools_when_its_plan_needs_one_not_offered():
    """The planner uses only what it is offered: with the escape alone it calls more_tools,
    with every tool it makes its call; without the escape it says it cannot."""
    from agent.planner import OfflinePlanner
    from agent.tools.choose import MORE_TOOLS_SPEC

    planner = OfflinePlanner()
    messages = [
        Message(role="system", content="User: Oliver Smith (id oliver)\nToday: 2026-12-02"),
        Message(role="user", content="how many days of annual leave do I have left?"),
    ]
    [escape] = planner.respond(messages, [MORE_TOOLS_SPEC]).tool_calls
    assert escape.name == MORE_TOOLS
    [balance] = planner.respond(messages, default_tools().specs()).tool_calls
    assert balance.name == "my_balances"
    assert not planner.respond(messages, []).tool_calls
