"""A conversation as the person had it: what they wrote, what the bot answered, what was done.

For `/history` in the terminal chat: tool results are JSON for the model; people see one
line per step in words (its summary), never the JSON or the internal ids in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from agent.messages import Message
from bot.presentation.text import plain

_IDS = re.compile(r"\b(?:[RP]-[0-9A-Z]{8,16}|D-[0-9A-Z]{8})\b")
STEP_MAX = 160


def _step_line(m: Message) -> str | None:
    """A tool result as one line: its summary (or message), ids taken out."""
    try:
        data = json.loads(m.content)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    text = data.get("summary") or data.get("message")
    if not isinstance(text, str) or not text.strip():
        return None
    line = _IDS.sub("", text.strip().splitlines()[0])
    line = re.sub(r"\s{2,}", " ", re.sub(r"\(\s*\)|（\s*）", "", line))
    line = re.sub(r"\s+([.,;:。，；：])", r"\1", line).strip(" ·:")
    mark = "✗" if data.get("ok") is False else "✓"
    return f"  {mark} {line[:STEP_MAX]}" if line else None


def conversation_lines(
    messages: Iterable[Message], you: str = "you", bot: str = "bot"
) -> list[str]:
    """'you> …' and 'bot> …' lines with each step's summary between them."""
    lines: list[str] = []
    for m in messages:
        if m.role == "user" and m.content.strip():
            lines.append(f"{you}> {m.content.strip()}")
        elif m.role == "assistant" and m.content.strip():
            lines.append(f"{bot}> {plain(m.content.strip())}")
        elif m.role == "tool" and (line := _step_line(m)) is not None:
            lines.append(line)
    return lines
