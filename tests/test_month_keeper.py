"""The worker keeps a closed month's list/export rows before anyone reads it (bot/month_keeper.py):
once, whichever of two workers gets to it, and anew at its next pass after a change."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import orjson
import redis
from structlog.testing import capture_logs

from bot import month_keeper, month_rows, request_rows
from bot.cli import main
from tests.conftest import delete_org, open_real_redis
from tests.helpers import ANNUAL_2_DAYS, submitted
from tests.test_admin import EXPENSE, cli_org
from tests.test_month_rows import _listed, _no_records, _requests
from workflow.engine import Engine

MONTH = "2026-12"


async def _kept(engine: Engine) -> list[dict]:
    """One worker pass; the `month_kept` events it logged."""
    with capture_logs() as logs:
        await month_keeper.keep_due(engine)
    return [e for e in logs if e["event"] == "month_kept"]


async def test_a_month_just_over_is_kept_by_the_worker_before_anyone_reads_it(
    engine: Engine, clock, monkeypatch
):
    """Not over: the worker leaves it. Over — last month, with a request still pending — its
    pass keeps it, logging the rows and seconds, and the month's first list reads no record."""
    await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await submitted(engine, process="expense", fields=EXPENSE)
    assert await _kept(engine) == []  # December is not over
    assert not await engine.store.redis.exists(engine.keys.month_rows(MONTH))

    clock.advance(timedelta(days=31))  # January: December is over, not settled
    lines = [request_rows.table_line(engine, r) for r in await _requests(engine)]
    [event] = await _kept(engine)
    assert event["month"] == MONTH and event["rows"] == 2 and event["seconds"] >= 0
    assert await _kept(engine) == []  # kept and true: not again
    _no_records(monkeypatch)
    assert await _listed(engine) == lines


async def test_two_workers_keep_a_month_once(engine: Engine, clock):
    """Two workers' passes at once: one keeps the month, the other leaves it."""
    await submitted(engine, process="expense", fields=EXPENSE)
    clock.advance(timedelta(days=31))
    other = Engine(engine.config, engine.store.redis, clock)
    with capture_logs() as logs:
        done = await asyncio.gather(month_keeper.keep_due(engine), month_keeper.keep_due(other))
    assert sorted(done) == [[], [MONTH]]
    assert [e["month"] for e in logs if e["event"] == "month_kept"] == [MONTH]


async def test_a_month_changed_after_it_was_kept_is_kept_anew_by_the_next_pass(
    engine: Engine, clock, monkeypatch
):
    """A request decided after its month was kept makes the rows untrue: until the worker's
    next pass the month is read from its records (showing the decision), then kept anew, once."""
    pending = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await submitted(engine, process="expense", fields=EXPENSE)
    clock.advance(timedelta(days=31))
    [_] = await _kept(engine)
    await engine.decide(pending.id, 0, pending.open_step().assignee, "approve")  # type: ignore[union-attr]
    assert any(line.startswith(pending.id) and "approved" in line for line in await _listed(engine))

    [event] = await _kept(engine)
    assert event["month"] == MONTH and event["rows"] == 2
    assert await _kept(engine) == []
    _no_records(monkeypatch)
    assert any(line.startswith(pending.id) and "approved" in line for line in await _listed(engine))


async def _big_month(engine: Engine, copies: int) -> None:
    """December with a few real requests (leave pending and decided, expenses) and `copies`
    copies of their records under new ids, spread over the month: a month dense enough for
    its build to take a worker's CPU for hundreds of ms (submitting thousands of requests
    through the engine would take the test a minute)."""
    made = [
        await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS),
        await submitted(engine, process="expense", fields=EXPENSE),
        await submitted(engine, actor="lisi", process="expense", fields={**EXPENSE, "amount": 9}),
    ]
    decided = await submitted(engine, fields=ANNUAL_2_DAYS)
    made.append(await engine.decide(decided.id, 0, decided.open_step().assignee, "approve"))  # type: ignore[union-attr]
    records = [await engine.store.redis.hget(engine.keys.request(r.id), "d") for r in made]
    low, high = month_rows.month_bounds(MONTH)
    async with engine.store.redis.pipeline(transaction=False) as pipe:
        for n in range(copies):
            record = orjson.loads(records[n % len(records)])
            record["i"] = f"{record['i']}-{n}"
            if "amount" in record["f"]:  # amounts differ, as a month's do
                record["f"]["amount"] = round(n * 7919 % 100_000 / 100, 2)
            pipe.hset(engine.keys.request(record["i"]), mapping={"v": 1, "d": orjson.dumps(record)})
            pipe.zadd(engine.keys.all_requests, {record["i"]: low + n * (high - low) // copies})
        await pipe.execute()


async def test_keeping_a_dense_month_leaves_the_workers_loop_free(config, clock, monkeypatch):
    """While the worker keeps a month of 12,000 requests (~0.2 s of CPU), a task sharing its
    event loop (the notifier, the scheduler, a turn) never waits for the build for long:
    counted in the loop thread's CPU between the task's wake-ups, so a busy machine's waits
    for a core are not counted as the build's."""
    # the month one chunk, compressed at zlib's slowest: in one go, that would hold the loop
    # for ~0.1 s (a dense month's chunk of 1,000 rows takes 14-25 ms at level 6)
    monkeypatch.setattr(month_rows, "CHUNK", 20_000)
    monkeypatch.setattr(month_rows, "LEVEL", 9)
    client = await open_real_redis()  # fakeredis runs its scripts on the loop's thread
    engine = Engine(config, client, clock)
    try:
        await _big_month(engine, 12_000)
        clock.advance(timedelta(days=31))
        gaps: list[float] = []
        stop = asyncio.Event()

        async def probe() -> None:
            last = time.thread_time()
            while not stop.is_set():
                await asyncio.sleep(0.001)
                now = time.thread_time()
                gaps.append(now - last)
                last = now

        task = asyncio.create_task(probe())
        await asyncio.sleep(0.01)
        started = time.process_time()
        with capture_logs() as logs:
            await month_keeper.keep(engine, MONTH, "worker")
        build = time.process_time() - started
        stop.set()
        await task
        assert [e["rows"] for e in logs if e["event"] == "month_kept"] == [12_004]
        assert build > 0.1  # built in one go, it would hold the loop this long
        assert max(gaps) < 0.02, sorted(gaps)[-5:]
        assert await _kept(engine) == []  # kept and true
    finally:
        await delete_org(client, config.organisation.id)
        await client.aclose()


def test_an_operator_keeps_a_closed_month_now(monkeypatch, capsys, tmp_path):
    """`requests keep --month` keeps a closed month's rows at once; a month not over, or not a
    month, is refused with what to write instead."""
    url, org = cli_org(monkeypatch, tmp_path)
    client = redis.Redis.from_url(url)
    try:
        assert main(["requests", "keep", "--month", "2020-02"]) == 0
        assert capsys.readouterr().out == "kept 2020-02: 0 requests\n"
        assert client.exists("{" + org + "}:rowmonth:2020-02")
        assert main(["requests", "keep", "--month", "2999-01"]) == 2
        assert "is not over yet" in capsys.readouterr().err
        assert main(["requests", "keep", "--month", "2020-2"]) == 2
        assert "needs --month YYYY-MM" in capsys.readouterr().err
    finally:
        for key in client.scan_iter(match="{" + org + "}:*", count=500):
            client.delete(key)
        client.close()
