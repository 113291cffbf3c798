"""`approvals-bot turns list|replay`: the turns that failed three times, and queueing them again."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson

from bot.queue.stream import Turn, TurnQueue


def _when(entry_id: str) -> str:
    ms = int(entry_id.split("-", 1)[0])
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def describe(entry_id: str, fields: dict[str, str]) -> dict[str, Any]:
    """One dead letter as a row: when, where, who, what was said, and why it failed."""
    turn = Turn.of(entry_id, fields)
    d = turn.data
    return {
        "id": entry_id,
        "buried_at": _when(entry_id),
        "platform": turn.platform,
        "thread": turn.thread,
        "user": d.get("user") or d.get("open_id") or "",
        "text": (d.get("text") or "")[:80],
        "attempts": fields.get("attempts", ""),
        "reason": fields.get("reason", ""),
    }


async def list_dead(queue: TurnQueue, as_json: bool = False) -> str:
    """The dead-letter stream and the queue's depth, as lines (or one JSON object)."""
    rows = [describe(i, f) for i, f in await queue.dead_letters(1000)]
    depth = await queue.depth()
    if as_json:
        return orjson.dumps({"queued_or_running": depth, "dead_letters": rows}).decode()
    lines = [f"{depth} turn(s) queued or running; {len(rows)} dead letter(s)"]
    for r in rows:
        lines.append(
            f"{r['id']}  {r['buried_at']}  {r['platform']}  {r['user']}  "
            f"attempts={r['attempts']}  {r['reason'][:60]!r}  text={r['text']!r}"
        )
    return "\n".join(lines)


async def replay(queue: TurnQueue, ids: list[str], replay_all: bool) -> tuple[list[str], list[str]]:
    """Queue dead letters again; returns (queued as new entries, ids not found)."""
    if replay_all:
        ids = [i for i, _ in await queue.dead_letters(10_000)]
    queued, missing = [], []
    for dead_id in ids:
        entry = await queue.replay(dead_id)
        (queued if entry else missing).append(entry or dead_id)
    return queued, missing
