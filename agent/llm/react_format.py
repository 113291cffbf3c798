"""Text-ReAct mode for endpoints without tool calling: tools in the prompt, one block parsed.

The model writes `Thought:` / `Action:` / `Action Input:` or `Final Answer:`; we send the
tool's result back as `Observation:`. The parse is deliberately narrow: one block at a time,
cut before any observation the model invents.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from agent.llm.normalize import CUT_OFF_ERROR, new_call_id, normalize_arguments, strip_fence
from agent.messages import Message, ToolCall, ToolSpec

# Sent as `stop` where the server accepts it, so the model halts before inventing a result.
REACT_STOP = "\nObservation"

MISSING_ACTION_INPUT = "Invalid format: missing 'Action Input:' after 'Action:'."
MISSING_ACTION_NAME = "Invalid format: missing the tool name after 'Action:'."
MISSING_ACTION_OR_ANSWER = "Invalid format: missing 'Action:' or 'Final Answer:' after 'Thought:'."

_OBSERVATION = re.compile(r"(?:\A|\n)[ \t]*Observation[ \t]*:", re.IGNORECASE)
_MARKER = re.compile(
    r"^[ \t]*(Thought|Action Input|Action|Final Answer|Observation)[ \t]*:[ \t]*",
    re.IGNORECASE | re.MULTILINE,
)
_FENCED = re.compile(r"```[\w-]*[ \t]*\n(.*?)\n?```", re.DOTALL)

_FORMAT = """\
## Tools

{tools}

## How to reply

To use a tool, reply with exactly these three lines and then stop:

Thought: what you need to find out, and why
Action: the tool name, one of [{names}]
Action Input: the arguments as one JSON object, e.g. {{"field": "value"}}

Use one tool per reply. Its result comes back to you as "Observation: …"; never write an
Observation yourself. When you can answer the person, reply with:

