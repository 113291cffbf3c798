"""The failed-verification budget is one for every process on a Redis, and falls back loudly without it.

Two Feishu apps (as two `serve` processes) share a real Redis: failures sent to each add up,
and once the total is spent the unsigned path closes on both — an attacker spread over N
processes gets one budget, not N. When Redis does not answer, each process keeps its own
count, says so once in the log and counts it in the metrics.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import AsyncIterator
from datetime import datetime

import fakeredis
import pytest
import redis.asyncio as aioredis
from prometheus_client import REGISTRY

from bot.budget import SharedTotal, VerificationBudget
from tests.conftest import open_real_redis
from tests.feishu.harness import ENCRYPT_KEY, FeishuHarness, start_harness, stop_harness
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine
from workflow.keys import verify_failures

GARBAGE = json.dumps({"encrypt": "A" * 64})  # unsigned: refused before any decryption
JSON = {"Content-Type": "application/json"}


def _fallbacks() -> float:
    return REGISTRY.get_sample_value("approvals_verify_budget_fallbacks_total") or 0.0


async def _app() -> FeishuHarness:
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config().model_copy(update={"organisation": Organisation(id="bud", name="A")})
    engine = Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    return await start_harness(engine, redis, encrypt_key=ENCRYPT_KEY)


@pytest.fixture
async def shared_redis() -> AsyncIterator[tuple[aioredis.Redis, int]]:
    """A real Redis and a window of our own (others' tests on the same Redis count elsewhere)."""
    client = await open_real_redis()
    window = 10**9 + secrets.randbelow(10**6)
    yield client, window
    await client.delete(verify_failures(window))
    await client.aclose()


async def test_two_processes_share_one_total(shared_redis: tuple[aioredis.Redis, int]):
    """10 failures at each of two apps spend a total of 20: both then close the unsigned path."""
    redis, window = shared_redis
    apps = [await _app(), await _app()]
    try:
        for app in apps:
            shared = SharedTotal(redis, 60, wall=lambda: window * 60.0)
            app.bot.budget = VerificationBudget(per_client=1000, total=20, shared=shared)
        statuses = []
        for _ in range(10):
            for app in apps:
                statuses.append((await app.sim.post(GARBAGE, JSON)).status)
        assert statuses == [401] * 20
        assert int(await redis.get(verify_failures(window))) == 20
        for app in apps:  # each saw 10 of its own, and is closed all the same
            assert (await app.sim.post(GARBAGE, JSON)).status == 429
        # a signed callback still gets through on both: only the unsigned path is closed
        for app in apps:
            ok = await app.sim.deliver(app.sim.envelope("im.chat.disbanded_v1", {"chat_id": "x"}))
            assert ok.status == 200
    finally:
        for app in apps:
            await stop_harness(app)


async def test_without_redis_each_process_keeps_its_own_count_and_says_so(
    capsys: pytest.CaptureFixture[str],
):
    """Redis does not answer: the process's own count decides, logged once, counted in metrics."""
    gone = aioredis.Redis.from_url("redis://127.0.0.1:9/0", socket_connect_timeout=0.1)
    app = await _app()
    try:
        app.bot.budget = VerificationBudget(
            per_client=1000, total=5, shared=SharedTotal(gone, 60, deadline_s=0.2)
        )
        before = _fallbacks()
        capsys.readouterr()
        statuses = [(await app.sim.post(GARBAGE, JSON)).status for _ in range(7)]
        assert statuses == [401] * 5 + [429] * 2
        out = capsys.readouterr().out
        assert out.count("verification_budget_shared_unavailable") == 1
        assert _fallbacks() - before >= 7
    finally:
        await stop_harness(app)
        await gone.aclose()
