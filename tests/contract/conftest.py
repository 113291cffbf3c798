"""The contract suite's fixture: open any surface over a fresh organisation at Wed 2 Dec 2026 09:00 London.

One instant for everyone (17:00 in Shanghai), so times on a card can be compared across zones.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from zoneinfo import ZoneInfo

import fakeredis
import pytest

from tests.contract.surfaces import Surface, open_surface
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

SURFACES = ["slack", "feishu", "terminal"]


@pytest.fixture
async def surfaces():
    """`await surfaces(name, model=None)` opens a surface; all are closed after the test."""
    opened: list[Surface] = []

    async def open_(name: str, model=None) -> Surface:
        redis = fakeredis.FakeAsyncRedis(decode_responses=True)
        org = Organisation(id="c" + secrets.token_hex(4), name="Acme")
        config = load_config().model_copy(update={"organisation": org})
        engine = Engine(
            config, redis, FixedClock(datetime(2026, 12, 2, 9, 0, tzinfo=ZoneInfo("Europe/London")))
        )
        surface = await open_surface(name, engine, redis, model)
        opened.append(surface)
        return surface

    yield open_
    for surface in opened:
        await surface.close()
