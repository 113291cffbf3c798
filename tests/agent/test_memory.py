"""Thread memory: a size budget that never splits a tool call from its result and keeps open proposals."""

from __future__ import annotations

import asyncio
import json

import redis.exceptions

from agent.memory import ThreadMemory, estimate_tokens, fit_budget
from agent.messages import Message, ToolCall
from tests.helpers import CountingRedis
from workflow.keys import thread_drafts, thread_history


def _call_group(i: int, status: str = "done") -> list[Message]:
    call = ToolCall(f"c{i}", "my_balances", {}, "{}")
    body = json.dumps({"ok": True, "status": status, "summary": "x" * 400}, separators=(",", ":"))
    return [Message(role="assistant", tool_calls=(call,)), Message.tool_result(call, body)]


def test_the_oldest_messages_go_first_and_pairs_stay_whole():
    """Over budget, old groups are dropped whole: no tool result is left without its call."""
    history = [Message(role="user", content="old " * 200)]
    for i in range(5):
        history += _call_group(i)
    history.append(Message(role="user", content="latest"))
    kept = fit_budget(history, budget_tokens=300)
    assert kept[-1].content == "latest"
    assert kept[0].role != "tool"
    ids = {c.id for m in kept for c in m.tool_calls}
    assert all(m.tool_call_id in ids for m in kept if m.role == "tool")
    assert sum(estimate_tokens(m) for m in kept) <= 300 or len(kept) == 1


def test_an_open_proposal_is_kept_however_old():
    """A proposal still awaiting its click survives trimming so the conversation knows it exists."""
    history = _call_group(0, status="awaiting_confirmation")
    for i in range(1, 8):
        history += _call_group(i)
    kept = fit_budget(history, budget_tokens=250)
    assert any('"awaiting_confirmation"' in m.content for m in kept)


def test_cjk_text_counts_about_one_token_a_character():
    """Chinese text is estimated at a token per character, not four characters per token."""
    assert estimate_tokens(Message(role="user", content="请" * 100)) >= 100
    assert estimate_tokens(Message(role="user", content="a" * 100)) < 40


async def test_threads_loaded_in_one_tick_are_read_in_one_round_trip_each_with_its_own():
    """Turns starting together (a runner's read) read their histories and drafts at once, and
    each gets its own thread's; a thread whose key Redis refuses fails that turn alone."""
    client = CountingRedis(decode_responses=True)
    memory = ThreadMemory(client)
    for i in range(20):
        await memory.append(f"t{i}", [Message(role="user", content=f"hello {i}")])
        await client.hset(thread_drafts(f"t{i}"), "submit", f"P-{i}")
    CountingRedis.pipelines = 0
    loaded = await asyncio.gather(*(memory.load_with_drafts(f"t{i}") for i in range(20)))
    assert CountingRedis.pipelines == 1
    assert [(h[0].content, d) for h, d in loaded] == [
        (f"hello {i}", {"submit": f"P-{i}"}) for i in range(20)
    ]
    await client.set(thread_history("broken"), "not a list")
    results = await asyncio.gather(
        memory.load_with_drafts("t1"), memory.load_with_drafts("broken"), return_exceptions=True
    )
    assert results[0][1] == {"submit": "P-1"}
    assert isinstance(results[1], redis.exceptions.ResponseError)
