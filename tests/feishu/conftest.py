"""Fixtures for the Feishu end-to-end tests: the bot, its open-API stand-in, a fixed clock on fakeredis."""

from __future__ import annotations

from datetime import datetime

import fakeredis
import pytest

from tests.feishu.harness import ENCRYPT_KEY, FeishuHarness, start_harness, stop_harness
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine


def _engine(redis) -> Engine:
    config = load_config().model_copy(update={"organisation": Organisation(id="fsu", name="Acme")})
    return Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))


@pytest.fixture
async def feishu():
    """The bot with an Encrypt Key (encrypted, signed callbacks), at Wednesday 2 Dec 2026 09:00."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    h: FeishuHarness = await start_harness(_engine(redis), redis, encrypt_key=ENCRYPT_KEY)
    yield h
    await stop_harness(h)


@pytest.fixture
async def feishu_plain():
    """The bot without an Encrypt Key: plain bodies, checked by the verification token only."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    h: FeishuHarness = await start_harness(_engine(redis), redis, encrypt_key=None)
    yield h
    await stop_harness(h)
