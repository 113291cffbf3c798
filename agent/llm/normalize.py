"""Pure functions that turn what OpenAI-compatible servers really send into one clean shape.

Each rule answers a case in LLM-COMPAT.md: ids missing, arguments double-encoded or cut off,
tool calls written into the text, reasoning in one of three places.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.messages import ToolCall

# Tool name -> JSON schema of its arguments: the tools offered in this request.
Schemas = Mapping[str, Mapping[str, Any]]

CUT_OFF_ERROR = (
    "The reply was cut off at the token limit before this call was complete, so the tool was "
    "not run. Do not run it from this reply: call it again with shorter arguments."
)


def new_call_id() -> str:
    """A fresh tool-call id in OpenAI's shape (`call_<hex>`)."""
    return f"call_{uuid.uuid4().hex[:24]}"


def normalize_arguments(
    raw: Any, *, schema: Mapping[str, Any] | None = None
) -> tuple[dict[str, Any], str, str | None]:
    """Decode tool-call arguments as servers send them.

    Returns:
        (arguments, raw_arguments, error): `raw_arguments` is the original string (a dict
        given as such is encoded once); `error` is set when no object could be read.
    """
    if isinstance(raw, Mapping):
        value: Any = dict(raw)
        raw_text = json.dumps(value, ensure_ascii=False)
    else:
        raw_text = "" if raw is None else str(raw)
        if not raw_text.strip():
            return {}, raw_text, None
        try:
            value = json.loads(raw_text)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, huge ints, deep nesting
            return {}, raw_text, _invalid_json_error(e)
        # Some servers encode the arguments twice: a JSON string holding the JSON object.
        if isinstance(value, str):
            try:
                value = json.loads(value)
            except (ValueError, RecursionError) as e:  # JSONDecodeError, huge ints, deep nesting
                return {}, raw_text, _invalid_json_error(e)
    if value is None:  # "null" from a model calling a tool that takes no arguments
        return {}, raw_text, None
    if not isinstance(value, dict):
        return {}, raw_text, _not_an_object_error(value)
    return _decode_nested(value, schema), raw_text, None


def _invalid_json_error(e: ValueError | RecursionError) -> str:
    where = (
        f"{e.msg} at position {e.pos}"
        if isinstance(e, json.JSONDecodeError)
        else "too large or too deeply nested"
    )
    return (
        f"The arguments are not valid JSON ({where}), so the tool was not "
        'run. Call it again with the arguments as one JSON object, e.g. {"field": "value"}.'
    )


def _not_an_object_error(value: Any) -> str:
    kind = type(value).__name__.replace("NoneType", "null")
    return (
        f"The arguments must be one JSON object of named fields, not a {kind}, so the tool "
        'was not run. Call it again with e.g. {"field": "value"}.'
    )


def _decode_nested(value: Any, schema: Mapping[str, Any] | None) -> Any:
    """Decode values sent as JSON strings holding an object or array (seen from Moonshot).

    A value the schema declares a string stays a string, even if it looks like JSON.
    """
    if isinstance(value, dict):
        props = (schema or {}).get("properties") or {}
        return {k: _decode_nested(v, props.get(k)) for k, v in value.items()}
    if isinstance(value, list):
        items = (schema or {}).get("items")
        return [_decode_nested(v, items if isinstance(items, Mapping) else None) for v in value]
    if isinstance(value, str) and not _allows_string(schema):
        text = value.strip()
        if text[:1] in ("{", "[") and text[-1:] in ("}", "]"):
            try:
                decoded = json.loads(text)
            except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
                return value
            if isinstance(decoded, dict | list):
                return _decode_nested(decoded, schema)
    return value


def _allows_string(schema: Mapping[str, Any] | None) -> bool:
    """Whether a JSON schema accepts a string (pydantic writes `str | None` as anyOf)."""
    if not schema:
        return False
    declared = schema.get("type")
    if declared == "string" or (isinstance(declared, list) and "string" in declared):
        return True
    branches = [*(schema.get("anyOf") or ()), *(schema.get("oneOf") or ())]
    return any(_allows_string(b) for b in branches if isinstance(b, Mapping))


