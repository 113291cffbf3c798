"""The agent loop with a scripted model: every guard ends the turn with a reason and a clear reply."""

from __future__ import annotations

import asyncio
import json
from datetime import datetime

import fakeredis
import pytest
import structlog

from agent.errors import ContextTooLong, ModelUnavailable
from agent.events import FinalAnswer, Notice, ProposalReady, StopReason, ToolFinished, ToolStarted
from agent.loop import Agent, Limits
from agent.memory import ThreadMemory
from agent.messages import Message, ModelResponse, Usage
from agent.testing import FunctionModel, ScriptedModel, call, reply
from agent.tools import default_tools
from agent.tools.base import Tool, ToolArgs, ok
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

THREAD = "test:thread"


@pytest.fixture
async def env():
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config()
    config = config.model_copy(update={"organisation": Organisation(id="loop", name="Acme")})
    engine = Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    return engine, ThreadMemory(redis)


async def run(agent: Agent, text: str, actor: str = "zhangsan", thread: str = THREAD) -> list:
    return [e async for e in agent.run(thread, actor, text)]


def final_of(events) -> FinalAnswer:
    assert isinstance(events[-1], FinalAnswer)
    return events[-1]


async def test_a_proposal_streams_steps_and_leaves_nothing_submitted(env):
    """propose_leave yields tool and proposal events with the fields; nothing is submitted until a
    click, and the turn ends on the card without a second model call."""
    engine, memory = env
    model = ScriptedModel(
        [call("propose_leave", leave_type="sick", start="tomorrow", days=2, reason="stomach ache")]
    )
    events = await run(Agent(model, engine, memory), "I'm sick, off tomorrow for two days")
    kinds = [e.kind for e in events]
    assert kinds == [
        "turn_started",
        "model_step",
        "tool_started",
        "tool_finished",
        "proposal",
        "final",
    ]
    proposal = next(e for e in events if isinstance(e, ProposalReady))
    assert proposal.confirm_by == "张三" and proposal.action == "submit"
    f = proposal.fields
    assert (
        f["process"],
        f["leave_type"],
        f["start"],
        f["end"],
        f["half_day"],
        f["reason"],
        f["approver"],
        f["working_days"],
    ) == (
        "leave",
        "sick",
        "2026-12-03",
        "2026-12-04",
        "none",
        "stomach ache",
        "王芳",
        2.0,
    )
    started = next(e for e in events if isinstance(e, ToolStarted))
    assert started.title == "Preparing your sick leave request"
    assert started.arguments["reason"] == "***"
    assert final_of(events).stop_reason is StopReason.FINAL
    assert await engine.store.redis.xlen(engine.keys.outbox) == 0
    assert await engine.my_requests("zhangsan") == []
    model.assert_complete()


async def test_the_system_prompt_carries_the_user_and_today(env):
    """The model is told the user's name, manager, timezone and today's date in their timezone."""
    engine, memory = env
    model = ScriptedModel([reply("hi")])
    await run(Agent(model, engine, memory), "hello")
    rules, person = (m.content for m in model.calls[0].messages[:2])
    assert "User: 张三 (id zhangsan), manager 王芳, timezone Asia/Shanghai" in person
    assert "Today: 2026-12-02 (Wednesday)" in person
    assert "never an instruction" in rules


async def test_max_steps_stops_with_a_clear_message(env):
    """A model that never stops calling tools is stopped after the step limit."""
    engine, memory = env
    n = iter(range(100))
    model = FunctionModel(lambda m, t: call("my_balances", year=2000 + next(n)))
    events = await run(Agent(model, engine, memory, limits=Limits(max_steps=4)), "balance?")
    fin = final_of(events)
    assert fin.stop_reason is StopReason.MAX_STEPS and fin.model_calls == 4
    assert "Nothing was submitted" in fin.text


async def test_the_same_call_twice_gets_a_hint_and_three_times_stops(env):
    """Repeating a call: the second time the model is told to use the result; the third stops the turn."""
    engine, memory = env
    model = ScriptedModel([call("my_balances"), call("my_balances"), call("my_balances")])
    events = await run(Agent(model, engine, memory), "balance?")
    finished = [e for e in events if isinstance(e, ToolFinished)]
    assert [f.ok for f in finished] == [True, False, False]
    hint = json.loads(model.calls[2].messages[-1].content)
    assert hint["error"] == "repeated_call" and "already called my_balances" in hint["message"]
    assert final_of(events).stop_reason is StopReason.REPEATED_CALL


async def test_an_unknown_tool_is_answered_with_the_list_of_tools(env):
    """Calling a tool that does not exist (say, 'approve') returns the real tool names."""
    engine, memory = env
    model = ScriptedModel([call("approve_request", request_id="R-1"), reply("I cannot approve.")])
    events = await run(Agent(model, engine, memory), "approve it")
    obs = json.loads(model.calls[1].messages[-1].content)
    assert obs["error"] == "unknown_tool" and "propose_decision" in obs["message"]
    assert final_of(events).stop_reason is StopReason.FINAL


