"""Models for tests: a scripted model with queued replies, and a model driven by a function.

Never a MagicMock of the LLM: these implement ChatModel and record every call.
"""

from __future__ import annotations

import inspect
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from agent.llm.normalize import new_call_id
from agent.messages import Message, ModelResponse, ToolCall, ToolSpec, Usage

Scripted = ModelResponse | BaseException | str


def reply(text: str) -> ModelResponse:
    """A final answer with no tool calls."""
    return ModelResponse(content=text, tool_calls=(), finish_reason="stop", usage=Usage())


def tool_call(name: str, /, **arguments: Any) -> ToolCall:
    """A well-formed tool call with a fresh id."""
    return ToolCall(
        id=new_call_id(),
        name=name,
        arguments=arguments,
        raw_arguments=json.dumps(arguments, ensure_ascii=False),
    )


def call(name: str, /, **arguments: Any) -> ModelResponse:
    """A reply calling one tool."""
    return calls([tool_call(name, **arguments)])


def calls(items: Iterable[ToolCall | tuple[str, Mapping[str, Any]]]) -> ModelResponse:
    """A reply calling several tools at once: ToolCall objects or (name, arguments) pairs."""
    made = tuple(
        item if isinstance(item, ToolCall) else tool_call(item[0], **item[1]) for item in items
    )
    return ModelResponse(content="", tool_calls=made, finish_reason="tool_calls", usage=Usage())


@dataclass(frozen=True)
class ModelCall:
    """What one `complete` call received."""

    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...]
    tool_choice: str

    @property
    def last_message(self) -> Message | None:
        """The newest message the model was shown."""
        return self.messages[-1] if self.messages else None


class ScriptedModel:
    """A ChatModel answering from a queue: ModelResponse, text (a final answer) or an exception to raise."""

    def __init__(self, replies: Iterable[Scripted] = (), *, name: str = "scripted") -> None:
        self.name = name
        self._replies: deque[Scripted] = deque(replies)
        self.calls: list[ModelCall] = []

    def add(self, *replies: Scripted) -> None:
        """Queue more replies."""
        self._replies.extend(replies)

    @property
    def remaining(self) -> int:
        """Replies not used yet."""
        return len(self._replies)

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """Record the call and return (or raise) the next queued reply."""
        self.calls.append(ModelCall(tuple(messages), tuple(tools), tool_choice))
        if not self._replies:
            last = messages[-1] if messages else None
            shown = f"{last.role}: {last.content[:200]!r}" if last else "no messages"
            raise AssertionError(
                f"ScriptedModel {self.name!r} has no reply left for call #{len(self.calls)} "
                f"(last message {shown}). Queue another reply, or the loop called the model "
                "more often than the test expected."
            )
        item = self._replies.popleft()
        if isinstance(item, BaseException):
            raise item
        return reply(item) if isinstance(item, str) else item

    def assert_complete(self) -> None:
        """Fail if some queued replies were never used."""
        if self._replies:
            raise AssertionError(
                f"ScriptedModel {self.name!r} has {len(self._replies)} unused "
                f"repl{'y' if len(self._replies) == 1 else 'ies'} after {len(self.calls)} "
                f"call(s); next unused: {self._replies[0]!r}"
            )


ModelFunction = Callable[
    [Sequence[Message], Sequence[ToolSpec]], ModelResponse | Awaitable[ModelResponse]
]


class FunctionModel:
    """A ChatModel whose replies come from `fn(messages, tools)`, sync or async."""

    def __init__(self, fn: ModelFunction, *, name: str = "function") -> None:
        self.name = name
        self._fn = fn
        self.calls: list[ModelCall] = []

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """Record the call and return what the function answers."""
        self.calls.append(ModelCall(tuple(messages), tuple(tools), tool_choice))
        result = self._fn(messages, tools)
        if inspect.isawaitable(result):
            result = await result
        return result
