"""Text-ReAct mode: the prompt, the one-block parser, and the transcript sent back."""

from __future__ import annotations

import pytest
from fake_openai import BALANCE, PROPOSE, TOOLS, WHO_IS_OUT, completion

from agent.llm.normalize import CUT_OFF_ERROR
from agent.llm.react_format import (
    MISSING_ACTION_INPUT,
    MISSING_ACTION_OR_ANSWER,
    parse_react_reply,
    render_react_messages,
)
from agent.messages import Message, ToolCall

USER = [Message(role="system", content="You help with leave."), Message(role="user", content="hi")]


async def test_react_request_has_no_tools_param_and_asks_to_stop_at_observation(
    fake_openai, make_model
):
    """React mode sends stop ["\\nObservation"], no tools field, and the tools in the system prompt."""
    fake_openai.answer(completion("Final Answer: Hello!"))
    response = await make_model(tool_mode="react").complete(USER, TOOLS)
    assert response.content == "Hello!"
    body = fake_openai.last_request
    assert body["stop"] == ["\nObservation"]
    assert "tools" not in body and "tool_choice" not in body
    system = body["messages"][0]
    assert system["role"] == "system"
    assert system["content"].startswith("You help with leave.\n\n## Tools")
    assert '"leave_type": {"type": "string"}' in system["content"]
    assert "Action Input:" in system["content"]


async def test_stop_is_left_out_when_the_server_rejects_it(fake_openai, make_model):
    """With stop_supported off no stop field is sent."""
    fake_openai.answer(completion("Final Answer: Hello!"))
    await make_model(tool_mode="react", stop_supported=False).complete(USER, TOOLS)
    assert "stop" not in fake_openai.last_request


async def test_react_action_becomes_a_tool_call_with_a_generated_id(fake_openai, make_model):
    """Thought/Action/Action Input comes back as one ToolCall and the thought as reasoning."""
    fake_openai.answer(
        completion(
            'Thought: I need the balance.\nAction: get_leave_balance\nAction Input: {"leave_type": "annual"}'
        )
    )
    response = await make_model(tool_mode="react").complete(USER, TOOLS)
    (call,) = response.tool_calls
    assert (call.name, call.arguments, call.error) == (BALANCE.name, {"leave_type": "annual"}, None)
    assert call.id.startswith("call_")
    assert call.raw_arguments == '{"leave_type": "annual"}'
    assert response.reasoning == "I need the balance."
    assert response.content == ""


async def test_invented_observation_and_second_action_are_dropped(fake_openai, make_model):
    """A server ignoring stop returns an invented chain; only the first action is kept."""
    fake_openai.answer(
        completion(
            'Thought: check\nAction: get_leave_balance\nAction Input: {"leave_type": "annual"}\n'
            "Observation: You have 99 days.\nThought: great\nAction: propose_leave\n"
            'Action Input: {"leave_type": "annual", "days": ["2026-12-03"]}\n'
            "Final Answer: Done, 99 days left."
        )
    )
    response = await make_model(tool_mode="react").complete(USER, TOOLS)
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        (BALANCE.name, {"leave_type": "annual"})
    ]
    assert response.content == ""


def test_observation_cut_ends_the_action_input():
    """The Action Input stops at an Observation written on the next line."""
    reply = parse_react_reply(
        'Action: get_leave_balance\nAction Input: {"leave_type": "sick"}\nObservation: 3',
        TOOLS,
    )
    assert reply.tool_call is not None
    assert reply.tool_call.raw_arguments == '{"leave_type": "sick"}'


def test_action_input_ends_at_the_next_thought_or_action():
    """A second Thought or Action is not swallowed into the first Action Input."""
    reply = parse_react_reply(
        'Thought: a\nAction: get_leave_balance\nAction Input: {"leave_type": "sick"}\n'
        "Thought: b\nAction: who_is_out\nAction Input: {}",
        TOOLS,
    )
    assert reply.tool_call is not None
    assert (reply.tool_call.name, reply.tool_call.arguments) == (
        BALANCE.name,
        {"leave_type": "sick"},
    )


def test_action_and_final_answer_in_one_reply_runs_the_action():
    """An Action with a Final Answer after it: the action runs, the answer is dropped."""
    reply = parse_react_reply(
        "Thought: look\nAction: who_is_out\nAction Input: {}\nFinal Answer: Nobody is out.", TOOLS
    )
    assert reply.final_answer is None
    assert reply.tool_call is not None and reply.tool_call.name == WHO_IS_OUT.name


async def test_non_json_input_is_wrapped_for_a_one_argument_tool(fake_openai, make_model):
    """Plain text after Action Input becomes the only argument of a one-argument tool."""
    fake_openai.answer(completion("Thought: x\nAction: get_leave_balance\nAction Input: annual"))
    (call,) = (await make_model(tool_mode="react").complete(USER, TOOLS)).tool_calls
    assert call.arguments == {"leave_type": "annual"}
    assert call.error is None


def test_a_json_string_input_is_wrapped_for_a_one_argument_tool():
    """A quoted JSON string as input is the value of the one argument."""
    reply = parse_react_reply('Action: get_leave_balance\nAction Input: "sick"', TOOLS)
    assert reply.tool_call is not None and reply.tool_call.arguments == {"leave_type": "sick"}


async def test_fenced_json_input_is_read(fake_openai, make_model):
    """Action Input inside a ```json fence is decoded."""
    fake_openai.answer(
        completion(
            "Thought: propose\nAction: propose_leave\nAction Input:\n```json\n"
            '{"leave_type": "sick", "days": ["2026-12-03"]}\n```'
        )
    )
    (call,) = (await make_model(tool_mode="react").complete(USER, TOOLS)).tool_calls
    assert call.arguments == {"leave_type": "sick", "days": ["2026-12-03"]}
    assert call.error is None