def _make_call(call_id: Any, name: str, raw: Any, schemas: Schemas, *, truncated: bool) -> ToolCall:
    arguments, raw_text, error = normalize_arguments(raw, schema=schemas.get(name))
    if truncated:
        error = CUT_OFF_ERROR
    return ToolCall(
        id=call_id if isinstance(call_id, str) and call_id.strip() else new_call_id(),
        name=name,
        arguments=arguments,
        raw_arguments=raw_text,
        error=error,
    )


def tool_calls_from_wire(
    raw_calls: Sequence[Mapping[str, Any]], schemas: Schemas, *, truncated: bool = False
) -> tuple[ToolCall, ...]:
    """Normalize `message.tool_calls` from a response; `truncated` marks every call not runnable."""
    calls = []
    for raw in raw_calls:
        function = raw.get("function") if isinstance(raw, Mapping) else None
        if not isinstance(function, Mapping):
            continue  # not a function call (e.g. OpenAI custom tools): nothing we can run
        calls.append(
            _make_call(
                raw.get("id"),
                str(function.get("name") or ""),
                function.get("arguments"),
                schemas,
                truncated=truncated,
            )
        )
    return tuple(calls)


def read_reasoning(message: Mapping[str, Any]) -> str | None:
    """The reasoning a server returned beside the content, if any.

    DeepSeek, Kimi, GLM and llama.cpp use `reasoning_content`; Ollama and newer vLLM `reasoning`.
    """
    for key in ("reasoning_content", "reasoning"):
        value = message.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL)


def split_think(content: str) -> tuple[str, str | None]:
    """Move `<think>…</think>` out of the content; returns (content, reasoning)."""
    if "<think>" not in content and "</think>" not in content:
        return content, None
    parts: list[str] = []
    head, sep, tail = content.partition("</think>")
    if sep and "<think>" not in head:
        # The chat template opened <think> in the prompt, so the reply starts inside it.
        parts.append(head)
        content = tail

    def keep(match: re.Match[str]) -> str:
        parts.append(match.group(1))
        return ""

    content = _THINK.sub(keep, content)
    head, sep, tail = content.partition("<think>")
    if sep:  # never closed: the reply was cut off while thinking
        parts.append(tail)
        content = head
    reasoning = "\n".join(p.strip() for p in parts if p.strip())
    return content.strip(), reasoning or None


# --- tool calls written into the content -------------------------------------------------

_HERMES = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
_FUNCTION = re.compile(r"<function=([^>\s]+)>(.*?)(?:</function>|\Z)", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\s]+)>(.*?)(?:</parameter>|(?=<parameter=)|\Z)", re.DOTALL)
_DS_CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
_DS_CALLS_END = "<｜tool▁calls▁end｜>"
_DS_CALL = re.compile(
    r"<｜tool▁call▁begin｜>(.*?)<｜tool▁sep｜>(.*?)(?:<｜tool▁call▁end｜>|\Z)", re.DOTALL
)
_DS_END_OF_SENTENCE = "<｜end▁of▁sentence｜>"
_FENCE = re.compile(r"\A```[\w-]*[ \t]*\n?(.*?)\n?```\Z", re.DOTALL)


def strip_fence(text: str) -> str:
    """The inside of a Markdown code fence, or the text itself when it is not fenced."""
    text = text.strip()
    match = _FENCE.match(text)
    return match.group(1).strip() if match else text


@dataclass(frozen=True)
class _Found:
    name: str
    arguments: Any  # a dict, or the JSON text the model wrote


def _json_call(text: str) -> _Found | None:
    """`{"name": …, "arguments": {…}}` (Hermes, Ollama); Llama writes `parameters`."""
    try:
        value = json.loads(strip_fence(text))
    except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
        return None
    return _found_from_object(value)


def _found_from_object(value: Any) -> _Found | None:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        return None
    for key in ("arguments", "parameters"):
        if key in value:
            return _Found(value["name"], value[key])
    return None


