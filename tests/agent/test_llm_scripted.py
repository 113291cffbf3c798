"""The test models: ScriptedModel and FunctionModel."""

from __future__ import annotations

import pytest
from fake_openai import TOOLS

from agent.errors import ModelUnavailable
from agent.messages import Message, ModelResponse
from agent.model import ChatModel
from agent.testing import FunctionModel, ScriptedModel, call, calls, reply, tool_call

USER = [Message(role="user", content="who is out?")]


async def test_scripted_model_answers_in_order_and_records_calls():
    """Queued replies come out in order; each call's messages, tools and tool_choice are kept."""
    model = ScriptedModel([call("who_is_out"), "Nobody is out."])
    assert isinstance(model, ChatModel)
    first = await model.complete(USER, TOOLS, tool_choice="required")
    assert [c.name for c in first.tool_calls] == ["who_is_out"]
    second = await model.complete(USER, TOOLS)
    assert second == reply("Nobody is out.")
    assert [c.tool_choice for c in model.calls] == ["required", "auto"]
    assert model.calls[0].tools == TOOLS
    assert model.calls[0].last_message == USER[0]
    model.assert_complete()


async def test_scripted_model_raises_queued_exceptions():
    """An exception in the queue is raised by that call."""
    model = ScriptedModel([ModelUnavailable("down")])
    with pytest.raises(ModelUnavailable, match="down"):
        await model.complete(USER, TOOLS)


async def test_scripted_model_without_replies_fails_clearly():
    """A call with nothing queued raises an AssertionError naming the call number."""
    model = ScriptedModel(name="planner")
    with pytest.raises(AssertionError, match="'planner' has no reply left for call #1"):
        await model.complete(USER, TOOLS)


def test_assert_complete_fails_when_replies_remain():
    """Unused replies make assert_complete fail."""
    model = ScriptedModel([reply("a"), reply("b")])
    with pytest.raises(AssertionError, match="2 unused replies"):
        model.assert_complete()


def test_calls_builds_parallel_calls_with_distinct_ids():
    """calls() accepts (name, arguments) pairs and ToolCalls, each with its own id."""
    fixed = tool_call("who_is_out")
    response = calls([("get_leave_balance", {"leave_type": "annual"}), fixed])
    assert response.tool_calls[1] is fixed
    assert response.tool_calls[0].arguments == {"leave_type": "annual"}
    assert response.tool_calls[0].raw_arguments == '{"leave_type": "annual"}'
    assert len({c.id for c in response.tool_calls}) == 2


async def test_function_model_answers_from_sync_and_async_functions():
    """FunctionModel calls fn(messages, tools), awaiting it when it is async."""

    def echo(messages, tools) -> ModelResponse:
        return reply(f"{messages[-1].content} ({len(tools)} tools)")

    async def later(messages, tools) -> ModelResponse:
        return reply("async")

    assert (await FunctionModel(echo).complete(USER, TOOLS)).content == "who is out? (3 tools)"
    model = FunctionModel(later)
    assert (await model.complete(USER, TOOLS)).content == "async"
    assert len(model.calls) == 1