Thought: why you can answer now
Final Answer: your reply to the person"""

_CHOICE = {
    "none": "Do not use a tool now: reply with a Final Answer.",
    "required": "You must use a tool now: reply with Thought, Action and Action Input.",
}


def render_react_instructions(tools: Sequence[ToolSpec], *, tool_choice: str = "auto") -> str:
    """The system-prompt section listing the tools and the reply format."""
    listed = "\n\n".join(
        f"### {t.name}\n{t.description.strip()}\n"
        f"Arguments (JSON schema): {json.dumps(t.parameters, ensure_ascii=False)}"
        for t in tools
    )
    text = _FORMAT.format(
        tools=listed or "(no tools are available)", names=", ".join(t.name for t in tools)
    )
    if tool_choice in _CHOICE:
        text += "\n\n" + _CHOICE[tool_choice]
    elif tool_choice != "auto":
        text += f"\n\nYou must use the tool {tool_choice} now."
    return text


# The format example's own words: a reply that only repeats them is not an answer.
_PLACEHOLDERS = frozenset({"your reply to the person", "your reply to the person."})
MISSING_FINAL_ANSWER_TEXT = (
    "Invalid format: 'Final Answer:' must be followed by your actual reply to the person, "
    "not the example text."
)


@dataclass(frozen=True)
class ReactReply:
    """One parsed ReAct block: a tool call (possibly carrying a format error) or a final answer."""

    thought: str | None
    final_answer: str | None
    tool_call: ToolCall | None


def parse_react_reply(
    text: str, tools: Sequence[ToolSpec], *, truncated: bool = False
) -> ReactReply:
    """Parse the first block of a ReAct reply.

    An Action wins over a Final Answer in the same reply (the answer was written before the
    tool ran). Text with no marker at all is taken as the final answer. A malformed action
    becomes a ToolCall whose `error` is the repair message to send back as the observation.
    """
    cut = _OBSERVATION.search(text)
    if cut:
        text = text[: cut.start()]
    markers = [(m.group(1).lower(), m.start(), m.end()) for m in _MARKER.finditer(text)]
    if not markers:
        return ReactReply(thought=None, final_answer=text.strip(), tool_call=None)

    def value(i: int) -> str:
        end = markers[i + 1][1] if i + 1 < len(markers) else len(text)
        return text[markers[i][2] : end].strip()

    kinds = [kind for kind, _, _ in markers]
    stop = kinds.index("action") if "action" in kinds else len(kinds)
    thoughts = [text[: markers[0][1]].strip()]
    thoughts += [value(i) for i in range(stop) if kinds[i] == "thought"]
    thought = "\n".join(t for t in thoughts if t) or None

    if "action" in kinds:
        call = _parse_action(value(stop), stop, kinds, value, tools)
        if truncated:
            call = replace(call, error=CUT_OFF_ERROR)
        return ReactReply(thought=thought, final_answer=None, tool_call=call)
    if "final answer" in kinds:
        i = kinds.index("final answer")
        answer = value(i)
        if answer.strip().lower() not in _PLACEHOLDERS:
            return ReactReply(thought=thought, final_answer=answer, tool_call=None)
        # a small model copied the format example instead of answering: ask again
        return ReactReply(
            thought=thought,
            final_answer=None,
            tool_call=ToolCall(new_call_id(), "", {}, "", MISSING_FINAL_ANSWER_TEXT),
        )
    error = ToolCall(new_call_id(), "", {}, "", MISSING_ACTION_OR_ANSWER)
    return ReactReply(thought=thought, final_answer=None, tool_call=error)


def _parse_action(
    action: str,
    i: int,
    kinds: list[str],
    value: Callable[[int], str],
    tools: Sequence[ToolSpec],
) -> ToolCall:
    name = action.partition("\n")[0].strip().strip("`'\"").removesuffix("()").strip()
    if not name:
        return ToolCall(new_call_id(), "", {}, "", MISSING_ACTION_NAME)
    spec = next((t for t in tools if t.name == name), None)
    props: dict[str, Any] = (spec.parameters.get("properties") or {}) if spec else {}
    if i + 1 >= len(kinds) or kinds[i + 1] != "action input":
        if spec is not None and not props:
            return ToolCall(new_call_id(), name, {}, "", None)  # the tool takes no arguments
        return ToolCall(new_call_id(), name, {}, "", MISSING_ACTION_INPUT)
    raw = value(i + 1)
    arguments, error = _parse_input(raw, spec, props)
    return ToolCall(new_call_id(), name, arguments, raw, error)


_NOT_JSON = object()


def _parse_input(
    raw: str, spec: ToolSpec | None, props: dict[str, Any]
) -> tuple[dict[str, Any], str | None]:
    decoded = _decode_json(raw)
    if isinstance(decoded, dict):
        arguments, _, error = normalize_arguments(decoded, schema=spec.parameters if spec else None)
        return arguments, error
    if spec is None:
        return {}, None  # unknown tool: the loop answers with the list of tools
    if not props:
        return {}, None
    if len(props) == 1 and raw.strip():
        # A one-argument tool: the model wrote the value itself, not an object around it.
        (only,) = props
        if decoded is _NOT_JSON:
            return {only: strip_fence(raw).strip("'\"")}, None
        return {only: decoded}, None
    example = ", ".join(f'"{p}": …' for p in props)
    return {}, (
        "Invalid format: 'Action Input:' must be one JSON object with the arguments of "
        f"{spec.name}, e.g. {{{example}}}."
    )


def _decode_json(raw: str) -> Any:
    """JSON from the input: as written, then a leading value with text after it, then a fence."""
    text = raw.strip()
    if not text:
        return _NOT_JSON
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
        pass
    if text[0] in "{[":
        try:
            return json.JSONDecoder().raw_decode(text)[0]
        except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
            pass
    fenced = _FENCED.search(text)
    if fenced:
        try:
            return json.loads(fenced.group(1))
        except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
            pass
    return _NOT_JSON


def render_react_messages(
    messages: Sequence[Message], tools: Sequence[ToolSpec], *, tool_choice: str = "auto"
) -> list[dict[str, str]]:
    """Wire messages for a ReAct endpoint: tool calls and results rewritten as text turns.

    Each call becomes an assistant `Thought/Action/Action Input` turn followed by a user
    `Observation:` turn, so the endpoint sees one coherent transcript.
    """
    instructions = render_react_instructions(tools, tool_choice=tool_choice)
    results = {m.tool_call_id: m for m in messages if m.role == "tool" and m.tool_call_id}
    out: list[dict[str, str]] = []
    has_system = False
    for m in messages:
        if m.role == "system":
            content = m.content
            if not has_system:
                content = f"{content}\n\n{instructions}" if content else instructions
                has_system = True
            out.append({"role": "system", "content": content})
        elif m.role == "user":
            out.append({"role": "user", "content": m.content})
        elif m.role == "assistant" and m.tool_calls:
            for n, call in enumerate(m.tool_calls):
                thought = m.reasoning if n == 0 and m.reasoning else ""
                out.append({"role": "assistant", "content": _action_text(thought, call)})
                result = results.get(call.id)
                if result is not None:
                    out.append({"role": "user", "content": f"Observation: {result.content}"})
        elif m.role == "assistant" and m.content:
            out.append({"role": "assistant", "content": f"Final Answer: {m.content}"})
        # Tool messages were written out after their call; orphans are dropped.
    if not has_system:
        out.insert(0, {"role": "system", "content": instructions})
    return _merge_same_role(out)


def _action_text(thought: str, call: ToolCall) -> str:
    if not call.name:  # a format error: the model wrote a thought and no action
        return f"Thought: {thought}"
    lines = [f"Thought: {thought}"] if thought else []
    lines += [f"Action: {call.name}", f"Action Input: {call.raw_arguments}"]
    return "\n".join(lines)


def _merge_same_role(messages: list[dict[str, str]]) -> list[dict[str, str]]:
    # Several chat templates (llama.cpp, older Mistral) require user/assistant alternation.
    merged: list[dict[str, str]] = []
    for m in messages:
        if merged and merged[-1]["role"] == m["role"] and m["role"] != "system":
            merged[-1] = {
                "role": m["role"],
                "content": f"{merged[-1]['content']}\n\n{m['content']}",
            }
        else:
            merged.append(m)
    return merged
