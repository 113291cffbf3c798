"""Working hours: reminders and SLAs count the approver's working time, in their timezone and country."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from zoneinfo import ZoneInfo

from workflow import calendar
from workflow.config import Person

# Far enough to cross any holiday season; a guard against looping on a bad calendar.
_MAX_DAYS = 60


def hours_of(spec: str) -> tuple[time, time]:
    """'09:00-18:00' → (09:00, 18:00)."""
    start, end = spec.split("-")
    return time.fromisoformat(start), time.fromisoformat(end)


def next_working_moment(at: datetime, person: Person, hours: str) -> datetime:
    """`at` if it falls in the person's working hours, else the start of their next working period."""
    tz = ZoneInfo(person.timezone)
    local = at.astimezone(tz)
    start, end = hours_of(hours)
    for _ in range(_MAX_DAYS):
        day = local.date()
        if calendar.is_working_day(day, person.country, person.subdivision):
            opens = datetime.combine(day, start, tz)
            closes = datetime.combine(day, end, tz)
            if local < opens:
                return opens
            if local < closes:
                return local
        local = datetime.combine(day + timedelta(days=1), start, tz)
    raise ValueError(f"No working day within {_MAX_DAYS} days for {person.id}")


def add_working_hours(at: datetime, hours_to_add: float, person: Person, hours: str) -> datetime:
    """The moment `hours_to_add` working hours after `at`, counted in the person's working hours."""
    tz = ZoneInfo(person.timezone)
    _, end = hours_of(hours)
    left = timedelta(hours=hours_to_add)
    moment = next_working_moment(at, person, hours)
    for _ in range(_MAX_DAYS * 2):
        closes = datetime.combine(moment.date(), end, tz)
        available = closes - moment
        if left <= available:
            return moment + left
        left -= available
        moment = next_working_moment(closes, person, hours)
    raise ValueError(f"Cannot add {hours_to_add} working hours for {person.id}")
