"""The OpenAI-compatible client in native tool-call mode, against a fake server over HTTP."""

from __future__ import annotations

import json

import pytest
from fake_openai import API_KEY, BALANCE, PROPOSE, TOOLS, WHO_IS_OUT, completion, wire_call

from agent.llm.normalize import CUT_OFF_ERROR
from agent.llm.wire import MISSING_RESULT
from agent.messages import Message, ToolCall

USER = [Message(role="system", content="You help with leave."), Message(role="user", content="hi")]


async def test_tool_calls_with_ids_are_read(fake_openai, make_model):
    """A tool call keeps its id, its decoded arguments and the raw argument string."""
    raw = '{"leave_type": "annual"}'
    fake_openai.answer(completion(None, tool_calls=[wire_call(BALANCE.name, raw, "call_Xy1")]))
    response = await make_model().complete(USER, TOOLS)
    (call,) = response.tool_calls
    assert call == ToolCall("call_Xy1", BALANCE.name, {"leave_type": "annual"}, raw)
    assert response.finish_reason == "tool_calls"
    body = fake_openai.last_request
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": BALANCE.name,
            "description": BALANCE.description,
            "parameters": BALANCE.parameters,
        },
    }
    assert body["tool_choice"] == "auto"
    assert body["messages"] == [
        {"role": "system", "content": "You help with leave."},
        {"role": "user", "content": "hi"},
    ]
    assert fake_openai.request_headers[-1]["Authorization"] == f"Bearer {API_KEY}"


async def test_several_calls_in_one_reply_are_all_read_in_order(fake_openai, make_model):
    """Parallel tool calls in one reply come back as several ToolCalls, in order."""
    fake_openai.answer(
        completion(
            "",
            tool_calls=[
                wire_call(BALANCE.name, {"leave_type": "annual"}, "call_1"),
                wire_call(BALANCE.name, {"leave_type": "sick"}, "call_2"),
                wire_call(WHO_IS_OUT.name, "{}", "call_3"),
            ],
        )
    )
    response = await make_model().complete(USER, TOOLS)
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_1", BALANCE.name, {"leave_type": "annual"}),
        ("call_2", BALANCE.name, {"leave_type": "sick"}),
        ("call_3", WHO_IS_OUT.name, {}),
    ]


@pytest.mark.parametrize("content", ["", None])
async def test_content_empty_or_null_with_tool_calls_reads_as_empty_text(
    fake_openai, make_model, content
):
    """Content "" and null beside tool calls both give empty content and the calls."""
    fake_openai.answer(completion(content, tool_calls=[wire_call(WHO_IS_OUT.name, "{}")]))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == ""
    assert [c.name for c in response.tool_calls] == [WHO_IS_OUT.name]


async def test_missing_or_empty_ids_are_generated(fake_openai, make_model):
    """A tool call without an id, or with "", gets a fresh distinct call_<hex> id."""
    fake_openai.answer(
        completion(
            "",
            tool_calls=[
                wire_call(WHO_IS_OUT.name, "{}", id=None),
                wire_call(WHO_IS_OUT.name, "{}", id=""),
            ],
        )
    )
    ids = [c.id for c in (await make_model().complete(USER, TOOLS)).tool_calls]
    assert all(i.startswith("call_") and len(i) > 10 for i in ids)
    assert ids[0] != ids[1]


