"""Run `approvals-bot <command>` with two bench-only additions, nothing else changed:

- every Redis round trip is counted (one `send_packed_command` = one request on the wire,
  whether it carries one command or a whole pipeline; single Redis and Redis Cluster alike);
- each finished pass of the scheduler's daily and weekly jobs is counted (a worker's first one
  seeds the due index and checks every person's digest: the rig waits for it before it
  measures, so that start-up work is not counted as the turns');
- the counts, with the process's CPU and memory, are served in the Prometheus text format on
  BENCH_METRICS_PORT (prometheus_client's own HTTP server, in a thread), because the worker
  has no HTTP endpoint of its own. The serve process still has its real /metrics.

    BENCH_METRICS_PORT=9101 python bench/_instrument.py serve
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prometheus_client import Counter, start_http_server
from redis.asyncio.connection import AbstractConnection

ROUND_TRIPS = Counter(
    "bench_redis_round_trips_total", "Requests written to Redis (a pipeline counts once)."
)

_send = AbstractConnection.send_packed_command


async def _counted_send(self, command, check_health=True):  # type: ignore[no-untyped-def]
    ROUND_TRIPS.inc()
    return await _send(self, command, check_health)


AbstractConnection.send_packed_command = _counted_send  # type: ignore[method-assign]

SCHEDULER_PASSES = Counter(
    "bench_scheduler_passes_total", "Passes of the scheduler's periodic jobs finished."
)


def _count_scheduler_passes() -> None:
    from workflow.scheduler import Scheduler

    periodic = Scheduler.periodic

    async def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        try:
            return await periodic(self, *args, **kwargs)
        finally:
            SCHEDULER_PASSES.inc()

    Scheduler.periodic = counted  # type: ignore[method-assign]


def main() -> int:
    port = int(os.environ.get("BENCH_METRICS_PORT") or 0)
    if port:
        start_http_server(port, addr="127.0.0.1")
    _count_scheduler_passes()
    from bot.cli import main as cli_main

    return cli_main(sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
