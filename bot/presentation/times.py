"""Times as a reader reads them: in their time zone, with the zone named ("09:00 London")."""

from __future__ import annotations

from datetime import datetime, tzinfo

from agent.catalogue import say
from bot.presentation.model import Reader

# Chinese names for the zones people are likely to be in; other zones show their city.
_ZH_ZONES = {
    "Asia/Shanghai": "北京时间",
    "Asia/Chongqing": "北京时间",
    "Asia/Hong_Kong": "香港时间",
    "Asia/Taipei": "台北时间",
    "Asia/Singapore": "新加坡时间",
    "Asia/Tokyo": "东京时间",
    "Asia/Seoul": "首尔时间",
    "Asia/Kolkata": "印度时间",
    "Europe/London": "伦敦时间",
    "Europe/Paris": "巴黎时间",
    "Europe/Berlin": "柏林时间",
    "America/New_York": "纽约时间",
    "America/Chicago": "芝加哥时间",
    "America/Los_Angeles": "洛杉矶时间",
    "Australia/Sydney": "悉尼时间",
    "UTC": "UTC",
}


def zone_name(zone: tzinfo | None, locale: str, at: datetime | None = None) -> str:
    """'London', 'New York', '北京时间'; the UTC offset for a zone without a name."""
    key = getattr(zone, "key", None)
    if key is None:
        offset = at.strftime("%z") if at is not None and at.tzinfo is not None else ""
        return f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
    if locale == "zh" and key in _ZH_ZONES:
        return _ZH_ZONES[key]
    if key in ("UTC", "Etc/UTC"):
        return "UTC"
    city = key.rsplit("/", 1)[-1].replace("_", " ")
    return say("time.zone_city", locale, city=city)


def at_text(at: datetime | None, reader: Reader) -> str:
    """'2026-12-02 09:00 London' / '2026-12-02 15:57 北京时间', in the reader's zone; '?' for None."""
    if at is None:
        return "?"
    local = reader.local(at)
    return f"{local:%Y-%m-%d %H:%M} {zone_name(local.tzinfo, reader.locale, local)}"