async def test_missing_action_input_is_a_format_error(fake_openai, make_model):
    """Action without Action Input gives a ToolCall carrying the repair message."""
    fake_openai.answer(completion("Thought: propose\nAction: propose_leave"))
    (call,) = (await make_model(tool_mode="react").complete(USER, TOOLS)).tool_calls
    assert call.name == PROPOSE.name
    assert call.error == MISSING_ACTION_INPUT
    assert call.error.startswith("Invalid format: missing 'Action Input:' after 'Action:'")


def test_a_tool_without_arguments_needs_no_action_input():
    """Action naming a tool that takes no arguments runs with {} when the input is missing."""
    reply = parse_react_reply("Thought: who?\nAction: who_is_out", TOOLS)
    assert reply.tool_call is not None
    assert (reply.tool_call.arguments, reply.tool_call.error) == ({}, None)


def test_non_json_input_for_a_several_argument_tool_is_a_format_error():
    """Text that is not JSON cannot be spread over several arguments: the error shows an example."""
    reply = parse_react_reply("Action: propose_leave\nAction Input: sick leave tomorrow", TOOLS)
    assert reply.tool_call is not None
    assert reply.tool_call.error is not None
    assert reply.tool_call.error.startswith(
        "Invalid format: 'Action Input:' must be one JSON object"
    )
    assert '"leave_type": …' in reply.tool_call.error


def test_unknown_action_is_passed_through():
    """An action naming no offered tool is returned as is, for the loop to answer."""
    reply = parse_react_reply('Action: book_flight\nAction Input: {"to": "Paris"}', TOOLS)
    assert reply.tool_call is not None
    call = reply.tool_call
    assert (call.name, call.arguments, call.error) == ("book_flight", {"to": "Paris"}, None)


def test_text_without_markers_is_the_final_answer():
    """A reply with no ReAct markers at all is taken as the answer."""
    reply = parse_react_reply("Hello! How can I help?", TOOLS)
    assert (reply.final_answer, reply.tool_call) == ("Hello! How can I help?", None)


def test_a_thought_alone_is_a_format_error():
    """Thought with neither Action nor Final Answer asks the model to finish the block."""
    reply = parse_react_reply("Thought: I should check something.", TOOLS)
    assert reply.tool_call is not None and reply.tool_call.error == MISSING_ACTION_OR_ANSWER
    assert reply.thought == "I should check something."


async def test_a_cut_off_react_action_is_not_runnable(fake_openai, make_model):
    """An action in a reply that hit the token limit carries the cut-off error."""
    fake_openai.answer(
        completion(
            'Action: propose_leave\nAction Input: {"leave_type": "sick", "days": ["2026',
            finish_reason="length",
        )
    )
    response = await make_model(tool_mode="react").complete(USER, TOOLS)
    assert response.truncated
    assert response.tool_calls[0].error == CUT_OFF_ERROR


async def test_history_is_sent_as_a_react_transcript(fake_openai, make_model):
    """Tool calls go back as Thought/Action/Action Input turns and results as Observation turns."""
    first = ToolCall("call_1", BALANCE.name, {"leave_type": "annual"}, '{"leave_type": "annual"}')
    second = ToolCall("call_2", WHO_IS_OUT.name, {}, "{}")
    history = [
        *USER,
        Message(role="assistant", tool_calls=(first,), reasoning="Need the balance."),
        Message.tool_result(first, "12 days"),
        Message(role="assistant", tool_calls=(second,)),
        Message.tool_result(second, "nobody"),
    ]
    fake_openai.answer(completion("Final Answer: You have 12 days."))
    await make_model(tool_mode="react").complete(history, TOOLS)
    sent = fake_openai.last_request["messages"]
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert sent[2]["content"] == (
        'Thought: Need the balance.\nAction: get_leave_balance\nAction Input: {"leave_type": "annual"}'
    )
    assert sent[3]["content"] == "Observation: 12 days"
    assert sent[4]["content"] == "Action: who_is_out\nAction Input: {}"
    assert sent[5]["content"] == "Observation: nobody"


def test_transcript_merges_turns_and_adds_a_system_prompt_when_missing():
    """Several calls of one message alternate with their observations; a system turn is added."""
    a = ToolCall("call_a", BALANCE.name, {}, '"annual"')
    b = ToolCall("call_b", WHO_IS_OUT.name, {}, "{}")
    wire = render_react_messages(
        [
            Message(role="user", content="hi"),
            Message(role="assistant", content="Hello."),
            Message(role="user", content="balance and who is out?"),
            Message(role="assistant", tool_calls=(a, b)),
            Message.tool_result(b, "nobody"),
            Message.tool_result(a, "12"),
        ],
        TOOLS,
        tool_choice="required",
    )
    assert wire[0]["role"] == "system"
    assert wire[0]["content"].endswith(
        "You must use a tool now: reply with Thought, Action and Action Input."
    )
    assert [m["content"] for m in wire[1:]] == [
        "hi",
        "Final Answer: Hello.",
        "balance and who is out?",
        'Action: get_leave_balance\nAction Input: "annual"',
        "Observation: 12",
        "Action: who_is_out\nAction Input: {}",
        "Observation: nobody",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Final Answer: Sure.\nThought: extra", "Sure."),
        ("Thought: done\nfinal answer: lower case works", "lower case works"),
    ],
)
def test_final_answer_is_read_up_to_the_next_marker(text, expected):
    """The Final Answer ends at the next marker; marker case does not matter."""
    assert parse_react_reply(text, TOOLS).final_answer == expected
