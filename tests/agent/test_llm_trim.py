"""trim_for_context: shrinking a history after ContextTooLong without breaking it."""

from __future__ import annotations

from agent.llm.trim import trim_for_context
from agent.messages import Message, ToolCall


def _call_group(n: int, size: int = 100) -> list[Message]:
    call = ToolCall(f"call_{n}", "lookup", {}, "{}")
    return [Message(role="assistant", tool_calls=(call,)), Message.tool_result(call, "x" * size)]


def test_keeps_system_latest_user_and_recent_whole_groups():
    """Oldest parts go first; system, the latest user message and recent call groups stay whole."""
    system = Message(role="system", content="rules")
    old_user = Message(role="user", content="old question " * 20)
    old_answer = Message(role="assistant", content="old answer " * 20)
    latest = Message(role="user", content="current question")
    history = [
        system,
        old_user,
        old_answer,
        latest,
        *_call_group(1),
        *_call_group(2),
        *_call_group(3),
    ]
    trimmed = trim_for_context(history, budget_chars=300)
    assert trimmed == [system, latest, *_call_group(2), *_call_group(3)]


def test_never_splits_a_call_from_its_results():
    """An assistant tool-call message and all its results are kept or dropped together."""
    calls = (ToolCall("call_a", "lookup", {}, "{}"), ToolCall("call_b", "lookup", {}, "{}"))
    group = [
        Message(role="assistant", tool_calls=calls),
        Message.tool_result(calls[0], "a" * 200),
        Message.tool_result(calls[1], "b" * 200),
    ]
    history = [Message(role="user", content="q"), *group]
    assert trim_for_context(history, budget_chars=100) == history[:1]
    assert trim_for_context(history, budget_chars=1000) == history
    for budget in range(0, 450, 25):
        trimmed = trim_for_context(history, budget_chars=budget)
        ids = {c.id for m in trimmed for c in m.tool_calls}
        answered = {m.tool_call_id for m in trimmed if m.role == "tool"}
        assert ids == answered


def test_default_budget_halves_the_history_and_drops_orphan_results():
    """Without a budget about half the characters go; tool results with no call are dropped."""
    orphan = Message(role="tool", content="stale", tool_call_id="call_gone")
    history = [
        orphan,
        Message(role="user", content="q"),
        *(m for n in range(6) for m in _call_group(n)),
    ]
    trimmed = trim_for_context(history)
    assert orphan not in trimmed
    assert trimmed[0] == history[1]
    assert trimmed[-2:] == _call_group(5)
    assert sum(len(m.content) for m in trimmed) <= sum(len(m.content) for m in history) // 2
