"""Date expressions in English and Chinese, resolved by code against a given `today`.

The model never does date arithmetic: tools and the offline planner call these functions with
today's date in the user's timezone. A small hand-written grammar, deterministic, no
dateparser. What it reads:

- absolute: `2026-12-03`, `2026/12/3`, `2026年12月3日`, `Dec 3`, `3 December`, `December 3rd`,
  `Dec 3, 2027`, `12月3日`, `12月3号`, `十二月三日`, `12.24` (month.day, as written in China;
  never when a unit or currency follows, so `1.5天` and `12.50 GBP` stay numbers);
- day of month alone: `3号`, `3日`, `the 3rd` (this month, or the next month that has it);
- relative: today, tomorrow, the day after tomorrow, yesterday, tonight, 今天, 明天, 后天,
  大后天, 昨天, 前天;
- weekdays: `Friday` / `周五` / `星期五` / `礼拜五` (the coming one, today included),
  `this Friday` (same), `next Friday` / `下周五` / `Friday next week` (that day of next
  week), `last Friday` / `上周五`, `这周五` / `本周五` (that day of this week, Monday-based);
- weeks: `next week` / `下周` (Monday–Friday of next week), `this week` / `这周`;
- ranges: `Dec 21-23`, `21-23 Dec`, `21-23号`, and two dates joined by to / until / through /
  and / - / ~ / 到 / 至 / 和 / 、 (`next Monday to Wednesday`, `下周一到周三`,
  `Dec 21 - Jan 4`, `tomorrow and Tuesday`, `明天和后天`, and Chinese dates side by side:
  `周四周五`); a date and `the day after (that)` / `the following day` / `次日` / `第二天`;
- half days: a date followed by morning / afternoon / am / pm / 上午 / 下午.

Dates without a year are the next occurrence on or after today (a day already past this year
means next year) — the direction of leave and trips, which are asked for ahead. With
`past=True` (a form field marked `past`, such as the day money was spent) they are the nearest
occurrence on or before today instead: "1 Dec" written on 2 Dec is this 1 December. In a range, an end written without its own anchor (`Wednesday`, `3日`,
`Jan 4`) is read relative to the start, so `Dec 21 - Jan 4` ends in the next year.

Slash dates without a year are read only when unambiguous: `12/25` is 25 December and `25/12`
is 25 December, but `12/3` could be 3 December (US, China) or 12 March (UK), so it is refused
with a message asking for `2026-12-03` or `Dec 3`. `2026/12/3` (year first) is always read.
"""

from __future__ import annotations

import calendar
import contextlib
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Literal

__all__ = [
    "DateMention",
    "DateParseError",
    "DateRange",
    "Half",
    "cn_number",
    "duration_spans",
    "find_dates",
    "find_range",
    "parse_days",
    "resolve_date",
]

Half = Literal["am", "pm"]

_EXAMPLES = "write it like 2026-12-03, 'tomorrow' or 'next Monday'"


class DateParseError(ValueError):
    """A date expression that could not be read; the message says how to write it instead."""

    def __init__(self, message: str, text: str = "") -> None:
        super().__init__(message)
        self.text = text


@dataclass(frozen=True)
class DateMention:
    """One date expression found in free text.

    `span` indexes the original text. `last` is set when the expression covers several days
    (`next week`, `Dec 21-23`). `half` is "am" or "pm" when a morning or afternoon follows the
    date. `floating` marks expressions read as "the next one" (a bare weekday, a day without
    month or year) which a range reads relative to its start instead of today.
    """

    text: str
    span: tuple[int, int]
    day: date
    last: date | None = None
    half: Half | None = None
    floating: bool = False


@dataclass(frozen=True)
class DateRange:
    """A first and last day, both inclusive.

    `start_half` means the first day is taken from noon (the afternoon only); `end_half` means
    the last day ends at noon (the morning only). `span` is the part of the text it came from.
    """

    start: date
    end: date
    start_half: bool = False
    end_half: bool = False
    span: tuple[int, int] = (0, 0)
    # The days were listed ("tomorrow and Tuesday", "明天和下周二"), not joined as from-to:
    # `days` holds each one, and whether the days between are meant is the reader's question.
    days: tuple[date, ...] = ()


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


