"""Shared fixtures: the demo organisation under a fresh org id, a fixed clock, fakeredis and real Redis.

Storage tests run twice: on fakeredis, and on the real Redis at REDIS_URL. With
REQUIRE_REDIS=1 (CI) an unreachable Redis fails those tests instead of skipping them.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import AsyncIterator
from datetime import datetime

import fakeredis
import pytest
import redis.asyncio as aioredis
import structlog

from workflow.clock import FixedClock
from workflow.config import Organisation, OrgConfig, load_config
from workflow.engine import Engine
from workflow.store import connect

REQUIRE_REDIS = os.environ.get("REQUIRE_REDIS") == "1"
REDIS_URL = os.environ.get("REDIS_URL") or ("redis://127.0.0.1:6379/0" if REQUIRE_REDIS else None)

# Wednesday 2 December 2026, 09:00 wherever each person is.
NOW = datetime(2026, 12, 2, 9, 0)


def real_redis_url() -> str:
    """The real Redis to test against, or skip (fail under REQUIRE_REDIS=1) when there is none."""
    if REDIS_URL is None:
        pytest.skip("no REDIS_URL: real-Redis tests skipped (set REDIS_URL or REQUIRE_REDIS=1)")
    return REDIS_URL


async def open_real_redis() -> aioredis.Redis:
    url = real_redis_url()
    client = connect(url)  # redis:// or redis+cluster://, as the product connects
    try:
        await client.ping()
    except (OSError, aioredis.ConnectionError) as e:
        await client.aclose()
        msg = f"Redis at {url} is unreachable: {e}"
        if REQUIRE_REDIS:
            pytest.fail(msg)
        pytest.skip(msg)
    return client


async def delete_org(client: aioredis.Redis, org: str) -> None:
    """Remove every key of a test organisation (tests only: the product never scans)."""
    async for key in client.scan_iter(match="{" + org + "}:*", count=500):
        await client.delete(key)


@pytest.fixture(autouse=True)
def _fresh_structlog():
    """A test that configures logging (the CLI does) must not leave a logger bound to a closed stream."""
    yield
    structlog.reset_defaults()


@pytest.fixture
def config() -> OrgConfig:
    """The demo organisation under an org id of its own, so tests never share Redis keys."""
    base = load_config()
    org = Organisation(id="t" + secrets.token_hex(6), name=base.organisation.name)
    return base.model_copy(update={"organisation": org})


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOW)


@pytest.fixture(params=["fake", "real"])
async def redis(request: pytest.FixtureRequest, config: OrgConfig) -> AsyncIterator[aioredis.Redis]:
    """fakeredis, then the real Redis (skipped without REDIS_URL, failed under REQUIRE_REDIS=1)."""
    if request.param == "fake":
        client = fakeredis.FakeAsyncRedis(decode_responses=True)
        yield client
        await client.aclose()
        return
    client = await open_real_redis()
    try:
        yield client
    finally:
        await delete_org(client, config.organisation.id)
        await client.aclose()


@pytest.fixture
async def engine(config: OrgConfig, redis: aioredis.Redis, clock: FixedClock) -> Engine:
    return Engine(config, redis, clock)
