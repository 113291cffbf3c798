"""Times as a reader reads them: in their time zone, with the zone named.

"Wed 2 Dec, 17:33 (London time)" / "12月2日 周三 17:33（伦敦时间）": the day written as the
product writes dates (agent/i18n.py), the year only when it is not this year's. A card stays in
the chat and is read days later, so its day is always named, never "today".
"""

from __future__ import annotations

from datetime import datetime, tzinfo

from agent.catalogue import say
from agent.i18n import fmt_date, fmt_day
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
    """'London time', 'New York time', '北京时间'; the UTC offset for a zone without a name."""
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


def at_text(at: datetime | None, reader: Reader, now: datetime | None = None) -> str:
    """'Wed 2 Dec, 09:00 (London time)' / '12月2日 周三 15:57（北京时间）', in the reader's zone;
    the year named when `at` is not in `now`'s year there (or `now` is not given); '?' for None.
    """
    if at is None:
        return "?"
    local = reader.local(at)
    this_year = now is not None and reader.local(now).year == local.year
    day = (
        fmt_day(local.date(), reader.locale) if this_year else fmt_date(local.date(), reader.locale)
    )
    zone = zone_name(local.tzinfo, reader.locale, local)
    return say("time.at", reader.locale, day=day, time=f"{local:%H:%M}", zone=zone)
