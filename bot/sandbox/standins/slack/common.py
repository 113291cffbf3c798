"""What the stand-in's modules share: Slack error codes, Slack-looking ids, payload checks.

Block Kit payloads are checked with slack_sdk's own models (`Block.parse`, `validate_json`,
`to_dict`), so a block the SDK would refuse to build is refused here as Slack would.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from slack_sdk.models.messages.chunk import Chunk
from slack_sdk.models.views import View

MESSAGE_BLOCKS_MAX = 50
VIEW_BLOCKS_MAX = 100
MARKDOWN_MAX = 12_000
TEXT_MAX = 40_000
TASK_STATUSES = ("pending", "in_progress", "complete", "error")
CHUNK_TYPES = ("markdown_text", "plan_update", "task_update", "blocks")

_MODEL_ERRORS = (SlackObjectFormationError, TypeError, ValueError, AttributeError, KeyError)


class StandInError(Exception):
    """A Slack error code the Web API answers with `{"ok": false, "error": code}`."""

    def __init__(self, code: str, messages: list[str] | None = None, **extra: Any) -> None:
        super().__init__(code if not messages else f"{code}: {'; '.join(messages)}")
        self.code = code
        self.messages = list(messages or [])
        self.extra = extra

    def body(self) -> dict[str, Any]:
        """The response body Slack sends for this error."""
        body: dict[str, Any] = {"ok": False, "error": self.code, **self.extra}
        if self.messages:
            body["response_metadata"] = {"messages": list(self.messages)}
        return body


def slack_id(prefix: str, *parts: str) -> str:
    """A Slack-looking id (`D0ABC…`): the prefix and 10 characters derived from `parts`."""
    digest = hashlib.sha1("\x00".join(parts).encode()).digest()
    return prefix + base64.b32encode(digest).decode()[:10]


def invalid_arguments(*problems: str) -> StandInError:
    """Slack's answer to a missing or malformed argument."""
    return StandInError("invalid_arguments", [f"[ERROR] {p}" for p in problems])


def block_errors(blocks: Any, *, limit: int, pointer: str = "/blocks") -> list[str]:
    """What is wrong with a list of blocks by slack_sdk's limits; empty when it is fine."""
    if not isinstance(blocks, list):
        return [f"must be an array [json-pointer:{pointer}]"]
    if len(blocks) > limit:
        return [f"no more than {limit} items allowed [json-pointer:{pointer}]"]
    errors: list[str] = []
    for i, raw in enumerate(blocks):
        where = f"[json-pointer:{pointer}/{i}]"
        if not isinstance(raw, dict) or "type" not in raw:
            errors.append(f"missing required field: type {where}")
            continue
        try:
            block = Block.parse(raw)
            if block is None:
                errors.append(f"unsupported type: {raw['type']} {where}")
                continue
            block.validate_json()
            block.to_dict()
        except _MODEL_ERRORS as e:
            errors.append(f"{e} {where}")
            continue
        if raw["type"] == "plan":
            # slack_sdk keeps a plan's tasks as plain dicts: check them as task_card blocks.
            tasks = raw.get("tasks") or []
            errors += block_errors(tasks, limit=limit, pointer=f"{pointer}/{i}/tasks")
    return errors


def check_blocks(blocks: Any, *, limit: int = MESSAGE_BLOCKS_MAX) -> list[dict[str, Any]]:
    """The blocks, or `invalid_blocks` with the reasons (as Slack lists them in `errors`)."""
    errors = block_errors(blocks, limit=limit)
    if errors:
        raise StandInError("invalid_blocks", [f"[ERROR] {e}" for e in errors], errors=errors)
    return blocks


def check_view(spec: Any, *, types: tuple[str, ...]) -> dict[str, Any]:
    """A view payload checked by slack_sdk's `View` limits, or `invalid_arguments`."""
    if not isinstance(spec, dict):
        raise invalid_arguments("missing required field: view")
    if spec.get("type") not in types:
        raise invalid_arguments(
            f"view type must be one of {', '.join(types)} [json-pointer:/view/type]"
        )
    problems = [
        e.replace("/blocks", "/view/blocks")
        for e in block_errors(spec.get("blocks", []), limit=VIEW_BLOCKS_MAX)
    ]
    try:
        view = View(**{**spec, "blocks": None})
        view.blocks = None  # type: ignore[assignment]  # checked above, block by block
        view.to_dict()
    except _MODEL_ERRORS as e:
        problems.append(f"{e} [json-pointer:/view]")
    if not spec.get("blocks"):
        problems.append("views must contain between 1 and 100 blocks [json-pointer:/view/blocks]")
    if problems:
        raise invalid_arguments(*problems)
    return spec


def check_chunks(chunks: Any) -> list[dict[str, Any]]:
    """Streaming chunks checked against slack_sdk's chunk models, or `invalid_chunks`."""
    if chunks is None:
        return []
    if not isinstance(chunks, list):
        raise StandInError("invalid_chunks", ["[ERROR] must be an array [json-pointer:/chunks]"])
    problems: list[str] = []
    clean: list[dict[str, Any]] = []
    for i, raw in enumerate(chunks):
        where = f"[json-pointer:/chunks/{i}]"
        kind = raw.get("type") if isinstance(raw, dict) else None
        if kind not in CHUNK_TYPES:
            problems.append(f"unsupported chunk type: {kind} {where}")
            continue
        try:
            Chunk.parse(raw)
        except _MODEL_ERRORS as e:
            problems.append(f"{e} {where}")
            continue
        if kind == "markdown_text" and not isinstance(raw["text"], str):
            problems.append(f"text must be a string {where}")
        elif kind == "task_update" and raw["status"] not in TASK_STATUSES:
            problems.append(f"status must be one of {', '.join(TASK_STATUSES)} {where}")
        elif kind == "blocks":
            problems += block_errors(
                raw["blocks"], limit=MESSAGE_BLOCKS_MAX, pointer=f"/chunks/{i}/blocks"
            )
        clean.append({k: v for k, v in raw.items() if v is not None})
    if problems:
        raise StandInError("invalid_chunks", [f"[ERROR] {p}" for p in problems])
    return clean
