"""Accrual and carry-over: leave earned month by month, last year's rest carried over and lapsing.

The rules are data in the organisation file (`accrual` under a leave type, see config.Accrual).
`periods_due` and `credits` are pure functions of the period and a person's ledger; `apply_due`
writes them. A period — a month's credit ("2027-01"), one leave type's lapse of a year's carried
days ("lapse:annual:2027") — is recorded in each ledger in the same version-guarded write as
its days, so running it twice, on two workers at once, or again after a crash half-way through
the people, adds once.

Periods follow each person's calendar: a month's days arrive at the first tick on or after
midnight of the 1st where the person is (Shanghai eight hours before London's winter UTC), so
people are handled a time zone at a time and the organisation's marker (`keys.accrual_done`)
records "<period>@<zone>" per zone, then "<period>" once every zone has it. A worker that was
down catches up: every period since the last one the whole organisation has is applied, in the
order they fell due, each still once. The January credit also carries over what was left of
last year, up to the cap; carried days are taken first, and those not taken by the expiry day
lapse at the first tick after it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import structlog

from workflow.config import OrgConfig, Person
from workflow.engine import Engine
from workflow.leave import (
    ACCRUED,
    CARRIED,
    LAPSED,
    accrual_done_field,
    balance,
    ledger_days,
    used_field,
    year_field,
)
from workflow.store import Conflict, Tx

log = structlog.get_logger("accrual")
# People whose ledgers are read in one round trip.
CHUNK = 200


@dataclass(frozen=True)
class Pass:
    """What one `apply_due` did: ledgers written, and whether every due period is now recorded."""

    ledgers: int
    complete: bool


def _month(period: str) -> tuple[int, int] | None:
    """(year, month) of a month's credit period; None for a lapse."""
    if period.startswith("lapse:"):
        return None
    return int(period[:4]), int(period[5:7])


def due_on(period: str, config: OrgConfig) -> date:
    """The local day a period falls due: the 1st of its month, or the day after the expiry."""
    if (ym := _month(period)) is not None:
        return date(ym[0], ym[1], 1)
    _, key, year = period.split(":")
    lt = config.leave_types_by_key[key]
    assert lt.accrual is not None
    expiry = lt.accrual.expiry(int(year))
    assert expiry is not None
    return expiry + timedelta(days=1)


def _next_month(year: int, month: int) -> tuple[int, int]:
    return (year + 1, 1) if month == 12 else (year, month + 1)


def periods_due(config: OrgConfig, today: date, since: tuple[int, int] | None = None) -> list[str]:
    """The periods fallen due by `today`, oldest first: each month from `since` (this month when
    None) to today's, and each lapse whose day has passed in those years."""
    types = [t for t in config.leave_types if t.accrual is not None]
    if not types:
        return []
    year, month = since or (today.year, today.month)
    out: list[str] = []
    while (year, month) <= (today.year, today.month):
        out.append(f"{year:04d}-{month:02d}")
        year, month = _next_month(year, month)
    first = since[0] if since else today.year
    for y in range(first, today.year + 1):
        for t in types:
            assert t.accrual is not None
            expiry = t.accrual.expiry(y)
            if expiry is not None and today > expiry:
                out.append(f"lapse:{t.key}:{y}")
    return sorted(out, key=lambda p: (due_on(p, config), p.startswith("lapse:")))


def credits(
    period: str, ledger: Mapping[str, str], person: Person, config: OrgConfig
) -> dict[str, float]:
    """What one period adds to a person's ledger (field → days; a lapse adds to `lapsed`).

    Empty when the ledger already has the period, or when it changes nothing.
    """
    if accrual_done_field(period) in ledger:
        return {}
    if period.startswith("lapse:"):
        _, key, year_text = period.split(":")
        year = int(year_text)
        lt = config.leave_types_by_key.get(key)
        if lt is None or lt.accrual is None:  # the organisation file changed since
            return {}
        left = (
            ledger_days(ledger, year_field(year, key, CARRIED))
            - ledger_days(ledger, year_field(year, key, LAPSED))
            - ledger_days(ledger, used_field(year, key))
        )
        return {year_field(year, key, LAPSED): left} if left > 0 else {}
    year, month = int(period[:4]), int(period[5:7])
    out: dict[str, float] = {}
    for lt in config.leave_types:
        if lt.accrual is None:
            continue
        out[year_field(year, lt.key, ACCRUED)] = lt.accrual.monthly_days
        if month == 1 and lt.accrual.carry_over_cap > 0:
            rest = balance(ledger, lt, person, year - 1).available or 0.0
            if (carry := min(lt.accrual.carry_over_cap, rest)) > 0:
                out[year_field(year, lt.key, CARRIED)] = carry
    return out


def _zones(engine: Engine) -> dict[str, list[Person]]:
    """The people by the time zone whose calendar their periods follow."""
    out: dict[str, list[Person]] = defaultdict(list)
    for person in engine.directory:
        out[str(engine.directory.timezone_of(person.id))].append(person)
    return out