def resolve_date(text: str, today: date, *, past: bool = False) -> date:
    """The date that `text` names, all of it being one date expression (`past`: see the module).

    A half-day suffix ("Friday afternoon") is accepted and ignored, and so is a weekday in
    front of a date when it agrees with it ("Thu 2026-12-03", "Thursday, December 3");
    ranges are refused.

    Raises:
        DateParseError: `text` is not one date, or names a day that does not exist.
    """
    raw = text if isinstance(text, str) else ""
    stripped = _TRAILING_PUNCT.sub("", raw.strip())
    if not stripped:
        raise DateParseError(f"Please give a date; {_EXAMPLES}.", raw)
    try:
        return date.fromisoformat(stripped)
    except ValueError:
        pass
    with contextlib.suppress(ValueError):
        return datetime.fromisoformat(stripped).date()
    items = _scan(stripped, today, past)
    for item in items:
        if _LEADING_FILLER.fullmatch(stripped[: item.span[0]]):
            return _only_date(item, stripped[item.span[1] :], stripped, raw)
    raise DateParseError(f"I could not read '{stripped}' as a date; {_EXAMPLES}.", raw)


def _only_date(item: _Found | _Invalid, after: str, stripped: str, raw: str) -> date:
    """The day of a mention that must be the whole text (nothing after it), or why not."""
    if after.strip():
        raise DateParseError(f"I could not read '{stripped}' as a date; {_EXAMPLES}.", raw)
    if isinstance(item, _Invalid):
        raise DateParseError(item.message, raw)
    if item.last is not None and item.last != item.day and not item.is_week:
        raise DateParseError(
            f"'{stripped}' is a range of days, not one date; give the first day, like 2026-12-03.",
            raw,
        )
    return item.day


def find_dates(text: str, today: date, *, past: bool = False) -> list[DateMention]:
    """Every readable date expression in `text`, in order; impossible dates are left out."""
    return list(_found(text, today, past))


@functools.lru_cache(maxsize=256)
def _found(text: str, today: date, past: bool) -> tuple[DateMention, ...]:
    # one message is read for its dates four times a turn (its range, its reason, whether it
    # is a counter-proposal, its slots): the scan was ~3% of a runner's CPU a turn
    return tuple(
        item.mention(text) for item in _scan(text, today, past) if isinstance(item, _Found)
    )


def find_range(text: str, today: date, *, past: bool = False) -> DateRange | None:
    """The days `text` asks for: a range, a week, or one day (start == end); None if no date.

    Dates joined by a connector (to, until, -, and, 到, 和, 、 …) make one range from the first
    to the last; otherwise the first date alone is the answer. A single "Friday afternoon" is
    start == end with start_half; "周五上午" is start == end with end_half.
    """
    mentions = find_dates(text, today, past=past)
    if not mentions:
        return None
    chain = [mentions[0]]
    listed = True
    for mention in mentions[1:]:
        gap = text[chain[-1].span[1] : mention.span[0]]
        # "周四周五", "明天 后天": Chinese runs dates together without a word between them.
        adjacent = not gap.strip() and _CJK.search(chain[-1].text) and _CJK.search(mention.text)
        if not (_CONNECTOR.fullmatch(gap) or adjacent):
            break
        listed = listed and not _RANGE_WORD.search(gap)
        chain.append(mention)
    first, last = chain[0], chain[-1]
    start = first.day
    if len(chain) > 1 and last.floating:
        anchored = find_dates(last.text, start)
        if anchored:
            last = DateMention(
                text=last.text,
                span=last.span,
                day=anchored[0].day,
                last=anchored[0].last,
                half=last.half,
                floating=True,
            )
    if after := _DAY_AFTER.match(text, last.span[1]):
        # "tomorrow and the day after": the day after is the one after the date just named
        last = DateMention(
            text=after.group("day"),
            span=after.span("day"),
            day=(last.last or last.day) + timedelta(days=1),
        )
        chain.append(last)
    end = last.last or last.day
    days: tuple[date, ...] = ()
    if len(chain) > 1 and listed and all(m.last is None for m in chain):
        days = tuple(sorted({m.day for m in chain[:-1]} | {last.day}))
    return DateRange(
        start=start,
        end=end,
        start_half=first.half == "pm",
        end_half=last.half == "am",
        span=(first.span[0], last.span[1]),
        days=days,
    )


def weekday_alone(text: str) -> bool:
    """Whether `text` is only a weekday ("Tue", "Thursday", "周二"): a day of some week, not a date."""
    return bool(_WEEKDAY_ONLY.fullmatch(_TRAILING_PUNCT.sub("", text.strip())))


