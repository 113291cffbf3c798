"""Working-day arithmetic for leave requests: weekends, public holidays, make-up days, half days.

Built on `holidays`, which knows weekend make-up working days (China's 调休) too."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import MAXYEAR, MINYEAR, date, timedelta
from functools import lru_cache
from typing import Any

import holidays
from holidays.holiday_base import HolidayBase

__all__ = [
    "MAX_SPAN_DAYS",
    "CalendarError",
    "add_working_days",
    "holidays_between",
    "is_working_day",
    "next_working_day",
    "non_working_days_between",
    "working_days",
    "working_days_by_year",
]

# A longer range is a typo ("2062" for "2026"), not a leave; refuse it rather than walk it.
MAX_SPAN_DAYS = 3 * 366

_ONE_DAY = timedelta(days=1)

# The package wants a locale it ships; "en" and "zh" are what people and the engine ask for.
_PREFERRED_LOCALES = {"en": ("en_US", "en_GB"), "zh": ("zh_CN",)}

# Listing every subdivision of a large country would drown the message in codes.
_MAX_LISTED_SUBDIVISIONS = 12


class CalendarError(ValueError):
    """A date range, day count, country or subdivision the calendar cannot work with.

    The message is for a person and says what to change."""


# ---------------------------------------------------------------------------------------------
# Public API
# ---------------------------------------------------------------------------------------------


@lru_cache(maxsize=16_384)
def is_working_day(day: date, country: str, subdivision: str | None = None) -> bool:
    """Whether `day` is a working day: not a weekend or public holiday, or a make-up working day.

    Cached: every reminder and escalation time walks a few days of the holder's calendar."""
    code, subdiv = _place(country, subdivision)
    _check_year(code, day)
    return _is_working(day, code, subdiv)


def working_days(
    start: date,
    end: date,
    country: str,
    subdivision: str | None = None,
    *,
    start_pm: bool = False,
    end_am: bool = False,
) -> float:
    """Working days in [start, end], inclusive, in multiples of 0.5; 0.0 if none fall in it.

    `start_pm` takes the first day from noon only, `end_am` the last day until noon only."""
    halves = _half_days_by_year(start, end, country, subdivision, start_pm, end_am)
    return sum(halves.values()) / 2


def working_days_by_year(
    start: date,
    end: date,
    country: str,
    subdivision: str | None = None,
    *,
    start_pm: bool = False,
    end_am: bool = False,
) -> dict[int, float]:
    """The `working_days` total split per calendar year; only years with more than 0 days appear.

    A leave over New Year draws on two years' balances."""
    halves = _half_days_by_year(start, end, country, subdivision, start_pm, end_am)
    return {year: n / 2 for year, n in halves.items() if n > 0}


def add_working_days(
    first_day: date, count: float, country: str, subdivision: str | None = None
) -> tuple[date, date, bool]:
    """(start, end, end_am) for `count` working days from the first working day >= `first_day`.

    For an x.5 count the last day is only a morning, so end_am is True."""
    if isinstance(count, bool) or not isinstance(count, int | float) or not math.isfinite(count):
        raise CalendarError(f"The number of working days must be a number, not {count!r}.")
    if count < 0.5 or count * 2 != int(count * 2):
        raise CalendarError(
            f"The number of working days must be at least 0.5 and a multiple of 0.5, not {count:g}."
        )
    code, subdiv = _place(country, subdivision)
    start = _next_working(first_day, code, subdiv)
    # A trailing half day still occupies a whole calendar day, so look for ceil(count) days.
    wanted = math.ceil(count)
    end = start
    found = 1
    while found < wanted:
        end = _step(end, start, code)
        if _is_working(end, code, subdiv):
            found += 1
    return start, end, count != wanted


def next_working_day(day: date, country: str, subdivision: str | None = None) -> date:
    """The first working day on or after `day`."""
    code, subdiv = _place(country, subdivision)
    return _next_working(day, code, subdiv)


def holidays_between(
    start: date,
    end: date,
    country: str,
    subdivision: str | None = None,
    language: str = "en",
) -> list[tuple[date, str]]:
    """Public holidays in [start, end] with their names, in date order.

    `language` is "en" or "zh" (or a shipped locale such as "zh_TW"), else the country's default."""
    code, subdiv = _place(country, subdivision)
    _check_range(start, end, code)
    locale = _locale(code, language)
    found: list[tuple[date, str]] = []
    for year in range(start.year, end.year + 1):
        calendar = _calendar(code, subdiv, year, locale)
        # Each year's calendar also holds its neighbours; keep only its own year to avoid repeats.
        found.extend(
            (day, name)
            for day, name in calendar.items()
            if day.year == year and start <= day <= end
        )
    return sorted(found)


def non_working_days_between(
    start: date, end: date, country: str, subdivision: str | None = None
) -> list[date]:
    """Weekend days and public holidays in [start, end] that are not working days, in order."""
    code, subdiv = _place(country, subdivision)
    _check_range(start, end, code)
    return [day for day in _days(start, end) if not _is_working(day, code, subdiv)]


# ---------------------------------------------------------------------------------------------
# Internals
# ---------------------------------------------------------------------------------------------


