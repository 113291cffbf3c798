"""The messages the agent exchanges with a model: plain frozen data, JSON round-trippable.

Thread history is stored in Redis as JSON, so every message converts to and from a plain dict.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, cast

Role = Literal["system", "user", "assistant", "tool"]
ROLES: frozenset[str] = frozenset({"system", "user", "assistant", "tool"})


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by the model.

    `raw_arguments` is the exact string the model sent; it goes back unchanged in history
    (DashScope rejects a re-encoded one). `error` says why the arguments could not be
    normalized: the loop sends it back as the tool's result instead of running the tool.
    """

    id: str
    name: str
    arguments: dict[str, Any]
    raw_arguments: str
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return a plain JSON-ready dict."""
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "arguments": self.arguments,
            "raw_arguments": self.raw_arguments,
        }
        if self.error is not None:
            data["error"] = self.error
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ToolCall:
        """Build a tool call from `to_dict` output."""
        return cls(
            id=str(data["id"]),
            name=str(data["name"]),
            arguments=dict(data.get("arguments") or {}),
            raw_arguments=str(data.get("raw_arguments", "")),
            error=data.get("error"),
        )


@dataclass(frozen=True)
class Message:
    """One chat message; `reasoning` is the model's thinking, kept apart from `content`."""

    role: Role
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None
    reasoning: str | None = None

    @classmethod
    def tool_result(cls, call: ToolCall, content: str) -> Message:
        """The tool message answering `call`."""
        return cls(role="tool", content=content, tool_call_id=call.id, name=call.name)

    def to_dict(self) -> dict[str, Any]:
        """Return a plain JSON-ready dict; fields at their default are left out."""
        data: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            data["tool_calls"] = [call.to_dict() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            data["name"] = self.name
        if self.reasoning is not None:
            data["reasoning"] = self.reasoning
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Message:
        """Build a message from `to_dict` output.

        Raises:
            ValueError: the role is not one of system, user, assistant, tool.
        """
        role = data.get("role")
        if role not in ROLES:
            raise ValueError(f"unknown message role {role!r}; expected one of {sorted(ROLES)}")
        return cls(
            role=cast(Role, role),
            content=data.get("content") or "",
            tool_calls=tuple(ToolCall.from_dict(c) for c in data.get("tool_calls") or ()),
            tool_call_id=data.get("tool_call_id"),
            name=data.get("name"),
            reasoning=data.get("reasoning"),
        )


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the model sees it; `parameters` is the JSON schema of its arguments."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})


@dataclass(frozen=True)
class Usage:
    """Token counts of one model call; `cached_tokens` is the part of the prompt served from cache."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0


@dataclass(frozen=True)
class ModelResponse:
    """One normalized model reply: the loop runs `tool_calls` if there are any, else answers."""

    content: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: str
    usage: Usage
    reasoning: str | None = None
    model: str = ""
    # The reply hit the token limit: its text is incomplete and its tool calls carry an error.
    truncated: bool = False

    def to_message(self) -> Message:
        """The assistant message to append to history."""
        return Message(
            role="assistant",
            content=self.content,
            tool_calls=self.tool_calls,
            reasoning=self.reasoning,
        )
