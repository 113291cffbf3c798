"""Fixtures for the Slack end-to-end tests: the bot, its stand-in and a fixed clock on fakeredis."""

from __future__ import annotations

from datetime import datetime

import fakeredis
import pytest

from tests.slack.harness import SlackHarness, start_harness, stop_harness
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine


@pytest.fixture
async def slack():
    """A running bot on fakeredis with the offline planner, at Wednesday 2 Dec 2026 09:00."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config().model_copy(update={"organisation": Organisation(id="slk", name="Acme")})
    engine = Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    h: SlackHarness = await start_harness(engine, redis)
    yield h
    await stop_harness(h)
