"""My pending approvals as one manager's open steps grow: the page read now vs the whole list.

    python bench/approvals_bench.py [--held 20,200,2000] [--calls 50]

Starts its own redis-server (a free loopback port, `--save "" --appendonly no`), takes the
10,000-person organisation of the scale bench, and has one person submit expense claims
through the engine (a minute apart) until their manager holds each number of open steps.
At each size it times `Engine.my_approvals` (the oldest 20 and the count) and, for
comparison, what the query did before: reading the record of every open step the manager
holds. Prints CPU ms (this process) and wall ms a call, p50 and p99.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _rig import RedisServer, quantile  # noqa: E402

from bench.scale_org import org_config  # noqa: E402
from bot.logs import configure_logging  # noqa: E402
from workflow.clock import FixedClock  # noqa: E402
from workflow.engine import Engine  # noqa: E402
from workflow.store import connect  # noqa: E402

CLAIM = {"currency": "CNY", "category": "travel", "spent_on": "2026-11-30", "description": "taxi"}


async def timed(calls: int, call: Callable[[], Awaitable[object]]) -> dict[str, float]:
    cpu, wall = [], []
    for _ in range(calls):
        t, c = time.perf_counter(), time.process_time()
        await call()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - t) * 1000)
    return {
        "cpu_p50": round(quantile(cpu, 0.5), 2),
        "wall_p50": round(quantile(wall, 0.5), 2),
        "wall_p99": round(quantile(wall, 0.99), 2),
    }


async def run(url: str, sizes: list[int], calls: int) -> None:
    client = connect(url)
    clock = FixedClock(datetime(2026, 12, 2, 9, 0, tzinfo=UTC))
    engine = Engine(org_config(10_000, org_id="approvalsbench"), client, clock)
    report = next(p for p in engine.directory if p.manager)
    manager = report.manager
    assert manager is not None

    async def whole_list() -> int:  # the query before: every open step's record
        ids = await client.zrange(engine.keys.user_open(manager), 0, -1)
        return len(await engine._requests(list(ids)))

    held = 0
    for size in sizes:
        while held < size:
            claim = {**CLAIM, "amount": 10 + held}
            p = await engine.prepare_submit(report.id, "expense", claim)
            await engine.confirm(p.pending.id, report.id)
            clock.advance(timedelta(minutes=1))
            held += 1
        page = await timed(calls, lambda: engine.my_approvals(manager))
        before = await timed(calls, whole_list)
        total = (await engine.my_approvals(manager)).total
        print(f"{size:>6,} open (count says {total:,}) · page {page} · whole list {before}")
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--held", default="20,200,2000")
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    configure_logging("warning")
    server = RedisServer()
    try:
        url = server.start()
        asyncio.run(run(url, [int(n) for n in args.held.split(",")], args.calls))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
