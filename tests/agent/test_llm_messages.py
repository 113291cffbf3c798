"""Messages round-trip through plain JSON, as thread history does in Redis."""

from __future__ import annotations

import json

import pytest

from agent.messages import Message, ModelResponse, ToolCall, Usage


def test_messages_round_trip_through_json():
    """Every field of every role survives to_dict → JSON → from_dict."""
    bad = ToolCall("call_2", "propose_leave", {}, "{oops", error="not valid JSON")
    good = ToolCall("call_1", "get_leave_balance", {"leave_type": "年假"}, '{"leave_type":"年假"}')
    history = [
        Message(role="system", content="rules"),
        Message(role="user", content="我想请假", name="u1"),
        Message(role="assistant", tool_calls=(good, bad), reasoning="check first"),
        Message.tool_result(good, "12"),
        Message(role="assistant", content="You have 12 days."),
    ]
    loaded = [Message.from_dict(d) for d in json.loads(json.dumps([m.to_dict() for m in history]))]
    assert loaded == history


def test_from_dict_refuses_an_unknown_role():
    """A stored message with a role we do not know is an error, not a silent guess."""
    with pytest.raises(ValueError, match="unknown message role 'function'"):
        Message.from_dict({"role": "function", "content": "x"})


def test_response_becomes_the_assistant_message():
    """to_message keeps content, tool calls and reasoning."""
    call = ToolCall("call_1", "who_is_out", {}, "{}")
    response = ModelResponse("", (call,), "tool_calls", Usage(1, 2, 0), reasoning="r")
    assert response.to_message() == Message(role="assistant", tool_calls=(call,), reasoning="r")
