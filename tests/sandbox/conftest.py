"""Fixtures for the sandbox tests: the product's parts on fakeredis, with the clock fixed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import datetime

import fakeredis
import pytest

from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from bot.runtime import Runtime
from bot.sandbox.server import Sandbox, describe_model, describe_store
from bot.settings import Settings
from workflow.clock import FixedClock
from workflow.config import load_config
from workflow.engine import Engine

# Wednesday 2 December 2026, 09:00 wherever each person is (as APPROVALS_NOW=2026-12-02T09:00).
NOW = datetime(2026, 12, 2, 9, 0)


def runtime_at(now: datetime) -> Runtime:
    """The demo organisation, the offline planner and an in-process store, with the clock at `now`."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    engine = Engine(load_config(), redis, FixedClock(now))
    memory = ThreadMemory(redis)
    agent = Agent(OfflinePlanner(), engine, memory)
    settings = Settings(_env_file=None, redis_url=None, llm_base_url=None, llm_model=None)
    return Runtime(settings, redis, engine, memory, agent, agent.model)


def sandbox_of(runtime: Runtime) -> Sandbox:
    """A sandbox over that runtime (not yet serving)."""
    settings = runtime.settings
    return Sandbox(runtime, store=describe_store(settings), model=describe_model(settings))


@pytest.fixture
async def sandbox_runtime() -> AsyncIterator[Runtime]:
    """The demo organisation, the offline planner and an in-process store, at a fixed time."""
    runtime = runtime_at(NOW)
    yield runtime
    await runtime.redis.aclose()


@pytest.fixture
def sandbox(sandbox_runtime: Runtime) -> Sandbox:
    """A sandbox over that runtime (not yet serving)."""
    return sandbox_of(sandbox_runtime)
