"""Thread memory in Redis: the conversation's messages, a size budget, and a lock per thread."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.client import Pipeline

from agent.messages import Message
from workflow.keys import thread_drafts, thread_history, thread_lock, thread_trace
from workflow.ticks import TickBatch, per_caller
from workflow.transactions import Group, is_cluster, transact

HISTORY_TTL_S = 14 * 86_400
MAX_STORED_MESSAGES = 400
MAX_TRACE_EVENTS = 2000
# History sent with each call, in estimated tokens (the HISTORY_BUDGET_TOKENS setting).
DEFAULT_BUDGET_TOKENS = 3000
_RELEASE = (
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"
)


class ThreadBusy(Exception):
    """Another turn of the same thread held the lock for longer than we wait."""


def estimate_tokens(message: Message) -> int:
    """A cheap token estimate (4 characters a token; CJK about one a character)."""
    text = message.content + "".join(c.raw_arguments + c.name for c in message.tool_calls)
    cjk = sum(1 for ch in text if "\u4e00" <= ch <= "\u9fff")
    return 4 + cjk + (len(text) - cjk) // 4


def _groups(messages: Sequence[Message]) -> list[list[Message]]:
    """Messages grouped so an assistant's tool calls never lose their tool results."""
    groups: list[list[Message]] = []
    for m in messages:
        if m.role == "tool" and groups:
            groups[-1].append(m)
        else:
            groups.append([m])
    return groups


def _pinned(group: list[Message]) -> bool:
    """A group holding an open proposal is kept: the conversation must know what awaits a click."""
    return any(m.role == "tool" and '"status":"awaiting_confirmation"' in m.content for m in group)


# What an answered tool result keeps: enough to know what happened and to refer to it again.
_KEPT = ("ok", "status", "error", "summary", "field_errors", "pending_id", "request_id")
_KEPT_CHARS = 600


def compact_answered(messages: Sequence[Message]) -> list[Message]:
    """Tool results of the turns before the last one, cut down to their summary and ids.

    Once a turn's final answer has been given, its tool output has been read: later calls
    need what it said (the summary, the ids a user may refer to, an open draft's pending_id),
    not the rows again. The last turn keeps its results whole: the new message may pick from
    them ("the second one").
    """
    users = [i for i, m in enumerate(messages) if m.role == "user"]
    if not users:
        return list(messages)
    last_turn = users[-1]
    return [
        _compact(m) if m.role == "tool" and i < last_turn else m for i, m in enumerate(messages)
    ]


def _compact(message: Message) -> Message:
    try:
        data = json.loads(message.content)
    except ValueError:
        data = None
    if isinstance(data, dict):
        kept = {k: data[k] for k in _KEPT if data.get(k) not in (None, "", [], {})}
        if "summary" not in kept and data.get("message"):
            kept["summary"] = data["message"]
        content = json.dumps(kept, ensure_ascii=False, separators=(",", ":"), default=str)
    else:
        content = message.content
    if len(content) > _KEPT_CHARS:
        content = content[:_KEPT_CHARS] + "…"
    if content == message.content:
        return message
    return Message(
        role="tool", content=content, tool_call_id=message.tool_call_id, name=message.name
    )


def fit_budget(messages: Sequence[Message], budget_tokens: int) -> list[Message]:
    """Drop the oldest groups until the rest fits, keeping pinned groups and the newest group."""
    groups = _groups(messages)
    sizes = [sum(estimate_tokens(m) for m in g) for g in groups]
    total = sum(sizes)
    keep = [True] * len(groups)
    for i in range(len(groups) - 1):
        if total <= budget_tokens:
            break
        if _pinned(groups[i]):
            continue
        keep[i] = False
        total -= sizes[i]
    kept = [m for g, k in zip(groups, keep, strict=True) if k for m in g]
    while kept and kept[0].role == "tool":  # a tool result must follow its call
        kept.pop(0)
    return kept


def _keep_last(pipe: Pipeline, key: str, items: list[str], keep: int) -> None:
    """Append `items` to the list at `key`, keep its last `keep`, refresh its expiry."""
    if items:
        pipe.rpush(key, *items)
        pipe.ltrim(key, -keep, -1)
        pipe.expire(key, HISTORY_TTL_S)