def parse_days(text: str) -> float | None:
    """The duration in days that `text` gives ("3 days", "两天", "半天", "1.5 days"); None if none.

    A week counts as 5 working days. Only the first duration in the text is read.
    """
    norm = _normalize(text)
    best: tuple[int, float] | None = None
    for pattern, value in _DURATIONS:
        for match in pattern.finditer(norm):
            number = value(match)
            if number is None or number <= 0:
                continue
            if best is None or match.start() < best[0]:
                best = (match.start(), number)
            break
    return None if best is None else float(best[1])


def duration_spans(text: str) -> list[tuple[int, int]]:
    """Where `text` states a duration ("3 days", "两天"), for callers that strip it out."""
    norm = _normalize(text)
    spans = [
        match.span()
        for pattern, value in _DURATIONS
        for match in pattern.finditer(norm)
        if value(match)
    ]
    return sorted(spans)


# ---------------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Found:
    span: tuple[int, int]
    day: date
    last: date | None = None
    half: Half | None = None
    floating: bool = False
    is_week: bool = False

    def mention(self, text: str) -> DateMention:
        return DateMention(
            text=text[self.span[0] : self.span[1]],
            span=self.span,
            day=self.day,
            last=self.last,
            half=self.half,
            floating=self.floating,
        )


@dataclass(frozen=True)
class _Invalid:
    span: tuple[int, int]
    message: str
    last: None = None
    is_week: bool = False


class _Bad(Exception):
    """A recognised expression naming a day that does not exist."""


@dataclass(frozen=True)
class _Value:
    day: date
    last: date | None = None
    floating: bool = False
    is_week: bool = False
    half: Half | None = None


_Builder = Callable[[re.Match[str], date], _Value]


def _scan(text: str, today: date, past: bool = False) -> list[_Found | _Invalid]:
    """Non-overlapping date expressions, earliest first, the longest where two start together."""
    norm = _normalize(text)
    candidates: list[tuple[int, int, int, _Found | _Invalid]] = []
    for order, (pattern, build) in enumerate(_RULES):
        for match in pattern.finditer(norm):
            start, end = match.span()
            half: Half | None = None
            suffix = _HALF_SUFFIX.match(norm, end)
            if suffix:
                half = _HALVES.get(suffix.group("half").lower().replace(".", ""))
                end = suffix.end()
            elif prefix := _HALF_PREFIX.search(norm, 0, start):
                half = _HALVES[prefix.group("half").lower()]
                start = prefix.start()
            item: _Found | _Invalid
            try:
                value = _built(build, match, today, past)
            except _Bad as bad:
                item = _Invalid((start, end), str(bad))
            except (KeyError, ValueError, OverflowError):
                # a day past the calendar's end (year 9999) or a word the rules half-matched
                item = _Invalid(
                    (start, end), f"I could not read '{match.group(0)}' as a date; {_EXAMPLES}."
                )
            else:
                item = _Found(
                    (start, end),
                    value.day,
                    value.last,
                    half or value.half,
                    value.floating,
                    value.is_week,
                )
            candidates.append((start, -(end - start), order, item))
    candidates.sort(key=lambda c: (c[0], c[1], c[2]))
    chosen: list[tuple[_Found | _Invalid, _Builder]] = []
    position = 0
    for start, _, order, item in candidates:
        if start >= position:
            chosen.append((item, _RULES[order][1]))
            position = item.span[1]
    return _with_weekdays_joined(norm, chosen)


def _built(build: _Builder, match: re.Match[str], today: date, past: bool) -> _Value:
    """What `build` reads; with `past`, a floating day after today becomes its nearest past one.

    Each builder reads "the next one on or after" its anchor, so reading again from the start
    of the week, month(s) or year that ends today gives the latest occurrence not after today.
    """
    value = build(match, today)
    if not past or not value.floating or value.day <= today:
        return value
    for anchor in (today - timedelta(days=6), *(_window_start(today, n) for n in (1, 2, 12))):
        earlier = build(match, anchor)
        if earlier.day <= today:
            return earlier
    return value  # no occurrence in the past year (29 Feb): the engine refuses a future day


def _window_start(today: date, months: int) -> date:
    """The first day of the `months` months that end today (1 month back from 2 Dec: 3 Nov)."""
    year, month = divmod(today.year * 12 + today.month - 1 - months, 12)
    day = min(today.day, calendar.monthrange(year, month + 1)[1])
    return date(year, month + 1, day) + timedelta(days=1)