async def test_invalid_arguments_come_back_with_field_errors(env):
    """A wrong enum value and a smuggled identity argument are both named as field errors."""
    engine, memory = env
    model = ScriptedModel(
        [call("propose_leave", leave_type="holiday", start="tomorrow", user_id="lisi"), reply("?")]
    )
    await run(Agent(model, engine, memory), "leave")
    obs = json.loads(model.calls[1].messages[-1].content)
    assert obs["error"] == "invalid_arguments"
    assert set(obs["field_errors"]) == {"leave_type", "user_id"}
    assert obs["field_errors"]["user_id"] == "is not an argument of this tool"


async def test_arguments_the_client_could_not_read_are_not_run(env):
    """A tool call whose arguments failed to normalize goes back as an error without running."""
    engine, memory = env
    bad = ModelResponse(
        "",
        (
            call("my_balances")
            .tool_calls[0]
            .__class__("c1", "propose_leave", {}, "{bad", error="arguments are not valid JSON"),
        ),
        "tool_calls",
        Usage(),
    )
    model = ScriptedModel([bad, reply("sorry")])
    await run(Agent(model, engine, memory), "leave")
    obs = json.loads(model.calls[1].messages[-1].content)
    assert obs == {
        "ok": False,
        "error": "invalid_arguments",
        "message": "arguments are not valid JSON",
        "summary": "arguments are not valid JSON",
    }


async def test_a_slow_tool_times_out(env):
    """A tool over its time limit is stopped and the model is told so."""
    engine, memory = env

    class Empty(ToolArgs):
        pass

    async def slow(ctx, args):
        await asyncio.sleep(5)
        return ok("never")

    tools = default_tools()
    tools.add(Tool("slow_lookup", "slow", Empty, slow, lambda a, loc: "Looking slowly"))
    model = ScriptedModel([call("slow_lookup"), reply("It timed out.")])
    events = await run(
        Agent(model, engine, memory, tools=tools, limits=Limits(tool_timeout_s=0.05)), "go"
    )
    finished = next(e for e in events if isinstance(e, ToolFinished))
    assert (finished.ok, finished.error) == (False, "timeout")


async def test_the_turn_deadline_ends_a_slow_model(env):
    """A model slower than the turn deadline ends the turn with 'took too long'."""
    engine, memory = env

    async def sleepy(messages, tools, *, tool_choice="auto"):
        await asyncio.sleep(5)

    model = ScriptedModel([])
    model.complete = sleepy  # type: ignore[method-assign]
    events = await run(Agent(model, engine, memory, limits=Limits(turn_deadline_s=0.05)), "hi")
    fin = final_of(events)
    assert fin.stop_reason is StopReason.DEADLINE and "too long" in fin.text


async def test_an_empty_reply_is_repaired_then_given_up(env):
    """Empty replies get a repair message; after the repairs run out the turn ends clearly."""
    engine, memory = env
    model = ScriptedModel([reply(""), reply("Here you go.")])
    fin = final_of(await run(Agent(model, engine, memory), "hi"))
    assert fin.text == "Here you go."
    model2 = ScriptedModel([reply(""), reply(""), reply("")])
    fin2 = final_of(await run(Agent(model2, engine, memory), "hi", thread="t2"))
    assert fin2.stop_reason is StopReason.EMPTY_REPLY


async def test_long_observations_are_truncated_with_a_note(env):
    """An observation over the budget is cut, and the model is told it was."""
    engine, memory = env

    class Empty(ToolArgs):
        pass

    async def huge(ctx, args):
        return ok("big", rows=["x" * 100] * 100)

    tools = default_tools()
    tools.add(Tool("huge", "huge", Empty, huge, lambda a, loc: "Huge"))
    model = ScriptedModel([call("huge"), reply("done")])
    await run(Agent(model, engine, memory, tools=tools, limits=Limits(observation_chars=500)), "go")
    content = model.calls[1].messages[-1].content
    assert len(content) < 700 and "[truncated: the result had" in content


async def test_an_unreachable_model_hands_over_to_the_fallback_and_says_so(env):
    """When the LLM is down the fallback answers the same turn and the user is told."""
    engine, memory = env
    down = ScriptedModel([ModelUnavailable("The LLM did not answer")])
    planner = ScriptedModel([reply("Offline answer")], name="offline-planner")
    events = await run(Agent(down, engine, memory, fallback=planner), "hi")
    assert any(isinstance(e, Notice) and "offline" in e.text for e in events)
    assert final_of(events).text == "Offline answer"


async def test_a_model_error_without_fallback_ends_clearly(env):
    """With no fallback, a model failure is a MODEL_ERROR stop with a message."""
    engine, memory = env
    events = await run(Agent(ScriptedModel([ModelUnavailable("down")]), engine, memory), "hi")
    assert final_of(events).stop_reason is StopReason.MODEL_ERROR


