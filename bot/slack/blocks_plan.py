"""The agent's steps as one `plan` block of task cards: the fallback when streaming is unavailable."""

from __future__ import annotations

from slack_sdk.models.blocks import Block, PlanBlock, RichTextBlock, TaskCardBlock

from bot.presentation.steps import TaskLine
from bot.slack.blocks_base import (
    MESSAGE_BLOCKS_MAX,
    SECTION_TEXT_MAX,
    SlackMessage,
    escape,
    message,
    section,
    truncate,
)

TITLE_MAX = 150  # Slack documents no limit for plan and task titles: keep them header-sized
OUTPUT_MAX = 1000
TASKS_MAX = 40
FINAL_SECTIONS_MAX = 8
_MARKS = {"pending": "○", "in_progress": "…", "complete": "✓", "error": "✗"}


def _rich(text: str) -> RichTextBlock:
    """Rich text shows text literally (no mentions, no links), so it needs no escaping."""
    return RichTextBlock(
        elements=[
            {
                "type": "rich_text_section",
                "elements": [{"type": "text", "text": truncate(text, OUTPUT_MAX)}],
            }
        ]
    )


def _task(line: TaskLine) -> dict:
    status = line.status if line.status in _MARKS else "pending"
    output = line.output.strip() if line.output else ""
    return TaskCardBlock(
        task_id=truncate(line.task_id, 255),
        title=truncate(line.title.strip() or "…", TITLE_MAX),
        status=status,
        output=_rich(output) if output else None,
    ).to_dict()


def split_text(
    text: str, limit: int = SECTION_TEXT_MAX, most: int = FINAL_SECTIONS_MAX
) -> list[str]:
    """Escaped `text` in pieces of at most `limit` characters, cut at line ends where possible."""
    rest, pieces = escape(text.strip()), []
    while rest and len(pieces) < most:
        if len(rest) <= limit or len(pieces) == most - 1:
            pieces.append(truncate(rest, limit))
            break
        cut = rest.rfind("\n", 0, limit)
        if cut < limit // 2:
            cut = rest.rfind(" ", 0, limit)
        if cut < limit // 2:
            cut = limit
            amp = rest.rfind("&", 0, cut)
            if amp != -1 and ";" not in rest[amp:cut]:
                cut = amp
        pieces.append(rest[:cut].rstrip())
        rest = rest[cut:].lstrip()
    return pieces


def plan_message(title: str, tasks: list[TaskLine], final_text: str | None = None) -> SlackMessage:
    """The turn's steps as a plan of task cards, then the answer when there is one."""
    shown = tasks[-TASKS_MAX:]
    blocks: list[Block] = [
        PlanBlock(title=truncate(title.strip() or "…", TITLE_MAX), tasks=[_task(x) for x in shown])
    ]
    if final_text and final_text.strip():
        room = MESSAGE_BLOCKS_MAX - len(blocks)
        blocks += [section(p) for p in split_text(final_text, most=min(room, FINAL_SECTIONS_MAX))]
        fallback = final_text
    else:
        lines = [f"{_MARKS.get(x.status, '○')} {x.title}" for x in shown]
        fallback = "\n".join([title, *lines])
    return message(fallback, blocks)