def _with_weekdays_joined(
    norm: str, chosen: list[tuple[_Found | _Invalid, _Builder]]
) -> list[_Found | _Invalid]:
    """A weekday written beside a date ("Thursday 10 Dec", "12月10日（周四）") is one mention.

    The date decides the day: read apart, the weekday became "the coming Thursday" and the
    request went in for the wrong week. A weekday that does not fall on that date is a
    contradiction the person must settle, so the pair is read as no date at all.
    """
    out: list[_Found | _Invalid] = []
    i = 0
    while i < len(chosen):
        joined = _pair(norm, chosen[i], chosen[i + 1]) if i + 1 < len(chosen) else None
        out.append(chosen[i][0] if joined is None else joined)
        i += 1 if joined is None else 2
    return out


def _pair(
    norm: str,
    first: tuple[_Found | _Invalid, _Builder],
    second: tuple[_Found | _Invalid, _Builder],
) -> _Found | _Invalid | None:
    """The two neighbours read as one mention if they are a weekday and its date, else None."""
    (item, build), (other, other_build) = first, second
    gap = norm[item.span[1] : other.span[0]]
    if (
        build in _WEEKDAY_BUILDS
        and other_build in _DAY_BUILDS
        and _WEEKDAY_FIRST_GAP.fullmatch(gap)
    ):
        return _joined(item, other, (item.span[0], other.span[1]), norm)
    if build in _DAY_BUILDS and other_build in _WEEKDAY_BUILDS and _DATE_FIRST_GAP.fullmatch(gap):
        close = _CLOSING.match(norm, other.span[1])
        end = close.end() if close else other.span[1]
        # a half day after the pair ("12月4日（周五）下午", "Thu 3 Dec afternoon") is the date's:
        # the weekday took it, or it follows the bracket the weekday was in
        suffix = _HALF_SUFFIX.match(norm, end) if close else None
        half = _HALVES.get(suffix.group("half").lower()) if suffix else other.half
        joined = _joined(other, item, (item.span[0], suffix.end() if suffix else end), norm)
        if isinstance(joined, _Found) and joined.half is None and half is not None:
            return replace(joined, half=half)
        return joined
    return None


def _joined(
    weekday: _Found | _Invalid, day: _Found | _Invalid, span: tuple[int, int], norm: str
) -> _Found | _Invalid:
    if isinstance(day, _Invalid) or day.last is not None:
        return day if isinstance(day, _Invalid) else replace(day, span=span)
    if isinstance(weekday, _Found) and weekday.day.weekday() == day.day.weekday():
        return replace(day, span=span)
    shown, iso = norm[span[0] : span[1]], day.day.isoformat()
    return _Invalid(
        span,
        f"'{shown}' does not add up: {iso} is a {calendar.day_name[day.day.weekday()]}; "
        f"give just the date, like {iso}.",
    )


# Full-width digits, letters and punctuation to ASCII, one character for one (spans stay valid).
# Also the letters a case-insensitive match takes for ASCII ones (long s, dotless i, Kelvin
# sign), so a rule never matches a word its lookup tables do not hold.
_FULLWIDTH = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {
    0x3000: 0x20,
    0x017F: ord("s"),
    0x0131: ord("i"),
    0x212A: ord("k"),
}


def _normalize(text: str) -> str:
    return text.translate(_FULLWIDTH)


_LEADING_FILLER = re.compile(
    r"\s*(?:(?:on|from|starting|until|till|to|从|在|到)\s*)?", re.IGNORECASE
)
_TRAILING_PUNCT = re.compile(r"[\s.,;!?。，；！？]+$")

_HALF_SUFFIX = re.compile(
    r"\s*(?:in\s+the\s+)?(?P<half>morning|afternoon|a\.?m\.?(?![a-z])|p\.?m\.?(?![a-z])"
    r"|上午|下午|早上|中午|晚上)",
    re.IGNORECASE,
)
_HALVES: dict[str, Half | None] = {
    "morning": "am",
    "am": "am",
    "afternoon": "pm",
    "pm": "pm",
    "上午": "am",
    "早上": "am",
    "下午": "pm",
    "中午": None,
    "晚上": None,
}

_CJK = re.compile(r"[\u4e00-\u9fff]")
_CONNECTOR = re.compile(
    r"\s*(?:开始|起)?\s*,?\s*(?:(?:up\s+)?to|until|till|til|through|thru|and|or|n(?=\s)|&|-|–|—|~|"
    r"一直到|直到|到|至|和|跟|与|及|或者|或|还有|、|,)\s*(?:the\s+|on\s+|下午|上午)?\s*",
    re.IGNORECASE,
)
# "… and the day after (that)", "… 及次日": the day after the date just named, written without one.
_DAY_AFTER = re.compile(
    r"\s*,?\s*(?:and|&|plus|\+|以及|和|及|跟|与|还有)\s*(?:also\s+)?"
    r"(?P<day>the\s+(?:day\s+after(?!\s+tomorrow)(?:\s+that)?|following\s+day|next\s+day)"
    r"(?![A-Za-z])|第二天|次日|后一天)",
    re.IGNORECASE,
)
# Connectors that make a from-to range rather than a list of days.
_RANGE_WORD = re.compile(
    r"\b(?:to|until|till|til|through|thru)\b|[-–—~]|一直到|直到|到|至", re.IGNORECASE
)
# "the morning of the 10th": a half day written before its date.
_HALF_PREFIX = re.compile(
    r"(?:\b(?:in\s+)?the\s+)?\b(?P<half>morning|afternoon)\s+of\s+$", re.IGNORECASE
)


