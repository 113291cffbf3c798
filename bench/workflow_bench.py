"""Workflow benchmark: transitions per second and Redis round trips per engine call.

    python bench/workflow_bench.py [--redis-url redis://127.0.0.1:6379/0] [--requests N]
                                   [--concurrency C] [--fake]

Runs the real engine against a Redis (or, with --fake, the in-process fakeredis) under a
fresh organisation id, deletes that organisation's keys at the end, and prints ONE JSON object.

Throughput: N expense claims (manager step, then finance step: amount > 1000) are first
prepared, then each is submitted (by confirming its Submit card) and approved twice, with at
most C requests in flight at once; `transitions_per_second` = (submits + decisions) / the
wall time of that phase. Expense claims keep the workload the same for any N (leave requests
would exhaust balances and crowd the leave calendar).

Round trips: the engine's client uses a connection class that counts calls to
`send_packed_command`, i.e. writes to the socket, each followed by a wait for the reply. A
pipeline sends all its commands in one call; an EVALSHA is one call. Each operation is
measured alone, on a warm connection whose handshake is done and with the transition script
already loaded, so the one-off NOSCRIPT fallback (EVALSHA, SCRIPT LOAD, EVALSHA) of the first
transition a process runs is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import secrets
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

import redis.asyncio as aioredis
import redis.exceptions
from redis.asyncio.connection import Connection

from bot.logs import configure_logging
from workflow.clock import FixedClock
from workflow.config import Organisation, OrgConfig, load_config
from workflow.engine import Engine

T = TypeVar("T")

DEFAULT_URL = "redis://127.0.0.1:6379/0"
NOW = datetime(2026, 12, 2, 9, 0)  # a Wednesday; the demo organisation's test clock
# requester -> manager; the finance step goes to sarah
REQUESTERS = {
    "zhangsan": "wangfang",
    "lisi": "wangfang",
    "chenjing": "wangfang",
    "oliver": "emma",
    "priya": "emma",
}
FINANCE = "sarah"
EXPENSE = {
    "amount": 1500,
    "currency": "CNY",
    "category": "travel",
    "spent_on": "2026-11-30",
    "description": "train to the customer",
}


class RoundTrips:
    """Counts socket writes (requests awaiting a reply) made through one client's connections."""

    def __init__(self) -> None:
        self.count = 0

    def connection_class(self, base: type[Connection]) -> type[Connection]:
        counter = self

        class CountingConnection(base):  # type: ignore[valid-type, misc]
            async def send_packed_command(self, *args: Any, **kwargs: Any) -> None:
                counter.count += 1
                return await super().send_packed_command(*args, **kwargs)

        return CountingConnection

    async def measure(self, op: Callable[[], Awaitable[T]]) -> tuple[int, T]:
        start = self.count
        result = await op()
        return self.count - start, result


def counting_client(url: str | None, counter: RoundTrips) -> aioredis.Redis:
    """A client like workflow.store.connect() gives, whose connections count their round trips."""
    if url is None:
        import fakeredis
        from fakeredis.aioredis import FakeAsyncRedisConnection

        return fakeredis.FakeAsyncRedis(
            decode_responses=True,
            connection_class=counter.connection_class(FakeAsyncRedisConnection),
        )
    pool = aioredis.ConnectionPool.from_url(
        url, decode_responses=True, connection_class=counter.connection_class(Connection)
    )
    return aioredis.Redis(connection_pool=pool)


def bench_config() -> OrgConfig:
    base = load_config()
    org = Organisation(id="bench" + secrets.token_hex(6), name=base.organisation.name)
    return base.model_copy(update={"organisation": org})


async def delete_org(client: aioredis.Redis, org: str) -> None:
    """Remove the benchmark organisation's keys (one hash tag, so SCAN by pattern)."""
    batch: list[str] = []
    async for key in client.scan_iter(match="{" + org + "}:*", count=1000):
        batch.append(key)
        if len(batch) >= 500:
            await client.delete(*batch)
            batch = []
    if batch:
        await client.delete(*batch)


async def redis_version(client: aioredis.Redis) -> str:
    try:
        info = await client.info("server")
    except redis.exceptions.ResponseError:  # fakeredis has no INFO
        import fakeredis

        return f"fakeredis {fakeredis.__version__}"
    return str(info.get("redis_version", "unknown"))


