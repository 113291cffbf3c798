"""Pure translations between our messages and the OpenAI chat-completions JSON, both ways."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.llm.normalize import (
    content_text,
    read_reasoning,
    split_think,
    tool_calls_from_content,
    tool_calls_from_wire,
)
from agent.llm.options import LLMOptions
from agent.llm.react_format import REACT_STOP, parse_react_reply, render_react_messages
from agent.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage

# Sent when history lacks a result for a call: OpenAI answers 400 unless every id is answered.
MISSING_RESULT = "No result: this tool call was not run."


def tool_to_wire(spec: ToolSpec) -> dict[str, Any]:
    """A tool as `tools[]` entry."""
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": spec.parameters,
        },
    }


def tool_choice_to_wire(
    tool_choice: str, tools: Sequence[ToolSpec], *, forcing_supported: bool
) -> str | dict[str, Any]:
    """`tool_choice` for the body; forcing ("required" or a tool name) becomes "auto" if unsupported.

    Raises:
        ValueError: `tool_choice` names a tool that is not offered.
    """
    if tool_choice in ("auto", "none"):
        return tool_choice
    if tool_choice != "required" and tool_choice not in {t.name for t in tools}:
        raise ValueError(f"tool_choice {tool_choice!r} is not one of the offered tools")
    if not forcing_supported:
        return "auto"
    if tool_choice == "required":
        return "required"
    return {"type": "function", "function": {"name": tool_choice}}


def _call_to_wire(call: ToolCall) -> dict[str, Any]:
    # The arguments go back exactly as the model wrote them (DashScope rejects re-encoding).
    return {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name, "arguments": call.raw_arguments},
    }


def messages_to_wire(messages: Sequence[Message], options: LLMOptions) -> list[dict[str, Any]]:
    """Native-mode wire messages.

    After an assistant message with tool calls come exactly one tool message per call id, in
    the order of the calls; tool messages answering no call before them are dropped.
    """
    out: list[dict[str, Any]] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        i += 1
        if m.role == "tool":
            continue  # an orphan: its call was trimmed away, and servers reject it alone
        if m.role != "assistant":
            out.append({"role": m.role, "content": m.content})
            continue
        if not m.tool_calls:
            out.append({"role": "assistant", "content": m.content})
            continue
        empty: str | None = "" if options.assistant_empty_content == "empty" else None
        entry: dict[str, Any] = {
            "role": "assistant",
            "content": m.content or empty,
            "tool_calls": [_call_to_wire(c) for c in m.tool_calls],
        }
        if options.send_reasoning and m.reasoning:
            entry["reasoning_content"] = m.reasoning
        out.append(entry)
        results: dict[str | None, Message] = {}
        while i < len(messages) and messages[i].role == "tool":
            results.setdefault(messages[i].tool_call_id, messages[i])
            i += 1
        for call in m.tool_calls:
            result = results.get(call.id)
            content = result.content if result is not None else MISSING_RESULT
            out.append({"role": "tool", "tool_call_id": call.id, "content": content})
    return out


def build_body(
    messages: Sequence[Message],
    tools: Sequence[ToolSpec],
    tool_choice: str,
    options: LLMOptions,
    *,
    forcing_supported: bool,
) -> dict[str, Any]:
    """The JSON body of one /chat/completions request, in native or react mode."""
    body: dict[str, Any] = {"model": options.model}
    if options.tool_mode == "react":
        body["messages"] = render_react_messages(messages, tools, tool_choice=tool_choice)
        if options.stop_supported:
            body["stop"] = [REACT_STOP]
    else:
        body["messages"] = messages_to_wire(messages, options)
        if tools:
            body["tools"] = [tool_to_wire(t) for t in tools]
            body["tool_choice"] = tool_choice_to_wire(
                tool_choice, tools, forcing_supported=forcing_supported
            )
            if options.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = options.parallel_tool_calls
    body[options.max_tokens_param] = options.max_tokens
    if options.temperature is not None:
        body["temperature"] = options.temperature
    return body


def usage_from_wire(usage: Any) -> Usage:
    """Token counts; cached tokens from OpenAI's, DeepSeek's or Kimi's field."""
    if not isinstance(usage, Mapping):
        return Usage()
    details = usage.get("prompt_tokens_details")
    cached = (
        (details.get("cached_tokens") if isinstance(details, Mapping) else None)
        or usage.get("prompt_cache_hit_tokens")  # DeepSeek
        or usage.get("cached_tokens")  # Kimi
        or 0
    )
    return Usage(
        prompt_tokens=int(usage.get("prompt_tokens") or 0),
        completion_tokens=int(usage.get("completion_tokens") or 0),
        cached_tokens=int(cached),
    )


def _join(*parts: str | None) -> str | None:
    return "\n".join(p for p in parts if p) or None


def response_from_wire(
    data: Mapping[str, Any], tools: Sequence[ToolSpec], options: LLMOptions
) -> ModelResponse:
    """Normalize a successful response body (it has at least one choice).

    Whether the model called tools is decided by the calls found, not by `finish_reason`.
    """
    choice = data["choices"][0]
    message = choice.get("message") or {}
    finish_reason = str(choice.get("finish_reason") or "")
    truncated = finish_reason == "length"
    schemas = {t.name: t.parameters for t in tools}
    content, think = split_think(content_text(message.get("content")))
    reasoning = _join(read_reasoning(message), think)
    calls: tuple[ToolCall, ...]
    if options.tool_mode == "react":
        reply = parse_react_reply(content, tools, truncated=truncated)
        content = reply.final_answer or ""
        calls = (reply.tool_call,) if reply.tool_call else ()
        reasoning = _join(reasoning, reply.thought)
    else:
        raw_calls = message.get("tool_calls") or []
        if not raw_calls and isinstance(message.get("function_call"), Mapping):
            raw_calls = [{"function": message["function_call"]}]  # the pre-tools API shape
        calls = tool_calls_from_wire(raw_calls, schemas, truncated=truncated)
        if not calls and schemas:
            content, calls = tool_calls_from_content(content, schemas, truncated=truncated)
    return ModelResponse(
        content=content.strip(),
        tool_calls=calls,
        finish_reason=finish_reason or ("tool_calls" if calls else "stop"),
        usage=usage_from_wire(data.get("usage")),
        reasoning=reasoning,
        model=str(data.get("model") or options.model),
        truncated=truncated,
    )
