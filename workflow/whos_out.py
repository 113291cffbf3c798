"""Who is out: leave (pending and approved) indexed by week, for the organisation and each team.

Each leave is written into one hash per ISO week it touches (`keys.out_week`), once for
the whole organisation and once for the requester's team, field `<person>|<request>` →
`start|end|halves|status`. A question about some days reads the buckets of their weeks
only, so "who is out this week" reads a week, however long the history. Buckets expire
CALENDAR_KEEP_DAYS after their week ends.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime, timedelta
from typing import NamedTuple

from workflow.keys import OrgKeys
from workflow.store import Tx

# A week's bucket is kept this long after the week ends (then Redis drops it).
CALENDAR_KEEP_DAYS = 120


class Booked(NamedTuple):
    """One leave as the index keeps it: who, which days, whether it is still awaiting approval.

    A tuple, not a frozen dataclass: a whole organisation's peak week makes thousands, and
    a tuple is made in less than half the time.
    """

    person: str
    request_id: str
    start: date
    end: date
    start_half: bool
    end_half: bool
    tentative: bool


def monday(day: date) -> date:
    return day - timedelta(days=day.weekday())


def weeks(start: date, end: date) -> list[date]:
    """The Mondays of the weeks from `start` to `end`."""
    first, out = monday(start), []
    while first <= end:
        out.append(first)
        first += timedelta(days=7)
    return out


def value(start: str, end: str, start_half: bool, end_half: bool, tentative: bool) -> str:
    halves = ("s" if start_half else "") + ("e" if end_half else "")
    return f"{start}|{end}|{halves}|{'p' if tentative else 'a'}"


def write(
    tx: Tx,
    keys: OrgKeys,
    *,
    person: str,
    team: str,
    request_id: str,
    fields: Mapping[str, object],
    booked: bool,
    tentative: bool,
    now: datetime,
) -> None:
    """Put the leave in (or, when not `booked`, take it out of) every week bucket it touches."""
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
        keep_until = datetime.combine(week + timedelta(days=7 + CALENDAR_KEEP_DAYS), now.timetz())
        ttl_ms = int((keep_until - now).total_seconds() * 1000)
        for key in (keys.out_week(week), keys.out_week(week, team)):
            if booked:
                tx.hset(key, field, stored)
                tx.pexpire(key, max(ttl_ms, 1))
            else:
                tx.hdel(key, field)


def reads(keys: OrgKeys, start: date, end: date, team: str | None) -> list[tuple[str, list[str]]]:
    """The read calls for the weeks from `start` to `end` (the team's buckets, or the organisation's)."""
    return [("hgetall", [keys.out_week(w, team)]) for w in weeks(start, end)]


def parse(buckets: Iterable[Mapping[str, str]], start: date, end: date) -> list[Booked]:
    """The leaves in these buckets that touch the days from `start` to `end`, each once."""
    seen: dict[str, Booked] = {}
    lo, hi = start.isoformat(), end.isoformat()
    days: dict[str, date] = {}  # a week's leave starts and ends on a few dozen days
    for bucket in buckets:
        for field, raw in bucket.items():
            if field in seen:
                continue
            s, e, halves, status = raw.split("|")
            if e < lo or s > hi:
                continue
            if (first := days.get(s)) is None:
                first = days[s] = date.fromisoformat(s)
            if (last := days.get(e)) is None:
                last = days[e] = date.fromisoformat(e)
            person, _, request_id = field.partition("|")
            seen[field] = Booked(
                person, request_id, first, last, "s" in halves, "e" in halves, status == "p"
            )
    return list(seen.values())
