"""The outbox as the notifier will read it: every event once per group, redelivered only if unacked."""

from __future__ import annotations

from tests.helpers import submitted
from workflow.engine import Engine
from workflow.models import EventType
from workflow.outbox import Outbox


async def test_a_consumer_group_gets_each_event_once_in_order(engine: Engine):
    """Two consumers of one group share the events: each event reaches exactly one of them."""
    outbox = Outbox(engine.store.redis, engine.keys, "notifier")
    await outbox.ensure_group()
    await outbox.ensure_group()  # idempotent
    req = await submitted(engine)
    await engine.decide(req.id, 0, "wangfang", "approve")
    a = await outbox.read("a", count=2)
    b = await outbox.read("b", count=10)
    assert [e.type for e in a + b] == [
        EventType.REQUEST_SUBMITTED,
        EventType.TASK_ASSIGNED,
        EventType.STEP_APPROVED,
        EventType.TASK_ASSIGNED,
    ]
    assert {e.request_id for e in a + b} == {req.id}
    assert b[-1].data["assignee"] == "liuyang"
    assert await outbox.read("a") == []
    assert await outbox.ack(*(e.id for e in a + b)) == 4
    assert await outbox.lag() == 0


async def test_events_a_crashed_consumer_never_acked_are_reclaimed(engine: Engine):
    """A consumer that read but died before acking: another consumer reclaims the same events."""
    outbox = Outbox(engine.store.redis, engine.keys, "notifier")
    await outbox.ensure_group()
    await submitted(engine)
    read = await outbox.read("dead", count=10)
    assert len(read) == 2
    assert await outbox.lag() == 2
    again = await outbox.reclaim("alive", min_idle_ms=0)
    assert [e.id for e in again] == [e.id for e in read]
    assert all(e.deliveries >= 2 for e in again)
    await outbox.ack(*(e.id for e in again))
    assert await outbox.reclaim("alive", min_idle_ms=0) == []
    assert await outbox.lag() == 0