async def test_invalid_json_arguments_become_a_tool_error(fake_openai, make_model):
    """Arguments that are not JSON give a ToolCall with an error and the raw text kept."""
    raw = '{"leave_type": annual}'
    fake_openai.answer(completion("", tool_calls=[wire_call(BALANCE.name, raw)]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert call.arguments == {}
    assert call.raw_arguments == raw
    assert call.error is not None and "not valid JSON" in call.error


async def test_double_encoded_arguments_are_decoded_twice(fake_openai, make_model):
    """A JSON string holding the JSON object is decoded once more."""
    raw = json.dumps(json.dumps({"leave_type": "annual"}))
    fake_openai.answer(completion("", tool_calls=[wire_call(BALANCE.name, raw)]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert call.arguments == {"leave_type": "annual"}
    assert call.error is None
    assert call.raw_arguments == raw


async def test_nested_double_encoded_values_are_decoded_but_string_fields_stay(
    fake_openai, make_model
):
    """A nested value sent as a JSON string is decoded, unless the schema says string."""
    raw = json.dumps(
        {"leave_type": "annual", "days": '["2026-12-03", "2026-12-04"]', "reason": "[urgent]"}
    )
    fake_openai.answer(completion("", tool_calls=[wire_call(PROPOSE.name, raw)]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert call.arguments == {
        "leave_type": "annual",
        "days": ["2026-12-03", "2026-12-04"],
        "reason": "[urgent]",
    }


async def test_a_json_looking_string_field_is_not_decoded(fake_openai, make_model):
    """A value declared a string keeps its text even when it is valid JSON."""
    raw = json.dumps({"leave_type": "annual", "days": [], "reason": '{"why": "moving"}'})
    fake_openai.answer(completion("", tool_calls=[wire_call(PROPOSE.name, raw)]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert call.arguments["reason"] == '{"why": "moving"}'


async def test_empty_arguments_mean_no_arguments(fake_openai, make_model):
    """Arguments "" read as {} with no error, and "" is what goes back in history."""
    fake_openai.answer(completion("", tool_calls=[wire_call(WHO_IS_OUT.name, "")]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert (call.arguments, call.raw_arguments, call.error) == ({}, "", None)


@pytest.mark.parametrize("raw", ["[1, 2]", "5", '"annual"', "true"])
async def test_arguments_that_are_not_an_object_become_a_tool_error(fake_openai, make_model, raw):
    """A list, number, string or boolean as arguments is an error sent back, not run."""
    fake_openai.answer(completion("", tool_calls=[wire_call(BALANCE.name, raw)]))
    (call,) = (await make_model().complete(USER, TOOLS)).tool_calls
    assert call.arguments == {}
    assert call.error is not None and "one JSON object" in call.error


async def test_tool_call_cut_off_at_the_token_limit_is_not_runnable(fake_openai, make_model):
    """With finish_reason "length" the reply is truncated and its calls carry the cut-off error."""
    raw = '{"leave_type": "annual", "days": ["2026-12-0'
    fake_openai.answer(
        completion("", tool_calls=[wire_call(PROPOSE.name, raw)], finish_reason="length")
    )
    response = await make_model().complete(USER, TOOLS)
    assert response.truncated
    (call,) = response.tool_calls
    assert call.error == CUT_OFF_ERROR
    assert call.raw_arguments == raw


async def test_tool_calls_with_finish_reason_stop_are_still_calls(fake_openai, make_model):
    """Calls are found by their presence, not by finish_reason (some servers say "stop")."""
    fake_openai.answer(
        completion("", tool_calls=[wire_call(WHO_IS_OUT.name, "{}")], finish_reason="stop")
    )
    response = await make_model().complete(USER, TOOLS)
    assert response.finish_reason == "stop"
    assert [c.name for c in response.tool_calls] == [WHO_IS_OUT.name]


async def test_hermes_tool_call_in_content_is_parsed(fake_openai, make_model):
    """A Hermes/Qwen <tool_call> JSON block in the text becomes a tool call."""
    text = (
        "Let me check.\n<tool_call>\n"
        '{"name": "get_leave_balance", "arguments": {"leave_type": "annual"}}\n</tool_call>'
    )
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == "Let me check."
    (call,) = response.tool_calls
    assert (call.name, call.arguments, call.error) == (BALANCE.name, {"leave_type": "annual"}, None)
    assert call.id.startswith("call_")


async def test_qwen3_coder_function_block_in_content_is_parsed(fake_openai, make_model):
    """A Qwen3-Coder <function=…><parameter=…> block becomes a call, values typed by the schema."""
    text = (
        "<tool_call>\n<function=propose_leave>\n<parameter=leave_type>\nannual\n</parameter>\n"
        '<parameter=days>\n["2026-12-03"]\n</parameter>\n<parameter=half_day>\ntrue\n'
        "</parameter>\n<parameter=reason>\n42\n</parameter>\n</function>\n</tool_call>"
    )
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == ""
    (call,) = response.tool_calls
    assert call.arguments == {
        "leave_type": "annual",
        "days": ["2026-12-03"],
        "half_day": True,
        "reason": "42",
    }


async def test_bare_json_tool_call_in_content_is_parsed(fake_openai, make_model):
    """A reply that is only {"name", "arguments"} JSON (Ollama) becomes a tool call."""
    fake_openai.answer(
        completion('{"name": "get_leave_balance", "arguments": {"leave_type": "sick"}}')
    )
    response = await make_model().complete(USER, TOOLS)
    assert response.content == ""
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        (BALANCE.name, {"leave_type": "sick"})
    ]


async def test_deepseek_special_token_tool_calls_in_content_are_parsed(fake_openai, make_model):
    """DeepSeek's <｜tool▁calls▁begin｜> form in the text becomes tool calls."""
    text = (
        "I will look.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>"
        'get_leave_balance\n```json\n{"leave_type": "annual"}\n```<｜tool▁call▁end｜>'
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>who_is_out\n```json\n{}\n```"
        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    )
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == "I will look."
    assert [(c.name, c.arguments) for c in response.tool_calls] == [
        (BALANCE.name, {"leave_type": "annual"}),
        (WHO_IS_OUT.name, {}),
    ]


@pytest.mark.parametrize(
    "text",
    [
        '<tool_call>{"name": "delete_everything", "arguments": {}}</tool_call>',
        "<function=delete_everything><parameter=x>1</parameter></function>",
        '{"name": "delete_everything", "arguments": {}}',
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>delete_everything\n"
        "```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    ],
)
async def test_unknown_tool_names_in_content_are_ignored(fake_openai, make_model, text):
    """A call to a tool that was not offered, written in the text, stays text and is not run."""
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, TOOLS)
    assert response.tool_calls == ()
    assert response.content == text


async def test_content_calls_are_not_parsed_when_no_tools_are_offered(fake_openai, make_model):
    """Without tools in the request, JSON in the answer is just the answer."""
    text = '{"name": "get_leave_balance", "arguments": {}}'
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, [])
    assert (response.content, response.tool_calls) == (text, ())
    assert "tools" not in fake_openai.last_request


async def test_reasoning_content_is_read_and_not_sent_back(fake_openai, make_model):
    """reasoning_content is read into reasoning and left out of the next request by default."""
    fake_openai.answer(
        completion(
            "",
            tool_calls=[wire_call(WHO_IS_OUT.name, "{}", "call_1")],
            reasoning_content="The user wants to know who is out.",
        )
    )
    fake_openai.answer(completion("Nobody is out."))
    model = make_model()
    first = await model.complete(USER, TOOLS)
    assert first.reasoning == "The user wants to know who is out."
    history = [*USER, first.to_message(), Message.tool_result(first.tool_calls[0], "[]")]
    await model.complete(history, TOOLS)
    assistant = fake_openai.last_request["messages"][2]
    assert assistant["role"] == "assistant"
    assert "reasoning_content" not in assistant
    assert "reasoning" not in assistant


async def test_ollama_reasoning_field_is_read(fake_openai, make_model):
    """The `reasoning` field (Ollama, newer vLLM) is read like reasoning_content."""
    fake_openai.answer(completion("Hello!", reasoning="Greet back."))
    response = await make_model().complete(USER, TOOLS)
    assert (response.content, response.reasoning) == ("Hello!", "Greet back.")


async def test_reasoning_is_sent_back_on_tool_turns_when_configured(fake_openai, make_model):
    """With send_reasoning, reasoning_content goes back on assistant tool-call messages only."""
    call = ToolCall("call_1", WHO_IS_OUT.name, {}, "{}")
    history = [
        *USER,
        Message(role="assistant", content="Hello.", reasoning="small talk"),
        Message(role="assistant", tool_calls=(call,), reasoning="check the calendar"),
        Message.tool_result(call, "[]"),
    ]
    fake_openai.answer(completion("Nobody."))
    await make_model(send_reasoning=True).complete(history, TOOLS)
    sent = fake_openai.last_request["messages"]
    assert "reasoning_content" not in sent[2]
    assert sent[3]["reasoning_content"] == "check the calendar"


async def test_think_block_is_stripped_from_content_into_reasoning(fake_openai, make_model):
    """<think>…</think> in the content moves to reasoning; the answer is what follows."""
    fake_openai.answer(completion("<think>\nThey said hi.\n</think>\n\nHello! How can I help?"))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == "Hello! How can I help?"
    assert response.reasoning == "They said hi."


async def test_think_block_before_a_content_tool_call(fake_openai, make_model):
    """A Qwen3 reply with <think> then a <tool_call> gives reasoning and the call."""
    text = (
        "<think>Need the balance.</think>\n<tool_call>\n"
        '{"name": "get_leave_balance", "arguments": {"leave_type": "annual"}}\n</tool_call>'
    )
    fake_openai.answer(completion(text))
    response = await make_model().complete(USER, TOOLS)
    assert response.reasoning == "Need the balance."
    assert [c.name for c in response.tool_calls] == [BALANCE.name]
    assert response.content == ""


async def test_usage_with_openai_cached_tokens(fake_openai, make_model):
    """Usage reads prompt, completion and prompt_tokens_details.cached_tokens."""
    usage = {
        "prompt_tokens": 2006,
        "completion_tokens": 300,
        "total_tokens": 2306,
        "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 0},
    }
    fake_openai.answer(completion("ok", usage=usage))
    response = await make_model().complete(USER, TOOLS)
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (2006, 300)
    assert response.usage.cached_tokens == 1920
    assert response.model == "test-model"


async def test_usage_with_deepseek_cache_hit_tokens(fake_openai, make_model):
    """DeepSeek's prompt_cache_hit_tokens is read as cached tokens."""
    usage = {
        "prompt_tokens": 1500,
        "completion_tokens": 40,
        "total_tokens": 1540,
        "prompt_cache_hit_tokens": 1024,
        "prompt_cache_miss_tokens": 476,
    }
    fake_openai.answer(completion("ok", usage=usage))
    response = await make_model().complete(USER, TOOLS)
    assert response.usage.cached_tokens == 1024


@pytest.mark.parametrize("param", ["max_tokens", "max_completion_tokens"])
async def test_max_tokens_is_sent_under_the_configured_name(fake_openai, make_model, param):
    """The token limit goes under max_tokens or max_completion_tokens, never both."""
    fake_openai.answer(completion("ok"))
    await make_model(max_tokens_param=param, max_tokens=333).complete(USER, TOOLS)
    body = fake_openai.last_request
    other = {"max_tokens", "max_completion_tokens"} - {param}
    assert body[param] == 333
    assert other.isdisjoint(body)


async def test_tool_results_go_back_one_per_id_in_call_order_with_raw_arguments(
    fake_openai, make_model
):
    """Tool results are sent in the calls' order with their ids; arguments go back unchanged."""
    raw_1 = '{"leave_type":  "annual" }'  # odd spacing: must not be re-encoded
    raw_2 = json.dumps(json.dumps({"leave_type": "sick"}))
    fake_openai.answer(
        completion(
            "",
            tool_calls=[
                wire_call(BALANCE.name, raw_1, "call_a"),
                wire_call(BALANCE.name, raw_2, "call_b"),
            ],
        )
    )
    fake_openai.answer(completion("You have 12 annual and 5 sick days."))
    model = make_model()
    first = await model.complete(USER, TOOLS)
    a, b = first.tool_calls
    # Results arrive out of order, plus an orphan result answering no call.
    orphan = Message(role="tool", content="stale", tool_call_id="call_gone")
    history = [
        orphan,
        *USER,
        first.to_message(),
        Message.tool_result(b, "5"),
        Message.tool_result(a, "12"),
    ]
    await model.complete(history, TOOLS)
    sent = fake_openai.last_request["messages"]
    assert sent[2] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {
                "id": "call_a",
                "type": "function",
                "function": {"name": BALANCE.name, "arguments": raw_1},
            },
            {
                "id": "call_b",
                "type": "function",
                "function": {"name": BALANCE.name, "arguments": raw_2},
            },
        ],
    }
    assert sent[3:] == [
        {"role": "tool", "tool_call_id": "call_a", "content": "12"},
        {"role": "tool", "tool_call_id": "call_b", "content": "5"},
    ]
    assert len(sent) == 5


async def test_a_call_without_a_result_is_answered_with_a_placeholder(fake_openai, make_model):
    """Every call id gets a tool message, even when history lost its result."""
    call = ToolCall("call_1", WHO_IS_OUT.name, {}, "{}")
    history = [*USER, Message(role="assistant", tool_calls=(call,))]
    fake_openai.answer(completion("ok"))
    await make_model().complete(history, TOOLS)
    assert fake_openai.last_request["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": MISSING_RESULT,
    }


@pytest.mark.parametrize(("setting", "sent"), [("empty", ""), ("null", None)])
async def test_assistant_tool_call_content_is_empty_or_null_per_option(
    fake_openai, make_model, setting, sent
):
    """An assistant message with only tool calls is sent with content "" or null as configured."""
    call = ToolCall("call_1", WHO_IS_OUT.name, {}, "{}")
    history = [
        *USER,
        Message(role="assistant", tool_calls=(call,)),
        Message.tool_result(call, "[]"),
    ]
    fake_openai.answer(completion("ok"))
    await make_model(assistant_empty_content=setting).complete(history, TOOLS)
    assert fake_openai.last_request["messages"][2]["content"] == sent


async def test_required_tool_choice_is_sent_when_supported(fake_openai, make_model):
    """tool_choice "required" and a named tool are sent as such when the server supports them."""
    fake_openai.answer(completion("", tool_calls=[wire_call(WHO_IS_OUT.name, "{}")]))
    fake_openai.answer(completion("", tool_calls=[wire_call(WHO_IS_OUT.name, "{}")]))
    model = make_model()
    await model.complete(USER, TOOLS, tool_choice="required")
    assert fake_openai.last_request["tool_choice"] == "required"
    await model.complete(USER, TOOLS, tool_choice=WHO_IS_OUT.name)
    assert fake_openai.last_request["tool_choice"] == {
        "type": "function",
        "function": {"name": WHO_IS_OUT.name},
    }


async def test_required_tool_choice_is_degraded_to_auto_when_unsupported(fake_openai, make_model):
    """With supports_required_tool_choice off, "required" goes out as "auto"."""
    fake_openai.answer(completion("ok"))
    await make_model(supports_required_tool_choice=False).complete(
        USER, TOOLS, tool_choice="required"
    )
    assert fake_openai.last_request["tool_choice"] == "auto"


async def test_a_400_about_tool_choice_degrades_once_and_is_remembered(fake_openai, make_model):
    """A 400 naming tool_choice is answered by resending with "auto", and later calls start there."""
    fake_openai.error(
        400,
        '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
        type="BadRequestError",
    )
    fake_openai.answer(completion("", tool_calls=[wire_call(WHO_IS_OUT.name, "{}")]))
    fake_openai.answer(completion("done"))
    model = make_model()
    await model.complete(USER, TOOLS, tool_choice="required")
    assert [r["tool_choice"] for r in fake_openai.requests] == ["required", "auto"]
    await model.complete(USER, TOOLS, tool_choice="required")
    assert [r["tool_choice"] for r in fake_openai.requests] == ["required", "auto", "auto"]


async def test_parallel_tool_calls_and_temperature_follow_the_options(fake_openai, make_model):
    """parallel_tool_calls is sent only when set; temperature None leaves the field out."""
    fake_openai.answer(completion("ok"))
    fake_openai.answer(completion("ok"))
    await make_model(parallel_tool_calls=True, temperature=None).complete(USER, TOOLS)
    assert fake_openai.last_request["parallel_tool_calls"] is True
    assert "temperature" not in fake_openai.last_request
    await make_model().complete(USER, TOOLS)
    assert "parallel_tool_calls" not in fake_openai.last_request
    assert fake_openai.last_request["temperature"] == 0.2


async def test_history_stored_as_json_sends_the_same_request(fake_openai, make_model):
    """A history stored as JSON and loaded again produces the same request body."""
    raw = '{"leave_type":"annual"}'
    fake_openai.answer(completion("", tool_calls=[wire_call(BALANCE.name, raw, "call_1")]))
    fake_openai.answer(completion("12 days."))
    fake_openai.answer(completion("12 days."))
    model = make_model()
    first = await model.complete(USER, TOOLS)
    history = [*USER, first.to_message(), Message.tool_result(first.tool_calls[0], "12")]
    await model.complete(history, TOOLS)
    stored = json.loads(json.dumps([m.to_dict() for m in history]))
    await model.complete([Message.from_dict(d) for d in stored], TOOLS)
    assert fake_openai.requests[1] == fake_openai.requests[2]
