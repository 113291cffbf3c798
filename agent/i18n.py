"""Dates, moments, date ranges, day counts and amounts of money as a person reads them; the
words come from the catalogue."""

from __future__ import annotations

import re
from datetime import date, datetime, tzinfo

from agent.catalogue import say

_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
_WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")
# ISO 4217 minor units where they are not 2: yen and won have no cents, dinars have three places
_NO_MINOR = ("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX")
_NO_MINOR += ("VND", "VUV", "XAF", "XOF", "XPF")
_THREE = ("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND")
_MINOR_UNITS = dict.fromkeys(_NO_MINOR, 0) | dict.fromkeys(_THREE, 3)


def names(text: str, name: str) -> bool:
    """`text` names `name` as a whole: '王芳' is not named by '王芳芳', nor 'Li' by 'Lina'. A name
    stands between a non-word character (a space, a bracket, punctuation) or the text's ends."""
    return bool(name) and re.search(rf"(?<!\w){re.escape(name)}(?!\w)", text) is not None


def fmt_date(d: date, locale: str, *, year: bool = True) -> str:
    """'Thu 3 Dec 2026' or '2026年12月3日 周四' (`year=False`: '12月3日 周四', Chinese only).

    The Chinese weekday follows the date after a space, as calendars write it, not in brackets:
    a date sits inside bracketed text often ("（至 12月9日 周三）", "共 1 个工作日" after it),
    and brackets inside brackets read as a typo.
    """
    if locale == "zh":
        day = f"{d.month}月{d.day}日 {_WEEKDAYS_ZH[d.weekday()]}"
        return f"{d.year}年{day}" if year else day
    return f"{_WEEKDAYS_EN[d.weekday()]} {d.day} {d:%b %Y}"


def fmt_day(d: date, locale: str) -> str:
    """'Wed 2 Dec' / '12月2日 周三': `fmt_date` without the year, in both languages (a day of
    this year, as a time on a card names it)."""
    if locale == "zh":
        return fmt_date(d, locale, year=False)
    return f"{_WEEKDAYS_EN[d.weekday()]} {d.day} {d:%b}"


def fmt_moment(local: datetime, locale: str, now: datetime | None = None) -> str:
    """'Wed 2 Dec, 17:33 (London time)' / '12月2日 周三 17:33（伦敦时间）': a moment in the zone
    it is given in, that zone named; the year named when not `now`'s (or `now` is not given).
    Its day is always named: what is read later must not say "today"."""
    # `now`'s year where the moment is: 31 Dec 23:00 in London is already next year in Shanghai
    this_year = now is not None and now.astimezone(local.tzinfo).year == local.year
    day = fmt_day(local.date(), locale) if this_year else fmt_date(local.date(), locale)
    zone = zone_name(local.tzinfo, locale, local)
    return say("time.at", locale, day=day, time=f"{local:%H:%M}", zone=zone)


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
    """'London time', 'New York time', '北京时间'; the UTC offset ('UTC+01:00', at `at`, else
    now) for a zone without a name, and in Chinese for a zone without a Chinese name: not
    "Madrid时间"."""
    key = getattr(zone, "key", None)
    if key in ("UTC", "Etc/UTC"):
        return "UTC"
    if key is None or (locale == "zh" and key not in _ZH_ZONES):
        when = at if at is not None and at.tzinfo is not None else None
        if when is None and zone is not None:
            when = datetime.now(zone)
        offset = when.astimezone(zone).strftime("%z") if when is not None else ""
        return f"UTC{offset[:3]}:{offset[3:]}" if offset and offset != "+0000" else "UTC"
    if locale == "zh":
        return _ZH_ZONES[key]
    city = key.rsplit("/", 1)[-1].replace("_", " ")
    return say("time.zone_city", locale, city=city)


def fmt_day_month(d: date, locale: str) -> str:
    """'31 Mar' / '3月31日': a day this year or next, where the year goes without saying."""
    if locale == "zh":
        return f"{d.month}月{d.day}日"
    return f"{d.day} {d:%b}"


def fmt_range(start: date, end: date, start_half: bool, end_half: bool, locale: str) -> str:
    """A leave's dates as a person reads them, with half days spelled out; in Chinese the last
    day of a range within one year leaves the year out ('2026年12月4日 周五 至 12月7日 周一')."""
    first = fmt_date(start, locale)
    if start_half:
        first = say("date.afternoon", locale, date=first)
    if start == end:
        return say("date.morning", locale, date=first) if end_half else first
    last = fmt_date(end, locale, year=start.year != end.year)
    if end_half:
        last = say("date.morning", locale, date=last)
    return say("date.range", locale, first=first, last=last)


def detect_locale(text: str, default: str = "en") -> str:
    """Chinese when the text has any CJK character, English when it has an English word;
    `default` for text in no language (empty, a number, a code such as "P-7")."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in text):
        return "zh"
    return "en" if _LATIN_WORD.search(text) else default


def in_sentence(text: str, locale: str) -> str:
    """A name (or a phrase it starts) as it reads inside an English sentence: a sentence-cased
    name drops its capital ("Sick leave, Thu 3 Dec" -> "sick leave, Thu 3 Dec"); an acronym
    ("PTO", "PO number") and Chinese stay as written."""
    if locale == "zh" or len(text) < 2 or not (text[0].isupper() and text[1].islower()):
        return text
    return text[0].lower() + text[1:]


def fmt_days(days: float, locale: str) -> str:
    """'1 working day', '2.5 working days' / '2.5 个工作日'."""
    return say("days.working.one" if days == 1 else "days.working", locale, n=f"{days:g}")


def fmt_amount(amount: float, currency: str | None, *, grouped: bool = True) -> str:
    """An amount with the currency's minor units and thousands grouped: '86.40' GBP,
    '1,200' JPY, '1,234,567.00' CNY (the code itself is the caller's to place); not grouped
    (`grouped=False`: '1234567.00'), a plain decimal a spreadsheet reads as a number.

    A value finer than the currency's units (never from our forms) keeps its digits, so what is
    shown is what was recorded.
    """
    places = _MINOR_UNITS.get((currency or "").upper(), 2)
    while places < 3 and round(amount, places) != amount:
        places += 1
    return f"{amount:,.{places}f}" if grouped else f"{amount:.{places}f}"