async def measure_round_trips(engine: Engine, counter: RoundTrips) -> dict[str, int]:
    """Round trips of one isolated call of each engine operation, on a warm connection."""
    # warm up: connect, handshake, load the transition script (NOSCRIPT fallback happens here)
    p = await engine.prepare_submit("zhangsan", "expense", EXPENSE)
    await engine.confirm(p.pending.id, "zhangsan")

    trips: dict[str, int] = {}
    trips["prepare"], p = await counter.measure(
        lambda: engine.prepare_submit("lisi", "expense", EXPENSE)
    )
    trips["submit"], req = await counter.measure(lambda: engine.submit(p.request.id, "lisi"))
    trips["decide"], _ = await counter.measure(
        lambda: engine.decide(req.id, 0, "wangfang", "approve")
    )
    p = await engine.prepare_submit("chenjing", "expense", EXPENSE)
    trips["confirm"], _ = await counter.measure(lambda: engine.confirm(p.pending.id, "chenjing"))
    return trips


async def throughput(engine: Engine, requests: int, concurrency: int) -> dict[str, Any]:
    people = list(REQUESTERS)
    gate = asyncio.Semaphore(concurrency)

    async def bounded(op: Awaitable[T]) -> T:
        async with gate:
            return await op

    t0 = time.perf_counter()
    proposals = await asyncio.gather(
        *(
            bounded(engine.prepare_submit(people[i % len(people)], "expense", EXPENSE))
            for i in range(requests)
        )
    )
    prepare_seconds = time.perf_counter() - t0

    async def lifecycle(i: int) -> int:
        requester = people[i % len(people)]
        out = await engine.confirm(proposals[i].pending.id, requester)
        req = out.request
        transitions = 1
        for step, approver in ((0, REQUESTERS[requester]), (1, FINANCE)):
            req = await engine.decide(req.id, step, approver, "approve")
            transitions += 1
        assert req.status.value == "approved", req.status
        return transitions

    t0 = time.perf_counter()
    counts = await asyncio.gather(*(bounded(lifecycle(i)) for i in range(requests)))
    seconds = time.perf_counter() - t0
    transitions = sum(counts)
    return {
        "transitions": transitions,
        "seconds": round(seconds, 3),
        "transitions_per_second": round(transitions / seconds, 1),
        "prepares_per_second": round(requests / prepare_seconds, 1),
    }


async def run(url: str | None, requests: int, concurrency: int) -> dict[str, Any]:
    """Run the benchmark on `url` (None: fakeredis) and return its results."""
    config = bench_config()
    counter = RoundTrips()
    client = counting_client(url, counter)
    clock = FixedClock(NOW)
    try:
        version = await redis_version(client)
        engine = Engine(config, client, clock)
        trips = await measure_round_trips(engine, counter)
        result = await throughput(engine, requests, concurrency)
    finally:
        await delete_org(client, config.organisation.id)
        await client.aclose()
    return {
        "transitions_per_second": result["transitions_per_second"],
        "round_trips_per_submit": trips["submit"],
        "round_trips_per_decide": trips["decide"],
        "round_trips_per_confirm": trips["confirm"],
        "round_trips_per_prepare": trips["prepare"],
        "requests": requests,
        "concurrency": concurrency,
        "transitions": result["transitions"],
        "seconds": result["seconds"],
        "prepares_per_second": result["prepares_per_second"],
        "workload": "expense claims, 2 approval steps: confirm(submit) + 2 x decide per request",
        "round_trip_notes": (
            "socket writes per isolated call on a warm connection with the script loaded; "
            "the first transition of a process adds 2 (NOSCRIPT: SCRIPT LOAD and EVALSHA again); "
            "submit = engine.submit(draft_id), confirm = engine.confirm of a Submit card"
        ),
        "redis_version": version,
        "redis": "fakeredis (in-process)" if url is None else "server",
        "organisation": config.organisation.id,
        "log_level": "warning",
    }


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--redis-url", default=os.environ.get("REDIS_URL") or DEFAULT_URL, help="a real Redis"
    )
    parser.add_argument("--requests", type=int, default=1000, help="requests to run (N)")
    parser.add_argument("--concurrency", type=int, default=50, help="requests in flight at once")
    parser.add_argument("--fake", action="store_true", help="use in-process fakeredis instead")
    args = parser.parse_args(argv)
    configure_logging("warning")  # one line per transition would measure the log renderer
    if args.requests < 1 or args.concurrency < 1:
        parser.error("--requests and --concurrency must be at least 1")
    result = asyncio.run(
        run(None if args.fake else args.redis_url, args.requests, args.concurrency)
    )
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return result


if __name__ == "__main__":
    main()