class ThreadMemory:
    """Per-thread history, lock and trace, all keyed by the thread (one cluster slot per thread)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        budget_tokens: int = DEFAULT_BUDGET_TOKENS,
        lock_ttl_s: float = 90,
    ) -> None:
        self.redis = redis
        self.budget_tokens = budget_tokens
        self.lock_ttl_ms = int(lock_ttl_s * 1000)
        self._release = redis.register_script(_RELEASE)
        # on one Redis, the threads that start a turn in the same loop tick (a runner's, a
        # read's worth at a time) are read in one round trip; a cluster reads each alone
        self._loads: TickBatch[str, tuple[list[Any], dict[str, str]]] | None = (
            None if is_cluster(redis) else TickBatch(self._read_threads)
        )

    async def load(self, thread: str) -> list[Message]:
        """The thread's messages, answered tool output summarised, trimmed to the token budget."""
        return self._fit(await self.redis.lrange(thread_history(thread), 0, -1))

    async def load_with_drafts(self, thread: str) -> tuple[list[Message], dict[str, str]]:
        """`load`, and the thread's drafts hash (agent/tools/drafts.py) in the same round trip
        (both keys are the thread's: one slot), shared with the other threads loaded in this
        loop tick on one Redis."""
        if self._loads is not None:
            raw, drafts = await self._loads(thread)
            return self._fit(raw), drafts
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.lrange(thread_history(thread), 0, -1)
            pipe.hgetall(thread_drafts(thread))
            raw, drafts = await pipe.execute()
        return self._fit(raw), dict(drafts)

    async def _read_threads(
        self, threads: list[str]
    ) -> list[tuple[list[Any], dict[str, str]] | BaseException]:
        """Each thread's history and drafts, in one pipeline (a thread's error is its own)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for thread in threads:
                pipe.lrange(thread_history(thread), 0, -1)
                pipe.hgetall(thread_drafts(thread))
            replies = await pipe.execute(raise_on_error=False)
        return [
            got if isinstance(got, BaseException) else (got[0], dict(got[1]))
            for got in per_caller(replies, [2] * len(threads))
        ]

    def _fit(self, raw: list[Any]) -> list[Message]:
        messages = compact_answered([Message.from_dict(json.loads(r)) for r in raw])
        return fit_budget(messages, self.budget_tokens)

    async def append(self, thread: str, messages: Sequence[Message]) -> None:
        """Add messages to the thread and refresh its 14-day expiry."""
        await self.save(thread, messages, ())

    async def save(
        self,
        thread: str,
        messages: Sequence[Message],
        events: Sequence[dict[str, Any]],
        *also: Group,
    ) -> None:
        """Add a turn's messages and its step events (for `approvals-bot trace`) in one
        transaction (both keys are the thread's: one slot), and refresh their 14-day expiry.
        `also`: the caller's writes on this client, sent in the same round trip (each its own
        transaction on a cluster: workflow/transactions.py)."""
        if not messages and not events:
            await transact(self.redis, *also)
            return
        history = [json.dumps(m.to_dict(), ensure_ascii=False) for m in messages]
        steps = [json.dumps(e, ensure_ascii=False, default=str) for e in events]

        def queue(pipe: Pipeline) -> None:
            _keep_last(pipe, thread_history(thread), history, MAX_STORED_MESSAGES)
            _keep_last(pipe, thread_trace(thread), steps, MAX_TRACE_EVENTS)

        await transact(self.redis, queue, *also)

    async def note(self, thread: str, text: str) -> None:
        """Record something that happened outside the model (a click) so the conversation knows."""
        await self.append(thread, [Message(role="assistant", content=text)])

    @asynccontextmanager
    async def lock(self, thread: str, wait_s: float = 30) -> AsyncIterator[None]:
        """Hold the thread's lock: two messages of one thread run in order; other threads never wait."""
        key, token = thread_lock(thread), secrets.token_hex(8)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + wait_s
        delay = 0.01
        while not await self.redis.set(key, token, nx=True, px=self.lock_ttl_ms):
            if loop.time() >= give_up:
                raise ThreadBusy(thread)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 0.25)
        try:
            yield
        finally:
            await self._release(keys=[key], args=[token])

    async def read_trace(self, thread: str) -> list[dict[str, Any]]:
        return [json.loads(r) for r in await self.redis.lrange(thread_trace(thread), 0, -1)]