def _since(done: Mapping[str, str], today: date) -> tuple[int, int]:
    """The first month that may still be owed to someone: the month after the last one the
    whole organisation has, else the first one some zone has, else `today`'s month."""
    whole = [m for p in done if "@" not in p and (m := _month(p)) is not None]
    if whole:
        return _next_month(*max(whole))
    begun = [m for p in done if "@" in p and (m := _month(p.partition("@")[0])) is not None]
    return min(begun) if begun else (today.year, today.month)


def next_start(engine: Engine, now: datetime) -> datetime | None:
    """The first instant after `now` at which a period falls due in some zone (None: no accrual)."""
    config = engine.config
    if not any(t.accrual is not None for t in config.leave_types):
        return None
    out: datetime | None = None
    for name in _zones(engine):
        tz = ZoneInfo(name)
        today = now.astimezone(tz).date()
        y, m = _next_month(today.year, today.month)
        days = [date(y, m, 1)]
        for t in config.leave_types:
            if t.accrual is None:
                continue
            for year in (today.year, today.year + 1):
                if (expiry := t.accrual.expiry(year)) is not None and expiry >= today:
                    days.append(expiry + timedelta(days=1))
        at = datetime.combine(min(days), time(0), tz).astimezone(UTC)
        out = at if out is None else min(out, at)
    return out


async def apply_due(engine: Engine, now: datetime) -> Pass:
    """Give every person the periods fallen due where they are that they lack, oldest first."""
    store, keys, config = engine.store, engine.keys, engine.config
    if not any(t.accrual is not None for t in config.leave_types):
        return Pass(0, True)
    [done] = await store.read(("hgetall", [keys.accrual_done]))
    zones = _zones(engine)
    locals_ = {z: now.astimezone(ZoneInfo(z)).date() for z in zones}
    since = _since(done, max(locals_.values()))
    todo = {
        z: [
            p for p in periods_due(config, today, since) if p not in done and f"{p}@{z}" not in done
        ]
        for z, today in locals_.items()
    }
    if not any(todo.values()):
        return Pass(0, True)
    changed, complete = 0, True
    at = now.astimezone(UTC).isoformat(timespec="seconds")
    for zone_name, periods in todo.items():
        if not periods:
            continue
        people, gave_up = zones[zone_name], 0
        for i in range(0, len(people), CHUNK):
            chunk = people[i : i + CHUNK]
            ledgers = await store.read(*(("hgetall", [keys.ledger(p.id)]) for p in chunk))
            for person, ledger in zip(chunk, ledgers, strict=True):
                wrote = await _apply_person(engine, person, ledger, periods)
                changed += wrote is True
                gave_up += wrote is None
        if gave_up:  # the zone stays unmarked: the next tick finds the people still owed
            complete = False
            continue
        tx = Tx()
        for period in periods:
            tx.hset(keys.accrual_done, f"{period}@{zone_name}", at)
            done[f"{period}@{zone_name}"] = at
        await store.apply(tx)
    tx, whole = Tx(), []
    for period in sorted({p for ps in todo.values() for p in ps}):
        marks = [f"{period}@{z}" for z in zones]
        # A zone without it either gave up (complete is already False) or has not reached the
        # period yet: next_start wakes the scheduler at its midnight, so ticks before it are free.
        if all(m in done for m in marks):  # every zone has it: one field instead of one a zone
            tx.hset(keys.accrual_done, period, at)
            for mark in marks:
                tx.hdel(keys.accrual_done, mark)
            whole.append(period)
    if whole:
        await store.apply(tx)
    log.info("accrual_applied", periods=todo, ledgers=changed, whole=whole)
    return Pass(changed, complete)


async def _apply_person(
    engine: Engine, person: Person, ledger: dict[str, str], periods: list[str]
) -> bool | None:
    """One guarded write of the periods this ledger lacks, in order (True: written, False: it had
    them all, None: gave up); a lost race re-reads and finds them done."""
    key = engine.keys.ledger(person.id)
    for _ in range(engine.max_attempts):
        tx = Tx().expect(key, int(ledger.get("v", 0))).hincrby(key, "v", 1)
        view, wrote = dict(ledger), False
        for period in periods:
            if accrual_done_field(period) in view:
                continue
            for name, days in credits(period, view, person, engine.config).items():
                tx.hincrbyfloat(key, name, days)
                view[name] = repr(ledger_days(view, name) + days)  # a later period sees it
            tx.hset(key, accrual_done_field(period), "1")
            view[accrual_done_field(period)] = "1"
            wrote = True
        if not wrote:
            return False
        try:
            await engine.store.apply(tx)
            return True
        except Conflict:
            [ledger] = await engine.store.read(("hgetall", [key]))
    log.warning("accrual_gave_up", person=person.id, periods=periods)
    return None
