"""Who is out: leave (pending and approved), indexed by day for the organisation and by week for each team.

The organisation: one sorted set per calendar day (`keys.out_day`) holds every leave touching
that day, scored by the leave's first day (its ordinal), member `<name>\\x1f<person>|<request>|
<start>|<end>|<halves>|<status>`. So Redis keeps the organisation's answer in the order it is
shown (by first day, then name), and a page of it is a range read (lua/outpage.lua) whose cost
depends on the page, never on how many people are out. `keys.out_members` (one hash per week of
a leave's last day) keeps each leave's member, so a new status or name replaces it in place.

A team: one hash per ISO week (`keys.out_week`), field `<person>|<request>` →
`start|end|halves|status`; a team's question reads its weeks whole (a team is small).

Everything expires CALENDAR_KEEP_DAYS after its day (or week) ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime, timedelta
from typing import Any, NamedTuple

from workflow.keys import OrgKeys
from workflow.store import Tx, script_read

# A day's (a week's) index is kept this long after the day (the week) ends.
CALENDAR_KEEP_DAYS = 120
# Between the sort name and the rest of a day-index member: below every printable character,
# so "Li" sorts before "Li Na" as Python's string order has it.
NAME_END = "\x1f"


class Booked(NamedTuple):
    """One leave as the index keeps it: who, which days, whether it is still awaiting approval.

    A tuple, not a frozen dataclass: a team's year makes many, and a tuple is made in less
    than half the time.
    """

    person: str
    request_id: str
    start: date
    end: date
    start_half: bool
    end_half: bool
    tentative: bool


class BookedPage(NamedTuple):
    """One page of the organisation's leave touching some days, and how many there are in all."""

    booked: list[Booked]
    total: int


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def weeks(start: date, end: date) -> list[date]:
    """The Mondays of the weeks from `start` to `end`."""
    first, out = monday(start), []
    while first <= end:
        out.append(first)
        first += timedelta(days=7)
    return out


def days(start: date, end: date) -> list[date]:
    return [start + timedelta(days=i) for i in range((end - start).days + 1)]


def value(start: str, end: str, start_half: bool, end_half: bool, tentative: bool) -> str:
    halves = ("s" if start_half else "") + ("e" if end_half else "")
    return f"{start}|{end}|{halves}|{'p' if tentative else 'a'}"


def ttl_ms(last_day: date, now: datetime) -> int:
    """Milliseconds until an index whose last day is `last_day` may go."""
    keep_until = datetime.combine(last_day + timedelta(days=1 + CALENDAR_KEEP_DAYS), now.timetz())
    return int((keep_until - now).total_seconds() * 1000)


def write(
    tx: Tx,
    keys: OrgKeys,
    *,
    person: str,
    name: str,
    team: str,
    request_id: str,
    fields: Mapping[str, object],
    booked: bool,
    tentative: bool,
    now: datetime,
) -> None:
    """Put the leave in (or, when not `booked`, take it out of) the team's weeks and the
    organisation's days it touches; `name` is what the organisation's list sorts it by."""
    start, end = date.fromisoformat(str(fields["start"])), date.fromisoformat(str(fields["end"]))
    field = f"{person}|{request_id}"
    stored = value(
        start.isoformat(),
        end.isoformat(),
        bool(fields.get("start_half")),
        bool(fields.get("end_half")),
        tentative,
    )
    for week in weeks(start, end):
        key = keys.out_week(week, team)
        if booked:
            tx.hset(key, field, stored)
            tx.pexpire(key, max(ttl_ms(week + timedelta(days=6), now), 1))
        else:
            tx.hdel(key, field)
    member = member_of(name, field, stored) if booked else ""
    write_days(tx, keys, field=field, start=start, end=end, member=member, now=now)


def member_of(name: str, field: str, stored: str) -> str:
    """A leave's member in the day indexes: sorting by name, then carrying what `value` stores."""
    return f"{name}{NAME_END}{field}|{stored}"


def write_days(
    tx: Tx, keys: OrgKeys, *, field: str, start: date, end: date, member: str, now: datetime
) -> None:
    """Put the leave `field` (`<person>|<request>`) from `start` to `end` in the organisation's
    day indexes as `member`, or take it out of them when `member` is ''."""
    members = keys.out_members(monday(end))
    for day in days(start, end):
        ttl = ttl_ms(day, now)
        if ttl > 0:  # a day already past keeping (an old leave migrated) is not written
            tx.zswap(keys.out_day(day), members, field, start.toordinal(), member, ttl)
    if member:
        tx.hset(members, field, member)
        tx.pexpire(members, max(ttl_ms(monday(end) + timedelta(days=6), now), 1))
    else:
        tx.hdel(members, field)


def reads(keys: OrgKeys, start: date, end: date, team: str) -> list[tuple[str, list[str]]]:
    """The read calls for a team's weeks from `start` to `end`."""
    return [("hgetall", [keys.out_week(w, team)]) for w in weeks(start, end)]


def parse(buckets: Iterable[Mapping[str, str]], start: date, end: date) -> list[Booked]:
    """The leaves in a team's week buckets that touch the days from `start` to `end`, each once."""
    seen: dict[str, Booked] = {}
    lo, hi = start.isoformat(), end.isoformat()
    for bucket in buckets:
        for field, raw in bucket.items():
            if field in seen:
                continue
            s, e, halves, status = raw.split("|")
            if e < lo or s > hi:
                continue
            person, _, request_id = field.partition("|")
            seen[field] = _booked(person, request_id, s, e, halves, status)
    return list(seen.values())


def _booked(person: str, request_id: str, s: str, e: str, halves: str, status: str) -> Booked:
    first, last = date.fromisoformat(s), date.fromisoformat(e)
    return Booked(person, request_id, first, last, "s" in halves, "e" in halves, status == "p")


def page_read(
    keys: OrgKeys, start: date, end: date, offset: int, limit: int
) -> tuple[str, list[Any]]:
    """The read call for one page of the organisation's leave touching `start`..`end`
    (in the order shown: first day, then name) and the number of such leaves."""
    day_keys = [keys.out_day(d) for d in days(start, end)]
    return script_read("outpage", day_keys, [start.toordinal(), offset, limit])


def parse_page(reply: Sequence[Any]) -> BookedPage:
    """A page as lua/outpage.lua returns it: {total, member, member, ...}."""
    out = []
    for member in reply[1:]:
        rest = member.rpartition(NAME_END)[2]
        person, request_id, s, e, halves, status = rest.split("|")
        out.append(_booked(person, request_id, s, e, halves, status))
    return BookedPage(out, int(reply[0]))
