"""The one interface every model provider implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from agent.messages import Message, ModelResponse, ToolSpec


@runtime_checkable
class ChatModel(Protocol):
    """A chat model: messages and tools in, one normalized reply out.

    `tool_choice` is "auto", "none", "required" or the name of one tool to force.
    """

    name: str

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """Ask the model for its next reply.

        Raises:
            agent.errors.ModelError: the model could not give a reply.
        """
        ...
