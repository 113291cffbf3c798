"""Pure normalization rules for what servers send, beyond the cases covered over HTTP."""

from __future__ import annotations

from fake_openai import BALANCE, PROPOSE, TOOLS

from agent.llm.normalize import (
    normalize_arguments,
    split_think,
    tool_calls_from_content,
)

SCHEMAS = {t.name: t.parameters for t in TOOLS}


def test_null_arguments_mean_no_arguments():
    """Arguments "null" read as {} without an error."""
    assert normalize_arguments("null") == ({}, "null", None)


def test_arguments_given_as_an_object_are_encoded_once_for_history():
    """A server sending arguments as an object (not a string) still yields a raw JSON string."""
    arguments, raw, error = normalize_arguments({"leave_type": "annual"})
    assert (arguments, raw, error) == ({"leave_type": "annual"}, '{"leave_type": "annual"}', None)


def test_think_opened_in_the_prompt_is_split_at_the_closing_tag():
    """Text before a lone </think> is reasoning (the template opened the tag)."""
    assert split_think("weighing options</think>\n\nAnswer.") == ("Answer.", "weighing options")


def test_unclosed_think_is_all_reasoning():
    """A reply cut off inside <think> has no answer text."""
    assert split_think("<think>still thinking") == ("", "still thinking")


def test_content_without_think_is_unchanged():
    """Text with no think tags is returned exactly and without reasoning."""
    assert split_think("  Hello  ") == ("  Hello  ", None)


def test_deepseek_v31_token_form_is_parsed():
    """DeepSeek V3.1 writes name<｜tool▁sep｜>{…} without the function type and fence."""
    text = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_leave_balance<｜tool▁sep｜>"
        '{"leave_type": "sick"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    content, calls = tool_calls_from_content(text, SCHEMAS)
    assert content == ""
    assert [(c.name, c.arguments) for c in calls] == [(BALANCE.name, {"leave_type": "sick"})]


def test_bare_json_list_of_calls_and_fenced_call_are_parsed():
    """A JSON list of calls, or one call in a ```json fence, is read (Ollama, Llama)."""
    listed = (
        '[{"name": "get_leave_balance", "arguments": {"leave_type": "annual"}},'
        ' {"name": "who_is_out", "parameters": {}}]'
    )
    _, calls = tool_calls_from_content(listed, SCHEMAS)
    assert [c.name for c in calls] == [BALANCE.name, "who_is_out"]
    fenced = (
        '```json\n{"name": "get_leave_balance", "arguments": "{\\"leave_type\\": \\"sick\\"}"}\n```'
    )
    _, calls = tool_calls_from_content(fenced, SCHEMAS)
    assert calls[0].arguments == {"leave_type": "sick"}


def test_json_answer_that_is_not_a_call_stays_text():
    """A JSON reply without a known name and arguments is an answer, not a call."""
    text = '{"name": "get_leave_balance"}'
    assert tool_calls_from_content(text, SCHEMAS) == (text, ())


def test_only_known_blocks_are_removed_from_mixed_content():
    """A known and an unknown <tool_call> in one text: the known one is taken, the other stays."""
    text = (
        '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>\n'
        '<tool_call>{"name": "propose_leave", "arguments": {"leave_type": "sick", "days": []}}'
        "</tool_call>"
    )
    content, calls = tool_calls_from_content(text, SCHEMAS)
    assert [c.name for c in calls] == [PROPOSE.name]
    assert content == '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>'


def test_qwen3_coder_block_without_closing_tags_is_parsed():
    """A <function=…> block cut before its closing tags still yields its parameters."""
    text = "<function=get_leave_balance>\n<parameter=leave_type>\nannual\n"
    _, calls = tool_calls_from_content(text, SCHEMAS)
    assert calls[0].arguments == {"leave_type": "annual"}


def test_optional_string_fields_written_by_pydantic_stay_strings():
    """A field declared `str | None` (anyOf) keeps JSON-looking text as text."""
    schema = {
        "type": "object",
        "properties": {
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "items": {"anyOf": [{"type": "array", "items": {"type": "integer"}}, {"type": "null"}]},
        },
    }
    arguments, _, _ = normalize_arguments('{"note": "[1]", "items": "[1, 2]"}', schema=schema)
    assert arguments == {"note": "[1]", "items": [1, 2]}
