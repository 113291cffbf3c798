"""A coalescing store (what the scale bench fills with) changes things exactly as the plain one.

Concurrent transitions' round trips go to Redis in shared pipelines; each transition still
reads in one round trip and writes with its own guarded script, so races still resolve once.
"""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
import redis.asyncio as aioredis

from tests.helpers import events
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.models import RequestStatus
from workflow.store import _Coalescer

EXPENSE = {
    "amount": 120,
    "currency": "CNY",
    "category": "meals",
    "spent_on": "2026-12-01",
    "description": "team lunch",
}


@pytest.fixture
def coalescing(config: OrgConfig, redis: aioredis.Redis, clock: FixedClock) -> Engine:
    if type(redis).__name__ == "RedisCluster":
        pytest.skip("coalescing is for one Redis")
    return Engine(config, redis, clock, coalesce=True)


async def test_concurrent_requests_through_shared_pipelines_each_apply_once(
    coalescing: Engine, monkeypatch
):
    """30 requests prepared, confirmed and decided at once: each is approved once, with one
    set of events each, in fewer pipelines than transitions; 20 racing approvals of one step
    record one decision."""
    flushes = 0
    coalescer = coalescing.store._coalescer
    assert isinstance(coalescer, _Coalescer)
    send = coalescer._batch.send

    async def counted(units):
        nonlocal flushes
        flushes += 1
        return await send(units)

    monkeypatch.setattr(coalescer._batch, "send", counted)
    e = coalescing

    async def one(actor: str):
        p = await e.prepare_submit(actor, "expense", EXPENSE)
        out = await e.confirm(p.pending.id, actor)
        return out.request

    made = await asyncio.gather(*(one(a) for a in ["zhangsan", "lisi", "oliver"] * 10))
    assert len({r.id for r in made}) == 30 and all(r.status is RequestStatus.PENDING for r in made)
    decided = await asyncio.gather(
        *(e.decide(r.id, 0, r.open_step().assignee, "approve") for r in made)
    )
    assert {r.status for r in decided} == {RequestStatus.APPROVED}
    assert 0 < flushes < 30 * 4  # prepare, confirm (2 reads and a write), decide: each shared
    kinds = Counter(kind for kind, _ in await events(e))
    assert kinds["request_submitted"] == kinds["request_approved"] == 30

    last = await one("zhangsan")
    approver = last.open_step().assignee
    race = await asyncio.gather(*(e.decide(last.id, 0, approver, "approve") for _ in range(20)))
    assert {r.status for r in race} == {RequestStatus.APPROVED}
    assert [k for k, rid in await events(e) if rid == last.id].count("request_approved") == 1