# --- numbers -----------------------------------------------------------------------------------

_CN_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6}
_CN_DIGITS |= {"七": 7, "八": 8, "九": 9}
_CN_NUM = "[零〇一二两三四五六七八九十]+"

_EN_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
_EN_NUMBERS |= {"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13}
_EN_NUMBERS |= {"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18}
_EN_NUMBERS |= {"nineteen": 19, "twenty": 20, "thirty": 30}
_EN_NUM = "|".join(sorted(_EN_NUMBERS, key=len, reverse=True))


def cn_number(text: str) -> int | None:
    """An integer written in digits or Chinese numerals up to 99 ("十五", "二十", "3"); else None."""
    text = _normalize(text).strip()
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _CN_DIGITS and ch != "十" for ch in text):
        return None
    if "十" not in text:
        return _CN_DIGITS[text] if len(text) == 1 else None
    tens, _, units = text.partition("十")
    if len(tens) > 1 or len(units) > 1:
        return None
    return (_CN_DIGITS[tens] if tens else 1) * 10 + (_CN_DIGITS[units] if units else 0)


def _number(text: str) -> int:
    value = cn_number(text)
    if value is None:
        raise _Bad(f"I could not read '{text}' as a number.")
    return value


# --- date helpers ------------------------------------------------------------------------------


def _make(year: int, month: int, day: int, shown: str) -> date:
    try:
        return date(year, month, day)
    except ValueError:
        raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.") from None


def _next_month_day(today: date, month: int, day: int, shown: str) -> date:
    """The next `month`/`day` on or after today."""
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.")
    for year in range(today.year, today.year + 9):
        try:
            candidate = date(year, month, day)
        except ValueError:
            continue
        if candidate >= today:
            return candidate
    raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.")


def _next_day_of_month(today: date, day: int, shown: str, month_offset: int = 0) -> date:
    """Day `day` of this month, or of the next month that has it if already past."""
    if not 1 <= day <= 31:
        raise _Bad(f"'{shown}' is not a day of the month; {_EXAMPLES}.")
    year, month = today.year, today.month
    for step in range(13):
        y, m = divmod(month - 1 + month_offset + step, 12)
        y, m = year + y, m + 1
        if day <= calendar.monthrange(y, m)[1]:
            candidate = date(y, m, day)
            if candidate >= today or month_offset:
                return candidate
        if month_offset:
            raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.")
    raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.")  # pragma: no cover


def _monday(today: date, weeks: int = 0) -> date:
    return today - timedelta(days=today.weekday()) + timedelta(weeks=weeks)


def _coming(today: date, weekday: int) -> date:
    return today + timedelta(days=(weekday - today.weekday()) % 7)


# --- rules -------------------------------------------------------------------------------------

_MONTHS = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8}
_MONTHS |= {"sep": 9, "oct": 10, "nov": 11, "dec": 12}
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s*(?P<year>20\d{2})(?!\d))?"

_WEEKDAYS_EN = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
_WEEKDAY_EN = (
    r"(?:mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?|fri(?:day)?|"
    r"saturday|sunday)"
)
_WEEKDAY_ONLY = re.compile(
    rf"{_WEEKDAY_EN}\.?|(?:周|星期|礼拜)[一二三四五六日天七1-7]", re.IGNORECASE
)
_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6, "七": 6}
_WEEKDAYS_ZH |= {str(n): n - 1 for n in range(1, 8)}
_WEEK_ZH = r"(?:周|星期|礼拜)"
_WEEKS_ZH = {"下下": 2, "下": 1, "这": 0, "本": 0, "上": -1}


def _month_of(word: str) -> int:
    return _MONTHS[word.lower()[:3]]


def _with_year(match: re.Match[str], today: date, month: int, day: int) -> _Value:
    shown = match.group(0).strip()
    if match.group("year"):
        return _Value(_make(int(match.group("year")), month, day, shown))
    return _Value(_next_month_day(today, month, day, shown), floating=True)


