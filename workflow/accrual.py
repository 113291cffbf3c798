"""Accrual and carry-over: leave earned month by month, last year's rest carried over and lapsing.

The rules are data in the organisation file (`accrual` under a leave type, see config.Accrual).
`periods_due` and `credits` are pure functions of the period and a person's ledger; `apply_due`
writes them. A period — a month's credit ("2027-01"), one leave type's lapse of a year's carried
days ("lapse:annual:2027") — is recorded in each ledger in the same version-guarded write as
its days, so running it twice, or on two workers at once, adds once. When every person has it,
the organisation's marker (`keys.accrual_done`) says so and later ticks cost one read.

Periods follow the UTC calendar: a month's days arrive at the first tick on or after the 1st
(UTC). The January credit also carries over what was left of last year, up to the cap; carried
days are taken first, and those not taken by the expiry day lapse at the first tick after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime

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


def periods_due(config: OrgConfig, today: date) -> list[str]:
    """The periods `today` is in: this month's credit, and each lapse whose day has passed."""
    types = [t for t in config.leave_types if t.accrual is not None]
    if not types:
        return []
    out = [f"{today:%Y-%m}"]
    for t in types:
        assert t.accrual is not None
        expiry = t.accrual.expiry(today.year)
        if expiry is not None and today > expiry:
            out.append(f"lapse:{t.key}:{today.year}")
    return out


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


async def apply_due(engine: Engine, today: date) -> int:
    """Give every person the periods due `today` that they lack; returns how many ledgers changed."""
    periods = periods_due(engine.config, today)
    if not periods:
        return 0
    store, keys = engine.store, engine.keys
    [done] = await store.read(("hmget", [keys.accrual_done, *periods]))
    todo = [p for p, d in zip(periods, done, strict=True) if d is None]
    if not todo:
        return 0
    people = list(engine.directory)
    changed = 0
    for i in range(0, len(people), CHUNK):
        chunk = people[i : i + CHUNK]
        ledgers = await store.read(*(("hgetall", [keys.ledger(p.id)]) for p in chunk))
        for person, ledger in zip(chunk, ledgers, strict=True):
            changed += await _apply_person(engine, person, ledger, todo)
    at = datetime.now(UTC).isoformat(timespec="seconds")
    tx = Tx()
    for period in todo:
        tx.hset(keys.accrual_done, period, at)
    await store.apply(tx)
    log.info("accrual_applied", periods=todo, ledgers=changed)
    return changed


async def _apply_person(
    engine: Engine, person: Person, ledger: dict[str, str], periods: list[str]
) -> int:
    """One guarded write of the periods this ledger lacks; a lost race re-reads and finds them done."""
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
            return 0
        try:
            await engine.store.apply(tx)
            return 1
        except Conflict:
            [ledger] = await engine.store.read(("hgetall", [key]))
    log.warning("accrual_gave_up", person=person.id, periods=periods)
    return 0
