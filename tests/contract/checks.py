"""What every message must keep, whoever reads it: one language, and clock times with their zone.

One language per message: an English reader's message holds no Chinese outside of what
people typed or are called (names, reasons, comments); a Chinese reader's message has no
English words outside of those, request ids, currency codes and zone names. Times with their
zone: every clock time ("09:00") is followed by its zone ("London time", "北京时间",
"UTC+08:00"), in brackets or not, or is inside a Slack `<!date^…>` token.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any
from zoneinfo import ZoneInfo

from bot.presentation.times import zone_name
from workflow.engine import Engine

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
WORD = re.compile(r"[A-Za-z]{2,}")
# Not words a reader reads as English: Slack emoji codes, mrkdwn/lark_md links, ids, codes.
_NOT_WORDS = [
    re.compile(r":[a-z0-9_+-]+:"),  # :tada:
    re.compile(r"\bR-[0-9A-Z]{6,}\b"),  # a request id
    re.compile(r"\bP-[0-9A-Z]{8,}\b"),  # a pending id
    re.compile(r"\b[A-Z]{3}\b"),  # GBP, CNY, UTC
    re.compile(r"<!date\^[^>]*>"),  # Slack's own date token
]
CLOCK = re.compile(r"(?<![\d:+-])([01]?\d|2[0-3]):[0-5]\d(?![\d:])")


def words(node: Any) -> list[str]:
    """What a reader reads in Block Kit or Feishu card JSON: every "text" and "content" string."""
    if isinstance(node, list):
        return [s for item in node for s in words(item)]
    if not isinstance(node, dict):
        return []
    out = []
    for key, value in node.items():
        if key in ("text", "content", "alt_text", "placeholder") and isinstance(value, str):
            out.append(value)
        elif key not in ("value", "action_id", "block_id", "metadata"):
            out += words(value)
    return out


def typed_by_people(engine: Engine, extra: Iterable[str] = ()) -> list[str]:
    """What people are called: their names in the directory, longest first."""
    names = [p.name for p in engine.config.people]
    return sorted({*names, *extra}, key=len, reverse=True)


def _without(text: str, literals: Iterable[str]) -> str:
    for literal in literals:
        if literal:
            text = text.replace(literal, " ")
    for pattern in _NOT_WORDS:
        text = pattern.sub(" ", text)
    return text


def other_language(text: str, locale: str, literals: Iterable[str]) -> list[str]:
    """The words of `text` that are not in `locale` (names and what people typed left out)."""
    rest = _without(text, literals)
    if locale == "zh":
        return WORD.findall(rest)
    return CJK.findall(rest)


def zone_names(engine: Engine) -> list[str]:
    """Every zone name a card may show for the directory's people, in both languages."""
    zones = {ZoneInfo(p.timezone) for p in engine.config.people}
    return sorted({zone_name(z, loc) for z in zones for loc in ("en", "zh")} | {"UTC"})


def unzoned_times(text: str, zones: list[str]) -> list[str]:
    """Clock times in `text` with no zone named right after (or right before) them."""
    text = re.sub(r"<!date\^[^>]*>", " ", text)
    named = "|".join(re.escape(z) for z in zones)
    after = re.compile(rf"\s*[(（]?(?:{named}|UTC[+-]\d{{2}}:\d{{2}})")
    before = re.compile(rf"(?:{named})\s*$")
    bad = []
    for m in CLOCK.finditer(text):
        if after.match(text, m.end()) or before.search(text[: m.start()]):
            continue
        bad.append(text[max(0, m.start() - 20) : m.end() + 20])
    return bad