def _iso(match: re.Match[str], today: date) -> _Value:
    y, m, d = (int(match.group(i)) for i in (1, 2, 3))
    return _Value(_make(y, m, d, match.group(0)))


def _zh_month_day(match: re.Match[str], today: date) -> _Value:
    month, day = _number(match.group("month")), _number(match.group("day"))
    year = match.group("year")
    if year:
        digits = "".join(str(_CN_DIGITS.get(ch, ch)) for ch in year)
        return _Value(_make(int(digits), month, day, match.group(0)))
    return _Value(_next_month_day(today, month, day, match.group(0)), floating=True)


def _zh_month_offset_day(match: re.Match[str], today: date) -> _Value:
    offset = 1 if match.group("which").startswith("下") else 0
    day = _number(match.group("day"))
    return _Value(_next_day_of_month(today, day, match.group(0), month_offset=offset))


def _day_only(match: re.Match[str], today: date) -> _Value:
    day = _number(match.group("day"))
    return _Value(_next_day_of_month(today, day, match.group(0).strip()), floating=True)


def _day_range(match: re.Match[str], today: date) -> _Value:
    first, last = _number(match.group("d1")), _number(match.group("d2"))
    shown = match.group(0).strip()
    start = _next_day_of_month(today, first, shown)
    end = _next_day_of_month(start, last, shown)
    return _Value(start, end, floating=True)


def _en_month_day(match: re.Match[str], today: date) -> _Value:
    return _with_year(match, today, _month_of(match.group("month")), int(match.group("day")))


def _en_month_day_range(match: re.Match[str], today: date) -> _Value:
    month = _month_of(match.group("month"))
    shown = match.group(0).strip()
    first, last = int(match.group("d1")), int(match.group("d2"))
    if match.group("year"):
        start = _make(int(match.group("year")), month, first, shown)
        return _Value(start, _make(start.year, month, last, shown))
    start = _next_month_day(today, month, first, shown)
    return _Value(start, _next_month_day(start, month, last, shown), floating=True)


def _slash(match: re.Match[str], today: date) -> _Value:
    a, b = int(match.group("a")), int(match.group("b"))
    shown = match.group(0)
    if a > 12 and b <= 12:
        month, day = b, a
    elif b > 12 and a <= 12:
        month, day = a, b
    elif a <= 12 and b <= 12:
        raise _Bad(
            f"'{shown}' could mean {_en_day(b, a)} or {_en_day(a, b)}; "
            f"write it like 2026-{a:02d}-{b:02d} or '{calendar.month_abbr[a]} {b}'."
        )
    else:
        raise _Bad(f"'{shown}' is not a real date; {_EXAMPLES}.")
    if match.group("year"):
        return _Value(_make(int(match.group("year")), month, day, shown))
    return _Value(_next_month_day(today, month, day, shown), floating=True)


def _dotted(match: re.Match[str], today: date) -> _Value:
    month, day = int(match.group("m")), int(match.group("d"))
    return _Value(_next_month_day(today, month, day, match.group(0)), floating=True)


def _en_day(day: int, month: int) -> str:
    return f"{day} {calendar.month_name[month]}"


def _relative(match: re.Match[str], today: date) -> _Value:
    word = re.sub(r"\s+", " ", match.group(0).lower())
    half: Half | None = {"this morning": "am", "this afternoon": "pm"}.get(word)  # type: ignore[assignment]
    return _Value(today + timedelta(days=_RELATIVE[word]), half=half)


# Days from today, for each relative word (English lower-cased, whitespace collapsed).
_RELATIVE = {
    word: offset
    for offset, words in (
        (-3, "大前天"),
        (-2, "the day before yesterday|前天"),
        (-1, "yesterday|昨天|昨日"),
        (0, "today|tonight|this morning|this afternoon|今天|今日|今儿"),
        (1, "tomorrow|tomorow|tmr|tmrw|明天|明日|明儿"),
        (2, "the day after tomorrow|day after tomorrow|后天"),
        (3, "大后天"),
    )
    for word in words.split("|")
}


def _en_weekday(match: re.Match[str], today: date) -> _Value:
    weekday = _WEEKDAYS_EN[match.group("wd").lower()[:3]]
    modifier = (match.group("mod") or "").lower().split()
    week = (match.group("week") or "").lower()
    if week:
        weeks = 1 if week == "next" else 0
        return _Value(_monday(today, weeks) + timedelta(days=weekday))
    if modifier and modifier[0] == "next":
        return _Value(_monday(today, 1) + timedelta(days=weekday))
    if modifier and modifier[0] == "last":
        return _Value(_monday(today, -1) + timedelta(days=weekday))
    return _Value(_coming(today, weekday), floating=not modifier)


