"""Cards as plain text (the terminal chat, logs), and the cutting every surface shares."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from agent.catalogue import say
from bot.presentation.model import Card
from bot.presentation.steps import TaskLine

ELLIPSIS = "…"
LIST_MAX = 10  # people and requests listed on one card, tab or digest before "…and N more"
T = TypeVar("T")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


@dataclass(frozen=True)
class Listed(Generic[T]):
    """What a list shows of its items, and of how many in all."""

    shown: list[T]
    total: int

    @property
    def more(self) -> int:
        """How many it leaves out: its "…and N more"."""
        return self.total - len(self.shown)

    def with_more(self, lines: list[str], locale: str) -> list[str]:
        """`lines` (one per item shown) and, when some are left out, their "…and N more"."""
        return [*lines, say("line.and_more", locale, n=self.more)] if self.more else lines


def listed(items: Sequence[T], total: int | None = None, limit: int = LIST_MAX) -> Listed[T]:
    """The first `limit` of `items`, of `total` in all (the items may be the first page of
    more; default: the items themselves). One sum for every list that says "…and N more"."""
    return Listed(list(items[:limit]), len(items) if total is None else max(total, len(items)))


def truncate(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with a trailing "…", never inside an &entity;."""
    if len(text) <= limit:
        return text
    cut = text[: max(limit - 1, 0)]
    amp = cut.rfind("&")
    if amp != -1 and ";" not in cut[amp:]:
        cut = cut[:amp]
    return cut.rstrip() + ELLIPSIS


def plain(text: str) -> str:
    """The agent's markdown answer for a terminal: "Click **Submit**" reads "Click Submit"."""
    return _BOLD.sub(r"\1", text)


def escape_html(text: object) -> str:
    """Escape &, < and > (Slack mrkdwn and Feishu lark_md both read them as markup)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def to_text(card: Card, indent: str = "  ") -> str:
    """A card as lines for a terminal: title, paragraphs, facts, context, [buttons]."""
    lines: list[str] = []
    if card.banner:
        lines.append(card.banner)
    if card.title:
        lines.append(f"┌─ {card.title}")
    for p in card.lead:
        lines += _paragraph(p.label, p.text)
    width = max((_width(f.label) for f in card.facts), default=0)
    lines += [f"{f.label}{' ' * (width - _width(f.label))}  {f.value}" for f in card.facts]
    for p in card.body:
        lines += _paragraph(p.label, p.text)
    lines += [f"· {c}" for c in card.context]
    if card.actions:
        lines.append(" ".join(f"[{a.label}]" for a in card.actions))
    return "\n".join(f"{indent}│ {x}" if i else f"{indent}{x}" for i, x in enumerate(lines))


def step_text(task: TaskLine, locale: str, indent: str = "  ") -> str:
    """A finished step as a line: '✓ Checking your leave balances — Annual leave: 12 of 15 days
    left' / '✓ 查询你的假期余额——年假：剩余 12 天' (the catalogue's punctuation)."""
    mark = "✗" if task.status == "error" else "✓"
    if not task.output:
        return f"{indent}{mark} {task.title}"
    return f"{indent}{mark} " + say("chat.step_line", locale, title=task.title, output=task.output)


def _width(text: str) -> int:
    """Columns a label takes in a terminal: a Chinese character takes two, so facts line up."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _paragraph(label: str | None, text: str) -> list[str]:
    body = text.strip().splitlines() or [""]
    return [f"{label}:", *(f"  {x}" for x in body)] if label else body
