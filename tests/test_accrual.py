"""Accrual and carry-over: monthly days, a capped carry-over that lapses, once per period however often it runs."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent.tools.base import ToolContext
from agent.tools.read import BalancesArgs, my_balances
from bot.slack.blocks_home import _balance_value
from tests.conftest import delete_org, open_real_redis
from tests.helpers import approved
from tests.test_scale_reads import ReadLog
from workflow import accrual
from workflow.clock import FixedClock
from workflow.config import OrgConfig, parse_config
from workflow.engine import Engine
from workflow.errors import ConfigError
from workflow.scheduler import Scheduler
from workflow.store import Tx

SHANGHAI = ZoneInfo("Asia/Shanghai")

DEMO = (Path(__file__).parents[1] / "workflow" / "data" / "demo_org.toml").read_text("utf-8")
DEMO_RULES = 'monthly_days = 1\ncarry_over_cap = 5\ncarry_over_expires = "03-31"\n'

RULES = 'monthly_days = 1.5\ncarry_over_cap = 5\ncarry_over_expires = "03-31"\n'


def org_with(rules: str = RULES) -> str:
    """The demo organisation under a fresh id, annual leave accruing by `rules`."""
    text = DEMO.replace('id = "acme"', f'id = "t{secrets.token_hex(6)}"', 1)
    assert DEMO_RULES in text  # the demo's own rules, replaced by the test's
    return text.replace(DEMO_RULES, rules, 1)


@pytest.fixture
def config() -> OrgConfig:
    return parse_config(org_with())


def utc(*args: int) -> FixedClock:
    return FixedClock(datetime(*args, tzinfo=UTC))


def shanghai(*args: int) -> FixedClock:
    """A clock standing at a wall time in Shanghai (张三's zone), as one instant."""
    return FixedClock(datetime(*args, tzinfo=SHANGHAI).astimezone(UTC))


def at(engine: Engine, clock: FixedClock) -> Engine:
    engine.clock = clock
    engine.setting = engine.setting.__class__(
        engine.directory, clock, engine.keys, engine.config.policy
    )
    return engine


async def annual(engine: Engine, person: str = "zhangsan", year: int | None = None):
    return next(b for b in await engine.balances(person, year) if b.leave_type == "annual")


def context(engine: Engine, locale: str) -> ToolContext:
    return ToolContext(engine, engine.person("zhangsan"), date(2027, 1, 4), locale, "t:1")


async def test_a_month_adds_its_days_once_however_often_the_scheduler_runs(engine: Engine):
    """December's tick adds 1.5 days to the yearly 10; five more ticks add nothing."""
    at(engine, utc(2026, 12, 1, 0, 5))
    scheduler = Scheduler(engine)
    for _ in range(6):
        await scheduler.periodic()
    b = await annual(engine)
    assert (b.allowance, b.available, b.carried) == (11.5, 11.5, 0)
    sick = next(b for b in await engine.balances("zhangsan") if b.leave_type == "sick")
    assert sick.allowance == 10  # a type without accrual is as before


async def test_the_rest_of_a_year_carries_over_up_to_the_cap_and_lapses_after_its_day(
    engine: Engine,
):
    """11.5 left of 2026 carries 5 into 2027; 2 taken in March, the other 3 lapse in April."""
    scheduler = Scheduler(engine)
    at(engine, utc(2026, 12, 1, 0, 5))
    await scheduler.periodic()
    at(engine, utc(2027, 1, 1, 0, 5))
    await scheduler.periodic()
    b = await annual(engine, year=2027)
    assert (b.allowance, b.carried, b.carried_expires) == (16.5, 5, date(2027, 3, 31))
    at(engine, utc(2027, 2, 1, 0, 5))
    await scheduler.periodic()
    await approved(
        engine, "zhangsan", {"leave_type": "annual", "start": "2027-03-08", "end": "2027-03-09"}
    )
    b = await annual(engine, year=2027)
    assert (b.allowance, b.used, b.available, b.carried) == (18, 2, 16, 3)
    at(engine, shanghai(2027, 3, 31, 23, 0))
    await scheduler.periodic()
    assert (await annual(engine, year=2027)).carried == 3  # not yet: the 31st is still theirs
    at(engine, shanghai(2027, 4, 1, 0, 5))
    await scheduler.periodic()
    await scheduler.periodic()
    b = await annual(engine, year=2027)
    # 10 + 4 × 1.5 + 5 carried − 3 lapsed; nothing carried left, no expiry to show
    assert (b.allowance, b.available, b.carried, b.carried_expires) == (18, 16, 0, None)


async def test_balances_say_how_much_is_carried_over_and_when_it_expires(engine: Engine):
    """The balance answer and the Home tab: "…, of which 5 carried over, expiring 31 Mar", in en and zh."""
    scheduler = Scheduler(engine)
    for month in (12, 1):
        at(engine, utc(2026 if month == 12 else 2027, month, 1, 0, 5))
        await scheduler.periodic()
    en = await my_balances(context(engine, "en"), BalancesArgs())
    assert (
        "Annual leave: 16.5 of 16.5 days left, of which 5 carried over, expiring 31 Mar"
        in en.summary
    )
    zh = await my_balances(context(engine, "zh"), BalancesArgs())
    assert "年假：剩余 16.5 天，共 16.5 天，其中 5 天为上年结转，3月31日到期" in zh.summary
    b = await annual(engine)
    assert _balance_value(b, "en") == (
        "16.5 days left of 16.5, of which 5 carried over, expiring 31 Mar"
        " (+1.5 a month; up to 5 carry into 2028 until 31 Mar)"
    )
    assert _balance_value(b, "zh") == (
        "剩余 16.5 天，共 16.5 天，其中 5 天为上年结转，3月31日到期"
        "（每月 +1.5 天；最多 5 天结转至 2028 年，3月31日前有效）"
    )


@pytest.mark.redis
async def test_two_workers_at_once_credit_a_month_once(config: OrgConfig):
    """Two workers on their own connections run the same period at the same moment: each ledger gets it once."""
    clients = [await open_real_redis() for _ in range(2)]
    try:
        clock = utc(2026, 12, 1, 0, 5)
        engines = [Engine(config, c, clock) for c in clients]
        for _ in range(5):
            await asyncio.gather(*(accrual.apply_due(e, clock.now(UTC)) for e in engines))
        for person in ("zhangsan", "david", "oliver"):
            b = await annual(engines[0], person)
            base = 10 if person == "zhangsan" else 25
            assert b.allowance == base + 1.5, person
    finally:
        await delete_org(clients[0], config.organisation.id)
        for c in clients:
            await c.aclose()


async def test_once_everyone_has_a_period_a_tick_costs_one_read(engine: Engine):
    """After the month's pass, the next tick reads the organisation's marker and writes nothing."""
    now = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    assert await accrual.apply_due(engine, now) == accrual.Pass(len(engine.directory), True)
    log = ReadLog(engine)
    assert await accrual.apply_due(engine, now) == accrual.Pass(0, True)
    assert log.calls == [("hgetall", [engine.keys.accrual_done])] and log.writes == 0
    done = await engine.store.redis.hkeys(engine.keys.accrual_done)
    assert sorted(done) == ["2026-12", "lapse:annual:2026"]  # the 2026 lapse had nothing to take


async def test_a_person_in_shanghai_gets_the_new_month_eight_hours_before_london(engine: Engine):
    """00:30 on 1 December in Shanghai is 16:30 on 30 November in London: 张三 has December's
    days, Oliver not yet; at London's midnight he has them too, and the month is then marked whole."""
    scheduler = Scheduler(engine)
    at(engine, shanghai(2026, 12, 1, 0, 30))
    await scheduler.periodic()
    assert (await annual(engine, "zhangsan")).allowance == 11.5
    assert (await annual(engine, "oliver")).allowance == 25
    done = await engine.store.redis.hkeys(engine.keys.accrual_done)
    assert "2026-12@Asia/Shanghai" in done and "2026-12" not in done
    at(engine, utc(2026, 12, 1, 0, 5))
    await scheduler.periodic()
    assert (await annual(engine, "oliver")).allowance == 26.5
    assert (await annual(engine, "zhangsan")).allowance == 11.5  # not twice
    done = await engine.store.redis.hkeys(engine.keys.accrual_done)
    assert "2026-12" in done and not any(d.startswith("2026-12@") for d in done)


async def test_between_shanghai_and_london_midnight_a_tick_does_not_read_the_marker(engine: Engine):
    """Once Shanghai has December, ticks before London's midnight cost accrual nothing: the
    scheduler waits for the next zone's start instead of re-reading every tick."""
    scheduler = Scheduler(engine)
    at(engine, shanghai(2026, 12, 1, 0, 30))
    await scheduler.periodic()
    log = ReadLog(engine)
    at(engine, shanghai(2026, 12, 1, 3, 0))
    await scheduler.periodic()
    assert all(engine.keys.accrual_done not in keys for _, keys in log.calls)
    at(engine, utc(2026, 12, 1, 0, 5))
    await scheduler.periodic()
    assert (await annual(engine, "oliver")).allowance == 26.5


async def test_a_worker_down_for_two_months_applies_both_in_order_once(engine: Engine):
    """Running in November, then down until February: December is credited before January, so
    January carries over a rest that includes December's days; a second tick adds nothing."""
    scheduler = Scheduler(engine)
    at(engine, shanghai(2026, 11, 2, 9, 0))
    await scheduler.periodic()
    await approved(  # 8 working days of 2026's 10 + 1.5
        engine, "zhangsan", {"leave_type": "annual", "start": "2026-11-16", "end": "2026-11-25"}
    )
    at(engine, shanghai(2027, 2, 1, 9, 0))  # the worker comes back: December and January missed
    await scheduler.periodic()
    await Scheduler(engine).periodic()  # and a second worker after it
    last = await annual(engine, year=2026)
    assert (last.allowance, last.used, last.available) == (13, 8, 5)  # 10 + Nov + Dec − 8
    b = await annual(engine, year=2027)
    # the whole 5 carried (had January come first it would have been 3.5); Jan + Feb accrued
    assert (b.allowance, b.carried, b.carried_expires) == (18, 5, date(2027, 3, 31))
    ledger = await engine.store.redis.hgetall(engine.keys.ledger("zhangsan"))
    assert {k for k in ledger if k.startswith("accrual:20")} == {
        "accrual:2026-11",
        "accrual:2026-12",
        "accrual:2027-01",
        "accrual:2027-02",
    }


async def test_a_carry_over_expiry_passed_while_the_worker_was_down_still_lapses(engine: Engine):
    """Down from 15 March to 2 May: March's expiry and April's and May's days are caught up in
    one tick — the carried days 张三 did not take lapse, the ones he took in March stay taken."""
    scheduler = Scheduler(engine)
    for clock in (shanghai(2026, 12, 1, 9, 0), shanghai(2027, 1, 4, 9, 0)):
        at(engine, clock)
        await scheduler.periodic()
    at(engine, shanghai(2027, 3, 15, 9, 0))
    await scheduler.periodic()
    await approved(
        engine, "zhangsan", {"leave_type": "annual", "start": "2027-03-22", "end": "2027-03-23"}
    )
    assert (await annual(engine, year=2027)).carried == 3
    at(engine, shanghai(2027, 5, 2, 9, 0))
    await scheduler.periodic()
    b = await annual(engine, year=2027)
    # 10 + 5 months × 1.5 + 5 carried − 3 lapsed
    assert (b.allowance, b.used, b.carried, b.carried_expires) == (19.5, 2, 0, None)
    en = await my_balances(context(engine, "en"), BalancesArgs())
    assert (
        "Annual leave: 17.5 of 19.5 days left (+1.5 a month" in en.summary
    )  # nothing carried to mention


class Crash(Exception):
    """The worker's process dying between two writes."""


def crash_after(engine: Engine, writes: int) -> None:
    """Let `writes` more writes through, then fail every one, as a process killed mid-pass."""
    apply, left = engine.store.apply, [writes]

    async def dying_apply(tx: Tx) -> list[str]:
        if left[0] <= 0:
            raise Crash
        left[0] -= 1
        return await apply(tx)

    engine.store.apply = dying_apply  # type: ignore[method-assign]


async def test_a_worker_killed_half_way_through_a_catch_up_is_finished_by_the_next_once(
    config: OrgConfig, redis
):
    """Three people of ten get December and January, then the worker dies; a new worker on the same
    store gives the other seven both months and the three nothing more."""
    now = shanghai(2027, 1, 4, 9, 0)
    first = Engine(config, redis, shanghai(2026, 11, 2, 9, 0))
    await accrual.apply_due(first, first.clock.now(UTC))  # November: the organisation's start
    crash_after(first, 3)
    with pytest.raises(Crash):
        await accrual.apply_due(first, now.now(UTC))
    done = await redis.hkeys(first.keys.accrual_done)
    assert not any(d.startswith(("2026-12", "2027-01")) for d in done)
    second = Engine(config, redis, now)
    assert (await accrual.apply_due(second, now.now(UTC))).ledgers == len(second.directory) - 3
    assert (await accrual.apply_due(second, now.now(UTC))).ledgers == 0
    for person in second.directory:
        ledger = await redis.hgetall(second.keys.ledger(person.id))
        base = 10 if person.country == "CN" else 25
        assert float(ledger["2026:annual:accrued"]) == 3, person.id  # Nov + Dec, once each
        assert float(ledger["2027:annual:accrued"]) == 1.5, person.id
        b = await annual(second, person.id, 2027)
        assert b.carried == 5 and b.allowance == base + 1.5 + 5, person.id


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        (
            "monthly_days = 0\n",
            "leave type 'annual': accrual.monthly_days: Input should be greater than 0",
        ),
        ("monthly_days = 1\ncarry_over_cap = -2\n", "leave type 'annual': accrual.carry_over_cap"),
        (
            'monthly_days = 1\ncarry_over_expires = "31-03"\n',
            "leave type 'annual': accrual.carry_over_expires: '31-03' is not a day of the year",
        ),
        ('monthly_days = 1\ncarry_over_expires = "end of March"\n', "is not a month-day like"),
        ("carry_over_cap = 3\n", "leave type 'annual': accrual.monthly_days: Field required"),
        (
            "monthly_days = 1\ncap = 3\n",
            "leave type 'annual': accrual.cap: Extra inputs are not permitted",
        ),
    ],
)
def test_a_bad_accrual_rule_names_the_leave_type_and_the_field(rules: str, expected: str):
    """A mistake in an accrual table is refused with the leave type's key, the field and the line."""
    with pytest.raises(ConfigError) as e:
        parse_config(org_with(rules))
    assert expected in str(e.value)
    assert "(line " in str(e.value)