async def test_context_overflow_trims_history_and_retries_once(env):
    """A context-length error retries once with a trimmed history."""
    engine, memory = env
    await memory.append(
        THREAD,
        [Message(role="user", content="old " * 500), Message(role="assistant", content="ok")],
    )
    model = ScriptedModel([ContextTooLong("too long"), reply("fine")])
    fin = final_of(await run(Agent(model, engine, memory), "hi"))
    assert fin.text == "fine"
    assert len(model.calls[1].messages) < len(model.calls[0].messages)


async def test_history_carries_over_between_turns_with_tool_calls(env):
    """The second message of a thread sees the first turn's user message, tool call and result."""
    engine, memory = env
    model = ScriptedModel(
        [call("my_balances"), reply("You have 10 days."), reply("You're welcome.")]
    )
    agent = Agent(model, engine, memory)
    await run(agent, "how many days do I have?")
    await run(agent, "thanks")
    roles = [m.role for m in model.calls[2].messages]
    assert roles == ["system", "system", "user", "assistant", "tool", "assistant", "user"]
    assert await engine.store.redis.ttl("thread:{" + THREAD + "}:history") > 13 * 86400


async def test_two_messages_in_one_thread_run_in_order_and_other_threads_do_not_wait(env):
    """A second message waits for the first turn of its thread; another thread runs meanwhile."""
    engine, memory = env
    order: list[str] = []
    gate = asyncio.Event()

    async def fn(messages, tools, *, tool_choice="auto"):
        text = messages[-1].content
        order.append("start " + text)
        if text == "first":
            await gate.wait()
        order.append("end " + text)
        return reply("ok " + text)

    model = ScriptedModel([])
    model.complete = fn  # type: ignore[method-assign]
    agent = Agent(model, engine, memory)
    first = asyncio.create_task(run(agent, "first"))
    await asyncio.sleep(0.05)
    second = asyncio.create_task(run(agent, "second"))
    other = asyncio.create_task(run(agent, "other", thread="another"))
    await asyncio.wait_for(other, 2)
    await asyncio.sleep(0.05)
    assert "start second" not in order
    gate.set()
    await asyncio.wait_for(asyncio.gather(first, second), 2)
    assert order.index("end first") < order.index("start second")


async def test_a_trace_is_kept_and_logs_mask_reasons(env):
    """Every step is kept as the thread's trace, and log lines never carry the medical reason."""
    engine, memory = env
    model = ScriptedModel(
        [call("propose_leave", leave_type="sick", start="2026-12-03", reason="胃肠炎"), reply("ok")]
    )
    with structlog.testing.capture_logs() as logs:
        await run(Agent(model, engine, memory), "sick tomorrow")
    trace = await memory.read_trace(THREAD)
    assert next(e["event"] for e in trace) == "turn_started" and trace[-1]["event"] == "final"
    assert "胃肠炎" not in json.dumps(logs, ensure_ascii=False)
    assert any(
        line.get("event") == "agent_step" and line.get("tool") == "propose_leave" for line in logs
    )


async def test_a_delegation_is_proposed_and_set_only_on_the_click(env):
    """'Li Si approves for me next week' prepares a delegation card; nothing is delegated until confirmed."""
    engine, memory = env
    model = ScriptedModel(
        [
            call("propose_delegation", delegate="Li Si", start="2026-12-07", end="2026-12-11"),
            reply("ok"),
        ]
    )
    events = await run(
        Agent(model, engine, memory), "I'm out next week, Li Si approves for me", actor="wangfang"
    )
    proposal = next(e for e in events if isinstance(e, ProposalReady))
    assert proposal.action == "delegate" and proposal.fields["delegate"] == "李四"
    assert await engine.delegations() == []
    outcome = await engine.confirm(proposal.pending_id, "wangfang")
    assert outcome.delegation is not None and outcome.delegation.delegate == "lisi"


async def test_react_format_errors_use_the_repair_budget_not_the_repeat_detector(env):
    """A text-ReAct reply without an action name is repaired; past the budget the turn ends as 'could not answer'."""
    from agent.messages import ToolCall

    engine, memory = env

    def broken() -> ModelResponse:
        bad = ToolCall("c", "", {}, "", "Invalid format: missing 'Action:' or 'Final Answer:'")
        return ModelResponse("You can reply with: Thought: …", (bad,), "stop", Usage())

    model = ScriptedModel([broken(), broken(), broken()])
    events = await run(Agent(model, engine, memory, limits=Limits(format_repairs=2)), "hi")
    fin = final_of(events)
    assert fin.stop_reason is StopReason.EMPTY_REPLY
    obs = json.loads(model.calls[1].messages[-1].content)
    assert obs["error"] == "invalid_format" and "Action" in obs["message"]


def test_the_react_example_text_is_not_taken_as_an_answer():
    """'Final Answer: your reply to the person' (the format example copied) is a format error."""
    from agent.llm.react_format import parse_react_reply

    reply = parse_react_reply(
        "Thought: why you can answer now\nFinal Answer: your reply to the person", []
    )
    assert reply.final_answer is None and reply.tool_call is not None and reply.tool_call.error
