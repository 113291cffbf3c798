"""The worker's build of a closed month's kept rows, and how long it holds the event loop.

    python bench/keep_bench.py --redis-url redis://127.0.0.1:6391/0 --month 2025-01 [--runs 3]

On a Redis that bench/scale_bench.py filled (`--redis-url`), keeps `--month` as the worker's
month keeper does (`month_keeper.keep`, the heap settled as `approvals-bot worker` settles it)
`--runs` times, while a probe task on the same loop sleeps 1 ms at a time and notes each gap
between its wake-ups: the longest gap is the longest the notifier, the scheduler or a turn
runner sharing the loop would have waited. Prints, min / median / max over the runs: the
build's wall seconds and this process's CPU seconds (every thread's), the longest gap in wall
ms and in the loop thread's CPU ms (what the build held it for: a shared machine's waits for
a core are in the first, not the second), and how many wall gaps passed 50 ms; then the load
average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.export_bench import cli, fill_engine  # noqa: E402
from bench.scale_bench import _runs  # noqa: E402
from bot import month_keeper  # noqa: E402

# What a stall is said to be above: a card or a turn's step waiting this long is noticed.
STALL_MS = 50.0


async def _probe(gaps: list[tuple[float, float]], stop: asyncio.Event) -> None:
    """Note each gap (wall ms, the loop thread's CPU ms) between wake-ups of a task that asks
    to sleep 1 ms."""
    last, last_cpu = time.perf_counter(), time.thread_time()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now, cpu = time.perf_counter(), time.thread_time()
        gaps.append(((now - last) * 1000, (cpu - last_cpu) * 1000))
        last, last_cpu = now, cpu


async def run(args: argparse.Namespace) -> dict[str, Any]:
    # the heap settled, as `approvals-bot worker` settles it once started (bot/serve.py _warm)
    engine, _ = await fill_engine(args.redis_url)
    walls, cpus, longest, longest_cpu, over = [], [], [], [], []
    rows = 0
    for _ in range(args.runs):
        gaps: list[tuple[float, float]] = []
        stop = asyncio.Event()
        probe = asyncio.create_task(_probe(gaps, stop))
        await asyncio.sleep(0.01)  # the probe is running
        t, c = time.perf_counter(), time.process_time()
        rows = await month_keeper.keep(engine, args.month, "bench")
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        stop.set()
        await probe
        longest.append(max(wall for wall, _ in gaps))
        longest_cpu.append(max(cpu for _, cpu in gaps))
        over.append(sum(wall > STALL_MS for wall, _ in gaps))
    await engine.store.redis.aclose()
    return {
        "month": args.month,
        "rows": rows,
        "build_s": _runs(walls),
        "build_cpu_s": _runs(cpus),
        "longest_stall_ms": _runs(longest),
        "longest_stall_loop_cpu_ms": _runs(longest_cpu),
        f"stalls_over_{int(STALL_MS)}ms": _runs([float(x) for x in over]),
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }


def main() -> None:
    cli(__doc__, run)


if __name__ == "__main__":
    main()