def _zh_weekday(match: re.Match[str], today: date) -> _Value:
    weekday = _WEEKDAYS_ZH[match.group("wd")]
    which = match.group("which")
    if which is None:
        return _Value(_coming(today, weekday), floating=True)
    return _Value(_monday(today, _WEEKS_ZH[which]) + timedelta(days=weekday))


def _week(weeks: int, today: date) -> _Value:
    monday = _monday(today, weeks)
    start = max(monday, today) if weeks == 0 else monday
    friday = monday + timedelta(days=4)
    if start > friday:
        start = monday
    return _Value(start, friday, is_week=True)


def _en_week(match: re.Match[str], today: date) -> _Value:
    words = match.group(0).lower()
    if "after" in words:
        return _week(2, today)
    if words.startswith("next"):
        return _week(1, today)
    if words.startswith("last"):
        return _week(-1, today)
    return _week(0, today)


def _zh_week(match: re.Match[str], today: date) -> _Value:
    return _week(_WEEKS_ZH[match.group("which")], today)


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_RULES: list[tuple[re.Pattern[str], _Builder]] = [
    (_compile(r"(?<![\d.])(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?![\d.])"), _iso),
    (
        _compile(
            r"(?:(?P<year>\d{4}|[〇零一二三四五六七八九]{4})\s*年\s*)?"
            rf"(?P<month>\d{{1,2}}|{_CN_NUM})\s*月\s*(?P<day>\d{{1,2}}|{_CN_NUM})\s*(?:日|号|號)?"
        ),
        _zh_month_day,
    ),
    (
        _compile(rf"(?P<which>下个?|这个?|本)月\s*(?P<day>\d{{1,2}}|{_CN_NUM})\s*(?:日|号|號)"),
        _zh_month_offset_day,
    ),
    (
        _compile(
            r"(?<![\d月第.])(?P<d1>\d{1,2})\s*(?:日|号)?\s*[-~–到至]\s*(?P<d2>\d{1,2})\s*(?:日|号|號)"
        ),
        _day_range,
    ),
    (_compile(r"(?<![\d月第./])(?P<day>\d{1,2})\s*(?:日|号|號)"), _day_only),
    (_compile(rf"(?<![月第零〇一二两三四五六七八九十])(?P<day>{_CN_NUM})(?:号|號)"), _day_only),
    (
        _compile(
            rf"\b(?P<month>{_MONTH})\.?\s+(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}\s*"
            rf"(?:-|–|—|to|until|till|through|thru)\s*(?:the\s+)?(?P<d2>\d{{1,2}}){_ORD}\b"
            rf"(?!\s*(?:of\s+)?{_MONTH}\b)(?!/){_YEAR}"
        ),
        _en_month_day_range,
    ),
    (
        _compile(
            rf"\b(?:the\s+)?(?P<d1>\d{{1,2}}){_ORD}\s*(?:-|–|—|to|until|till|through|thru)\s*"
            rf"(?:the\s+)?(?P<d2>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<month>{_MONTH})\b\.?{_YEAR}"
        ),
        _en_month_day_range,
    ),
    (
        _compile(
            rf"\b(?P<month>{_MONTH})\.?\s+(?:the\s+)?(?P<day>\d{{1,2}}){_ORD}\b(?![:.]\d){_YEAR}"
        ),
        _en_month_day,
    ),
    (
        _compile(
            rf"\b(?:the\s+)?(?P<day>\d{{1,2}}){_ORD}\s+(?:of\s+)?(?P<month>{_MONTH})\b\.?{_YEAR}"
        ),
        _en_month_day,
    ),
    (_compile(r"\b(?:the\s+)?(?P<day>\d{1,2})(?:st|nd|rd|th)\b"), _day_only),
    (
        _compile(
            r"(?<![A-Za-z\d.$£€¥￥])(?P<m>1[0-2]|0?[1-9])\.(?P<d>[0-3]?\d)(?![\d.])"
            r"(?!\s*(?:天|元|块|%|小时|days?\b|hours?\b|h\b|gbp|cny|usd|eur|rmb|pounds?|dollars?|euros?|yuan|k\b))"
        ),
        _dotted,
    ),
    (
        _compile(
            r"(?<![\d/.-])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<year>\d{4}))?(?![\d/])(?!\s*(?:天|days?\b))"
        ),
        _slash,
    ),
    (
        _compile(
            r"\b(?:the\s+day\s+(?:after\s+tomorrow|before\s+yesterday)|day\s+after\s+tomorrow|"
            r"today|tonight|tomorrow|tomorow|tmrw?|yesterday|this\s+morning|this\s+afternoon)\b"
            r"|大后天|大前天|今天|今日|今儿|明天|明日|明儿|后天|昨天|昨日|前天"
        ),
        _relative,
    ),
    (
        _compile(
            rf"\b(?:(?P<mod>this\s+coming|this|next|coming|last)\s+)?(?P<wd>{_WEEKDAY_EN})\b\.?"
            r"(?:\s+(?P<week>next|this)\s+week\b)?"
        ),
        _en_weekday,
    ),
    (
        _compile(
            rf"(?:(?P<which>下下|下|这|本|上)(?:个|一个)?)?{_WEEK_ZH}(?P<wd>[一二三四五六日天七1-7])"
        ),
        _zh_weekday,
    ),
    (
        _compile(r"\b(?:(?:the\s+)?week\s+after\s+next|next\s+week|this\s+week|last\s+week)\b"),
        _en_week,
    ),
    (
        _compile(
            rf"(?P<which>下下|下|这|本|上)(?:个|一个)?{_WEEK_ZH}(?![一二三四五六日天七1-7末])"
        ),
        _zh_week,
    ),
]