def _xml_call(name: str, body: str, schemas: Schemas) -> _Found:
    """`<function=name><parameter=x>v</parameter></function>` (Qwen3-Coder): values are text."""
    props = (schemas.get(name) or {}).get("properties") or {}
    arguments: dict[str, Any] = {}
    for match in _PARAMETER.finditer(body):
        key = match.group(1)
        text = match.group(2).removeprefix("\n").removesuffix("\n")
        arguments[key] = _xml_value(text, props.get(key))
    return _Found(name, arguments)


def _xml_value(text: str, schema: Mapping[str, Any] | None) -> Any:
    # Like Qwen's reference parser: text for strings, JSON for anything the schema says is not a
    # string; without a schema only objects and arrays are decoded (pydantic coerces the rest).
    if _allows_string(schema):
        return text
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
        return text
    if schema is None and not isinstance(value, dict | list):
        return text
    return value


def _deepseek_call(head: str, body: str) -> _Found:
    head = head.strip()
    if head in ("function", ""):
        # V3/R1: "function<｜tool▁sep｜>name\n```json\n{…}\n```"
        name, _, rest = body.strip().partition("\n")
        return _Found(name.strip(), strip_fence(rest))
    # V3.1: "name<｜tool▁sep｜>{…}"
    return _Found(head, strip_fence(body))


def tool_calls_from_content(
    content: str, schemas: Schemas, *, truncated: bool = False
) -> tuple[str, tuple[ToolCall, ...]]:
    """Find tool calls a model wrote into its text, for the offered tool names only.

    Reads Hermes/Qwen `<tool_call>` blocks, Qwen3-Coder `<function=…>` blocks, DeepSeek's
    special tokens and a bare JSON call. Blocks naming unknown tools stay in the text.

    Returns:
        (content without the recognised blocks, the calls in order).
    """
    found: list[_Found] = []

    def take(candidate: _Found | None, block: str) -> str:
        if candidate is None or candidate.name not in schemas:
            return block
        found.append(candidate)
        return ""

    def hermes(match: re.Match[str]) -> str:
        inner = match.group(1).strip()
        function = _FUNCTION.match(inner)
        if function:  # Qwen3-Coder wraps its XML form in <tool_call> too
            return take(_xml_call(function.group(1), function.group(2), schemas), match.group(0))
        return take(_json_call(inner), match.group(0))

    def function(match: re.Match[str]) -> str:
        return take(_xml_call(match.group(1), match.group(2), schemas), match.group(0))

    def deepseek(match: re.Match[str]) -> str:
        return take(_deepseek_call(match.group(1), match.group(2)), match.group(0))

    text = content
    if _DS_CALLS_BEGIN in text:
        text = _DS_CALL.sub(deepseek, text)
        if found:
            for marker in (_DS_CALLS_BEGIN, _DS_CALLS_END, _DS_END_OF_SENTENCE):
                text = text.replace(marker, "")
    text = _HERMES.sub(hermes, text)
    text = _FUNCTION.sub(function, text)
    if not found:
        found.extend(_bare_json_calls(text, schemas))
        if found:
            text = ""
    if not found:
        return content, ()
    calls = tuple(
        _make_call(None, f.name, f.arguments, schemas, truncated=truncated) for f in found
    )
    return text.strip(), calls


def _bare_json_calls(text: str, schemas: Schemas) -> list[_Found]:
    """A reply that is nothing but a JSON call, or a list of them (Ollama)."""
    body = strip_fence(text)
    if body[:1] not in ("{", "["):
        return []
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
        return []
    candidates = [_found_from_object(v) for v in (value if isinstance(value, list) else [value])]
    if not candidates or any(c is None or c.name not in schemas for c in candidates):
        return []  # all or nothing: a partly recognised JSON reply is an answer, not a call
    return [c for c in candidates if c is not None]


def content_text(content: Any) -> str:
    """The text of `message.content`: a string, null, or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    return str(content)