def _half_days_by_year(
    start: date,
    end: date,
    country: str,
    subdivision: str | None,
    start_pm: bool,
    end_am: bool,
) -> dict[int, int]:
    """Half-days taken per year; whole numbers so that sums never drift."""
    code, subdiv = _place(country, subdivision)
    _check_range(start, end, code)
    if start == end and start_pm and end_am:
        raise CalendarError(
            f"Leave on {start.isoformat()} from noon until noon of the same day leaves no "
            "time off; choose the morning, the afternoon or the whole day."
        )
    halves: dict[int, int] = {}
    for day in _days(start, end):
        if not _is_working(day, code, subdiv):
            continue
        taken = 2
        if (day == start and start_pm) or (day == end and end_am):
            taken = 1
        halves[day.year] = halves.get(day.year, 0) + taken
    return halves


def _next_working(day: date, code: str, subdiv: str | None) -> date:
    """First working day on or after `day`, for an already validated place."""
    _check_year(code, day)
    current = day
    while not _is_working(current, code, subdiv):
        current = _step(current, day, code)
    return current


def _step(day: date, origin: date, code: str) -> date:
    """The day after `day`, refusing to wander more than MAX_SPAN_DAYS from `origin`."""
    following = day + _ONE_DAY
    if (following - origin).days >= MAX_SPAN_DAYS:
        raise CalendarError(
            f"Counting working days from {origin.isoformat()} runs more than "
            f"{MAX_SPAN_DAYS // 366} years ahead; ask for fewer days."
        )
    if following.year != day.year:
        _check_year(code, following)
    return following


def _days(start: date, end: date) -> Iterator[date]:
    """Every calendar day in [start, end]."""
    for offset in range((end - start).days + 1):
        yield start + timedelta(days=offset)


def _is_working(day: date, code: str, subdiv: str | None) -> bool:
    """Working-day status from the cached calendar that covers `day`'s year."""
    return _calendar(code, subdiv, day.year, _locale(code, "en")).is_working_day(day)


def _check_range(start: date, end: date, code: str) -> None:
    """Refuse reversed or absurdly long ranges and years the package has no data for."""
    if end < start:
        raise CalendarError(
            f"The end date {end.isoformat()} is before the start date {start.isoformat()}."
        )
    if (end - start).days >= MAX_SPAN_DAYS:
        raise CalendarError(
            f"The range {start.isoformat()} to {end.isoformat()} is longer than "
            f"{MAX_SPAN_DAYS // 366} years; check the dates."
        )
    _check_year(code, start)
    _check_year(code, end)


def _check_year(code: str, day: date) -> None:
    """Refuse dates outside the package's data, where every holiday would silently vanish."""
    entity = _entity(code)
    if not entity.start_year <= day.year <= entity.end_year:
        raise CalendarError(
            f"Public holidays for {code} are only known for {entity.start_year}–"
            f"{entity.end_year}; {day.isoformat()} is outside that."
        )


@lru_cache(maxsize=64)
def _calendar(code: str, subdiv: str | None, year: int, locale: str) -> HolidayBase:
    """Holidays for `year` ±1, built once; the neighbours catch observed days across New Year."""
    years = range(max(year - 1, MINYEAR), min(year + 1, MAXYEAR) + 1)
    # expand=False: lookups never mutate the shared cached object, so concurrent readers are safe.
    return holidays.country_holidays(
        code, subdiv=subdiv, years=years, language=locale, expand=False
    )


@lru_cache(maxsize=256)
def _place(country: str, subdivision: str | None) -> tuple[str, str | None]:
    """Validate and canonicalise a country code and subdivision (code or alias, any case)."""
    code = country.strip().upper() if isinstance(country, str) else ""
    if code not in _supported_countries():
        raise CalendarError(
            f"Unknown country code {country!r} for public holidays; "
            "use an ISO code such as CN, GB, US."
        )
    if subdivision is None or not subdivision.strip():
        return code, None
    entity = _entity(code)
    known: dict[str, str] = {sub.upper(): sub for sub in entity.subdivisions}
    aliases: dict[str, str] = getattr(entity, "subdivisions_aliases", {}) or {}
    known.update({alias.upper(): sub for alias, sub in aliases.items()})
    canonical = known.get(subdivision.strip().upper())
    if canonical is None:
        if not entity.subdivisions:
            raise CalendarError(
                f"{code} has no subdivisions for public holidays; "
                f"leave the subdivision empty instead of {subdivision!r}."
            )
        listed = ", ".join(entity.subdivisions[:_MAX_LISTED_SUBDIVISIONS])
        more = ", …" if len(entity.subdivisions) > _MAX_LISTED_SUBDIVISIONS else ""
        raise CalendarError(
            f"Unknown subdivision {subdivision!r} for {code}; use one of {listed}{more}."
        )
    return code, canonical


@lru_cache(maxsize=256)
def _locale(code: str, language: str) -> str:
    """The package locale for "en"/"zh" in this country, or its default language."""
    entity = _entity(code)
    supported = tuple(entity.supported_languages)
    if language in supported:
        return language
    preferred = _PREFERRED_LOCALES.get(language)
    if preferred is None:
        raise CalendarError(f"Holiday names are available in 'en' or 'zh', not {language!r}.")
    default: str = entity.default_language
    # A country's own English (en_GB for GB) beats a generic one.
    candidates = (default, *preferred) if default.startswith(language) else preferred
    for candidate in candidates:
        if candidate in supported:
            return candidate
    return default


@lru_cache(maxsize=1)
def _supported_countries() -> dict[str, list[str]]:
    """ISO codes (alpha-2 and alpha-3) the package knows, with their subdivisions."""
    return holidays.list_supported_countries()


def _entity(code: str) -> Any:
    """The package's class for a validated country code (its metadata: years, languages)."""
    # country_holidays() resolves codes the same way; the class carries the metadata we need.
    return getattr(holidays, code)
