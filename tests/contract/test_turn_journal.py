"""The queue's "answered" record, the same on every queued surface: it travels with the turn's save.

A turn run by the queue records in its journal that its answer was posted, so a runner that
dies after the answer does not answer twice. Slack and Feishu record it the same way: in the
round trip that saves the turn to memory, never in a round trip of its own.
"""

from __future__ import annotations

from typing import Any

import pytest
import redis.asyncio.client as redis_client

from tests.contract.surfaces import Surface

RoundTrip = list[tuple[str, ...]]


def spy_round_trips(monkeypatch: pytest.MonkeyPatch) -> list[RoundTrip]:
    """Every round trip to Redis from here on: its commands (name and arguments), in order."""
    trips: list[RoundTrip] = []
    execute, command = redis_client.Pipeline.execute, redis_client.Redis.execute_command

    async def pipeline_execute(self: Any, *args: Any, **kwargs: Any) -> Any:
        stack = [tuple(map(str, c[0])) for c in self.command_stack]
        if stack:
            trips.append(stack)
        return await execute(self, *args, **kwargs)

    async def execute_command(self: Any, *args: Any, **options: Any) -> Any:
        trips.append([tuple(map(str, args))])
        return await command(self, *args, **options)

    monkeypatch.setattr(redis_client.Pipeline, "execute", pipeline_execute)
    monkeypatch.setattr(redis_client.Redis, "execute_command", execute_command)
    return trips


def writes_answered(trip: RoundTrip) -> bool:
    return any(c[0].upper() == "HSET" and ":journal:" in c[1] and "answered" in c for c in trip)


def saves_memory(trip: RoundTrip) -> bool:
    return any(
        len(c) > 1 and c[1].startswith("thread:") and c[1].endswith(":history") for c in trip
    )


@pytest.mark.parametrize("name", ["slack", "feishu"])
async def test_the_answer_is_recorded_in_the_round_trip_that_saves_the_turn(
    surfaces, monkeypatch: pytest.MonkeyPatch, name: str
):
    s: Surface = await surfaces(name)
    trips = spy_round_trips(monkeypatch)
    await s.say("emma", "how much annual leave do I have left?")
    answered = [t for t in trips if writes_answered(t)]
    assert len(answered) == 1, answered
    [trip] = answered
    assert saves_memory(trip), trip
    assert any("annual leave" in m.lower() for m in s.messages("emma"))
