"""A turn's steps as people see them: a title and, where it adds something, one short line.

A proposal's step shows its title alone: the answer says what was prepared, and the card
carries the facts and what to click (a line that goes when the card is clicked), so the same
sentence is not shown three times in one turn. Nor does a step's line repeat the answer: a
balance asked for is the answer, read once, under a step that says it was checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from agent.events import ToolFinished

TaskStatus = Literal["pending", "in_progress", "complete", "error"]
OUTPUT_MAX = 160


@dataclass(frozen=True)
class TaskLine:
    """One tool call as a person sees it: a title, a status and a one-line output."""

    task_id: str
    title: str
    status: TaskStatus
    output: str | None = None


def step_output(event: ToolFinished) -> str | None:
    """The line under a finished step: none for a proposal that worked, else its first line.

    A list's first line is its header ("You have 3 requests:"): shown without its colon, as
    the list itself is not; a header over no items is never shown.
    """
    if event.ok and event.tool.startswith("propose_"):
        return None
    lines = event.summary.strip().splitlines()
    first = lines[0].strip() if lines else ""
    if first.endswith((":", "：")):
        first = first[:-1].rstrip() if len(lines) > 1 else ""
    if len(first) > OUTPUT_MAX:
        first = first[: OUTPUT_MAX - 1].rstrip() + "…"
    return first or None


_MARKS = re.compile(r"[*_`]")  # markdown emphasis the answer may carry and a step line never does


def _words(text: str) -> str:
    return " ".join(_MARKS.sub("", text).split()).rstrip(".。…").casefold()


def _latin(char: str) -> bool:
    """A letter or digit of a script written with spaces between words (not CJK)."""
    return char.isalnum() and ord(char) < 0x2E80


def said_by(output: str, answer: str) -> bool:
    """The answer says what a step's line says: its line, or (cut to OUTPUT_MAX) the start of
    it, is in the answer, so a person would read the same sentence twice.

    In Latin text as whole words: "3 waiting for your approval" is not said by "13 waiting for
    your approval", and a whole sentence ("Found: Li.") not by a longer one ("Found: Li Na and
    Li Wei."). Chinese, written without spaces, is matched as it is contained.
    """
    line, text = _words(output), _words(answer)
    sentence = output.rstrip().rstrip("*_`").endswith((".", "!", "?"))
    for m in re.finditer(re.escape(line), text) if line else ():
        before, after = text[m.start() - 1 : m.start()], text[m.end() : m.end() + 1]
        if (_latin(before) and _latin(line[0])) or (_latin(line[-1]) and _latin(after)):
            continue  # inside a word: "3" of "13"
        if sentence and after == " ":
            continue  # a sentence the answer goes on with: "Found: Li" of "Found: Li Na"
        return True
    return False
