"""The few words the agent writes itself, in English and Chinese."""

from __future__ import annotations

from datetime import date

_WEEKDAYS_EN = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_WEEKDAYS_ZH = ("周一", "周二", "周三", "周四", "周五", "周六", "周日")


def t(locale: str, en: str, zh: str) -> str:
    """Pick the sentence for the locale."""
    return zh if locale == "zh" else en


def fmt_date(d: date, locale: str) -> str:
    """'Thu 3 Dec 2026' or '2026年12月3日（周四）'."""
    if locale == "zh":
        return f"{d.year}年{d.month}月{d.day}日（{_WEEKDAYS_ZH[d.weekday()]}）"
    return f"{_WEEKDAYS_EN[d.weekday()]} {d.day} {d:%b %Y}"


def fmt_range(start: date, end: date, start_half: bool, end_half: bool, locale: str) -> str:
    """A leave's dates as a person reads them, with half days spelled out."""
    first = fmt_date(start, locale) + (t(locale, " (afternoon)", "下午") if start_half else "")
    if start == end:
        if end_half:
            first += t(locale, " (morning)", "上午")
        return first
    last = fmt_date(end, locale) + (t(locale, " (morning)", "上午") if end_half else "")
    return first + t(locale, " – ", " 至 ") + last


def detect_locale(text: str, default: str = "en") -> str:
    """Chinese when the text has any CJK character, else English; `default` for empty text."""
    if not text.strip():
        return default
    return "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in text) else "en"


def fmt_days(days: float, locale: str) -> str:
    n = f"{days:g}"
    return t(locale, f"{n} working day" + ("" if days == 1 else "s"), f"{n} 个工作日")
