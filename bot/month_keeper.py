"""Closed months' `requests list|export` rows, kept by the worker before anyone reads them.

Otherwise a month's rows are kept by its first whole-month list or export once the month is
settled, and that read costs ~2.2x a read (bot/month_rows.py). Every `EVERY_S` a worker looks
for months that are over whose rows are not kept, were made otherwise, or stopped being true (a
request of theirs changed since), and keeps each: a month just over — last month's, which
payroll exports — is kept within a pass of its end and again within a pass of each change while
its pending requests are decided (~1.3 s of a worker's CPU for a dense month, at most once a
pass), so its readers wait for the records only between a change and the next pass. A month
is claimed first (SET NX with a lease) and looked at again once claimed, so of two workers one
keeps it, once; a worker that dies mid-build leaves a lease that runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import redis.exceptions
import structlog

from bot import month_rows, request_pages
from workflow.engine import Engine
from workflow.errors import StoreUnavailable

log = structlog.get_logger("month_keeper")

# How often a worker looks: a month is over at a UTC midnight, so its rows are kept within this
# of it (and of a change to it). A look is one round trip of two reads a month still in Redis.
EVERY_S = 300.0
# Longer than a dense month's build (3-6 s at load 8) by far: one outliving it is rebuilt by
# another worker, the same rows, no harm.
LEASE_S = 600.0


async def due(engine: Engine) -> list[str]:
    """The months that are over, oldest first, from that of the oldest request in Redis, whose
    kept rows are missing, made otherwise (other code or organisation file) or not
    true."""
    keys = engine.keys
    [oldest] = await engine.store.read(("zrange", [keys.all_requests, 0, 0, False, True]))
    if not oldest:
        return []
    months, month = [], month_rows.month_at(int(oldest[0][1]))
    while month_rows.closed(engine, month):
        months.append(month)
        month = month_rows.month_at(month_rows.month_bounds(month)[1] + 1)
    return await _untrue(engine, months)


async def _untrue(engine: Engine, months: list[str]) -> list[str]:
    """Those of `months` whose kept rows are missing, made otherwise or not true (one read)."""
    if not months:
        return []
    keys = engine.keys
    calls: list[tuple[str, list[object]]] = []
    for month in months:
        calls += [
            ("hget", [keys.month_changes, month]),
            ("hmget", [keys.month_rows(month), "g", "s"]),
        ]
    got = await engine.store.read(*calls)
    sig = month_rows.signature(engine)
    return [
        month
        for month, count, (made_at, made_with) in zip(months, got[::2], got[1::2], strict=True)
        if made_at != (count or "0") or made_with != sig
    ]


async def keep(engine: Engine, month: str, by: str) -> int:
    """Keep `month`'s rows now (whether or not they were kept and true); logs `month_kept`
    with the rows and seconds. Returns how many rows were kept."""
    started, cpu = time.perf_counter(), time.process_time()
    rows = await request_pages.keep_month(engine, month)
    log.info(
        "month_kept",
        month=month,
        rows=rows,
        seconds=round(time.perf_counter() - started, 3),
        cpu_s=round(time.process_time() - cpu, 3),
        by=by,
    )
    return rows


async def keep_due(engine: Engine) -> list[str]:
    """One worker's pass: keep each month `due` names that no other worker is keeping
    and that is still due once claimed. Returns the months this worker kept."""
    done = []
    for month in await due(engine):
        claim = engine.store.redis.lock(
            engine.keys.month_keeping(month), timeout=LEASE_S, blocking=False
        )
        if not await claim.acquire():
            continue  # another worker is keeping it
        try:
            if await _untrue(engine, [month]):  # not kept by another worker since the look
                await keep(engine, month, "worker")
                done.append(month)
        finally:
            with contextlib.suppress(redis.exceptions.LockError):  # the lease ran out
                await claim.release()
    return done


async def run(engine: Engine, stop: asyncio.Event, *, every_s: float = EVERY_S) -> None:
    """`keep_due` every `every_s` until `stop` is set. A month's records are made into rows
    100 at a time and compressed 32 KB at a time (request_pages.KEEP_PAUSE, month_rows.Keeping), so
    the worker's other tasks run between them: its loop is held a few ms at most."""
    while not stop.is_set():
        try:
            await keep_due(engine)
        except (redis.exceptions.RedisError, OSError, StoreUnavailable) as e:
            log.error("month_keeper_unreachable", error=repr(e)[:200])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