# Which rules read a weekday, and which a single day, for `_with_weekdays_joined`.
_WEEKDAY_BUILDS: frozenset[_Builder] = frozenset({_en_weekday, _zh_weekday})
_DAY_BUILDS: frozenset[_Builder] = frozenset(
    {_iso, _zh_month_day, _zh_month_offset_day, _day_only, _en_month_day, _dotted, _slash}
)
_WEEKDAY_FIRST_GAP = re.compile(r"\s*,?\s*(?:the\s+)?", re.IGNORECASE)
_DATE_FIRST_GAP = re.compile(r"\s*[,(]?\s*")
_CLOSING = re.compile(r"\s*\)")


# --- durations -----------------------------------------------------------------------------------


def _en_amount(word: str) -> float | None:
    word = word.lower()
    if word in ("a", "an", "one"):
        return 1
    if word in _EN_NUMBERS:
        return _EN_NUMBERS[word]
    try:
        return float(word)
    except ValueError:
        return None


def _en_days(match: re.Match[str]) -> float | None:
    amount = _en_amount(match.group("num"))
    if amount is None:
        return None
    if match.group("half"):
        amount += 0.5
    if match.group("unit").lower().startswith("week"):
        amount *= 5
    return amount


def _zh_amount(text: str) -> float | None:
    if text == "半":
        return 0.5
    try:
        return float(text)
    except ValueError:
        value = cn_number(text)
        return None if value is None else float(value)


def _zh_days(match: re.Match[str]) -> float | None:
    amount = _zh_amount(match.group("num"))
    if amount is None:
        return None
    if match.group("half"):
        amount += 0.5
    if match.group("unit") in ("周", "星期", "礼拜"):
        amount *= 5
    return amount


_DURATIONS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], float | None]]] = [
    (
        _compile(r"\b(?:a\s+)?half(?:\s+a)?[\s-]+days?\b|\ba\s+half[\s-]day\b"),
        lambda m: 0.5,
    ),
    (
        _compile(r"\b(?P<num>an?|one)\s+(?P<unit>day|week)\s+and\s+a\s+half\b"),
        lambda m: 1.5 if m.group("unit").lower() == "day" else 7.5,
    ),
    (
        _compile(
            rf"\b(?P<num>\d+(?:\.\d+)?|{_EN_NUM}|an?)(?P<half>\s+and\s+a\s+half)?[\s-]*"
            r"(?:full\s+|whole\s+)?(?:working\s+|work\s+|business\s+)?(?P<unit>days?|weeks?)\b"
            r"(?!\s+(?:after|before|ago)\b)"
        ),
        _en_days,
    ),
    (_compile(r"\ba\s+couple\s+(?:of\s+)?days\b"), lambda m: 2),
    (
        _compile(
            r"(?<![第零〇一二两三四五六七八九十百0-9.])(?P<num>\d+(?:\.\d+)?|半|[零一二两三四五六七八九十]+)"
            r"\s*(?:个)?\s*(?:整)?\s*(?P<unit>工作日|天|周|星期|礼拜)(?P<half>半)?"
            r"(?![一二三四五六日天七1-7])"
        ),
        _zh_days,
    ),
]
