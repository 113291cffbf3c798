"""A conversation as the person had it: what they wrote, what the bot answered, what was done.

For `/history` in the terminal chat: tool results are JSON for the model; people see one
line per step in words (its summary), never the JSON or the internal ids in it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from agent.messages import Message
from bot.presentation.steps import said_by
from bot.presentation.text import plain

_IDS = re.compile(r"\b(?:[RP]-[0-9A-Z]{8,16}|D-[0-9A-Z]{8})\b")
STEP_MAX = 160


def _step_line(m: Message) -> str | None:
    """A tool result as one line: its summary (or message), ids taken out, its ✓ or ✗ first."""
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
    """'you> …' and 'bot> …' lines with each step's summary between them, but for a summary
    the answer after it repeats (a balance asked for is read once, in the answer)."""
    lines: list[str] = []
    steps: list[str] = []  # the step lines since the last answer
    for m in messages:
        if m.role == "assistant" and m.content.strip():
            answer = plain(m.content.strip())
            lines += [x for x in steps if not said_by(x[4:], answer)]  # x[4:]: after "  ✓ "
            steps = []
            lines.append(f"{bot}> {answer}")
        elif m.role == "tool" and (line := _step_line(m)) is not None:
            steps.append(line)
        elif m.role == "user" and m.content.strip():
            lines += steps
            steps = []
            lines.append(f"{you}> {m.content.strip()}")
    return lines + steps
