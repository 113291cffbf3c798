"""Accrual and carry-over: monthly days, a capped carry-over that lapses, once per period however often it runs."""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from agent.tools.base import ToolContext
from agent.tools.read import BalancesArgs, my_balances
from bot.slack.blocks_home import _balance_value
from tests.conftest import delete_org, open_real_redis
from tests.helpers import approved
from workflow import accrual
from workflow.clock import FixedClock
from workflow.config import OrgConfig, parse_config
from workflow.engine import Engine
from workflow.errors import ConfigError
from workflow.scheduler import Scheduler

DEMO = (Path(__file__).parents[1] / "workflow" / "data" / "demo_org.toml").read_text("utf-8")
ANNUAL = "allowance_by_country = { CN = 10 }\n"
RULES = 'monthly_days = 1.5\ncarry_over_cap = 5\ncarry_over_expires = "03-31"\n'


def org_with(rules: str = RULES) -> str:
    """The demo organisation under a fresh id, annual leave accruing by `rules`."""
    text = DEMO.replace('id = "acme"', f'id = "t{secrets.token_hex(6)}"', 1)
    return text.replace(ANNUAL, ANNUAL + "[leave_types.accrual]\n" + rules, 1)


@pytest.fixture
def config() -> OrgConfig:
    return parse_config(org_with())


def utc(*args: int) -> FixedClock:
    return FixedClock(datetime(*args, tzinfo=UTC))


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
    at(engine, utc(2027, 3, 31, 23, 0))
    await scheduler.periodic()
    assert (await annual(engine, year=2027)).carried == 3  # not yet: the 31st is still theirs
    at(engine, utc(2027, 4, 1, 0, 5))
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
    assert "年假：剩余 16.5 天（共 16.5 天），其中 5 天为上年结转，03月31日到期" in zh.summary
    b = await annual(engine)
    assert _balance_value(b, "en").endswith("of which 5 carried over, expiring 31 Mar")
    assert _balance_value(b, "zh").endswith("其中 5 天为上年结转，03月31日到期")


@pytest.mark.redis
async def test_two_workers_at_once_credit_a_month_once(config: OrgConfig):
    """Two workers on their own connections run the same period at the same moment: each ledger gets it once."""
    clients = [await open_real_redis() for _ in range(2)]
    try:
        clock = utc(2026, 12, 1, 0, 5)
        engines = [Engine(config, c, clock) for c in clients]
        for _ in range(5):
            await asyncio.gather(*(accrual.apply_due(e, clock.now(UTC).date()) for e in engines))
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
    today = date(2026, 12, 1)
    assert await accrual.apply_due(engine, today) == len(engine.directory)
    assert await accrual.apply_due(engine, today) == 0
    done = await engine.store.redis.hkeys(engine.keys.accrual_done)
    assert sorted(done) == ["2026-12", "lapse:annual:2026"]  # the 2026 lapse had nothing to take


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
