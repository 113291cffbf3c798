"""How a streamed reply (chat.startStream / appendStream / stopStream) is kept.

A stream message carries a `stream` dict the sandbox renders from:
`state` ("in_progress" | "completed"), `task_display_mode` ("timeline" | "plan"),
`markdown_text` (all text so far), `plan_title`, `tasks` (one dict per task id, updated in
place: `id, title, status, details, output, sources`), `timeline` (the order things appeared:
`{"type": "markdown_text", "text"}`, `{"type": "task", "id"}`, `{"type": "blocks", "blocks"}`)
and `chunks` (every chunk as received).
"""

from __future__ import annotations

import copy
from typing import Any


def new_stream(task_display_mode: str | None) -> dict[str, Any]:
    """The empty state of a stream that has just started."""
    return {
        "state": "in_progress",
        "task_display_mode": task_display_mode or "timeline",
        "markdown_text": "",
        "plan_title": None,
        "tasks": [],
        "timeline": [],
        "chunks": [],
    }


def apply_chunks(stream: dict[str, Any], chunks: list[dict[str, Any]]) -> None:
    """Fold checked chunks into a stream: text appended, plan title set, tasks merged by id."""
    timeline: list[dict[str, Any]] = stream["timeline"]
    for chunk in chunks:
        stream["chunks"].append(copy.deepcopy(chunk))
        kind = chunk["type"]
        if kind == "markdown_text":
            stream["markdown_text"] += chunk["text"]
            if timeline and timeline[-1]["type"] == "markdown_text":
                timeline[-1]["text"] += chunk["text"]
            else:
                timeline.append({"type": "markdown_text", "text": chunk["text"]})
        elif kind == "plan_update":
            stream["plan_title"] = chunk["title"]
        elif kind == "task_update":
            fields = {k: v for k, v in chunk.items() if k != "type" and v is not None}
            task = next((t for t in stream["tasks"] if t["id"] == chunk["id"]), None)
            if task is None:
                stream["tasks"].append(fields)
                timeline.append({"type": "task", "id": chunk["id"]})
            else:
                task.update(fields)
        elif kind == "blocks":
            timeline.append({"type": "blocks", "blocks": copy.deepcopy(chunk["blocks"])})
