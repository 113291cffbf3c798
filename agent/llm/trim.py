"""Shrink a history that the model refused as too long (ContextTooLong), keeping it valid."""

from __future__ import annotations

from collections.abc import Sequence

from agent.messages import Message


def trim_for_context(
    messages: Sequence[Message], *, budget_chars: int | None = None
) -> list[Message]:
    """Drop the oldest parts of a history until it fits `budget_chars` (default: half its size).

    Always kept: the system messages and the latest user message. The rest is kept newest
    first while it fits, as whole groups: an assistant message with tool calls stays with its
    tool results or goes with them, so the server never sees a call without its answer (or an
    answer without its call). The order of what is kept does not change.
    """
    groups = _groups(messages)
    last_user = max((i for i, group in enumerate(groups) if group[0].role == "user"), default=None)
    pinned = {i for i, group in enumerate(groups) if group[0].role == "system"}
    if last_user is not None:
        pinned.add(last_user)
    if budget_chars is None:
        budget_chars = sum(_size(m) for m in messages) // 2
    used = sum(_size(m) for i in pinned for m in groups[i])
    kept = set(pinned)
    for i in reversed(range(len(groups))):
        if i in pinned:
            continue
        size = sum(_size(m) for m in groups[i])
        if used + size > budget_chars:
            break  # keep a recent run without gaps: older groups go even if small
        kept.add(i)
        used += size
    return [m for i, group in enumerate(groups) if i in kept for m in group]


def _groups(messages: Sequence[Message]) -> list[list[Message]]:
    """Split into units kept or dropped whole; orphan tool results are left out."""
    groups: list[list[Message]] = []
    open_ids: set[str | None] = set()
    for m in messages:
        if m.role == "tool":
            if m.tool_call_id in open_ids and groups:
                groups[-1].append(m)
            continue
        open_ids = {c.id for c in m.tool_calls} if m.role == "assistant" else set()
        groups.append([m])
    return groups


def _size(message: Message) -> int:
    return len(message.content) + sum(
        len(c.raw_arguments) + len(c.name) for c in message.tool_calls
    )
