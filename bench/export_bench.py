"""`requests list --all` and `requests export --format csv` of one month, read only.

    python bench/export_bench.py --redis-url redis://127.0.0.1:6391/0 --month 2025-03 [--runs 3]

Times the two commands' own streaming paths (request_pages.iter_table_pages, request_pages.iter_csv_pages
and ExportWriter, as bot/cli.py runs them, into memory instead of a terminal) on a Redis that
bench/scale_bench.py filled and kept (`--redis-url`), for the 10,000-person organisation it
generates: wall seconds and this process's CPU µs per row, min / median / max of --runs, and
each output's SHA-256 (to compare before and after a change). It changes no request
(scale_bench's --measure-only submits requests to measure them); a closed month is kept by
its first whole-month list or export (bot/month_rows.py): `kept_at_start` says whether it
was, and `*_first` give the first run apart. The machine may be shared: CPU per row is the
figure that does not wait for a core.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import io
import json
import os
import sys
import time
from collections.abc import Awaitable, Callable
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.scale_bench import META, _runs  # noqa: E402
from bench.scale_org import org_config  # noqa: E402
from bot import heap, request_pages, request_rows  # noqa: E402
from workflow.clock import FixedClock  # noqa: E402
from workflow.engine import Engine  # noqa: E402
from workflow.store import connect  # noqa: E402


async def fill_engine(redis_url: str) -> tuple[Engine, dict[str, str]]:
    """An engine on a Redis bench/scale_bench.py filled, for the organisation it generated,
    and the fill's note; then the heap settled, as the CLI and the worker settle it once the
    organisation is loaded (bot/heap.py)."""
    client = connect(redis_url)
    fill = await client.hgetall(META)
    if not fill:
        raise SystemExit(f"{redis_url} holds no scale_bench fill (no key {META})")
    engine = Engine(
        org_config(int(fill["people"]), org_id="scalebench"), client, FixedClock(datetime.now())
    )
    heap.settle()
    return engine, fill


def cli(doc: str | None, run: Callable[[argparse.Namespace], Awaitable[dict[str, Any]]]) -> None:
    """A month bench's command line (--redis-url, --month, --runs): prints what `run` finds."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--redis-url", required=True, help="a Redis scale_bench filled")
    parser.add_argument("--month", required=True, help="YYYY-MM, of the fill's simulated dates")
    parser.add_argument("--runs", type=int, default=3)
    print(json.dumps(asyncio.run(run(parser.parse_args())), indent=1))


async def run(args: argparse.Namespace) -> dict[str, Any]:
    engine, fill = await fill_engine(args.redis_url)
    client = engine.store.redis
    first = date.fromisoformat(args.month + "-01")
    last = (first + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    month: request_pages.Filters = {"since": first, "until": last, "status": None, "process": None}
    out: dict[str, Any] = {"month": args.month, "requests_in_redis": int(fill.get("made", 0))}
    out["kept_at_start"] = bool(await client.exists(engine.keys.month_rows(args.month)))
    walls: dict[str, list[float]] = {"list": [], "export": []}
    cpus: dict[str, list[float]] = {"list": [], "export": []}
    rows, digests = 0, set()
    for _ in range(args.runs):
        t, c = time.perf_counter(), time.process_time()
        sink, rows = io.StringIO(), 0
        async for _, lines in request_pages.iter_table_pages(engine, **month):
            sink.write("".join([line + "\n" for line in lines]))
            rows += len(lines)
        walls["list"].append(time.perf_counter() - t)
        cpus["list"].append(time.process_time() - c)
        t, c = time.perf_counter(), time.process_time()
        csv_out = io.StringIO()
        writer = request_rows.ExportWriter(engine, csv_out, "csv", False)
        async for page in request_pages.iter_csv_pages(engine, **month, with_reasons=False):
            writer.write_lines(page)
        walls["export"].append(time.perf_counter() - t)
        cpus["export"].append(time.process_time() - c)
        digests.add((_digest(sink), _digest(csv_out)))
    await client.aclose()
    out["rows"] = rows
    # the outputs' SHA-256: a change that makes either faster must leave both as they were
    [(out["list_sha256"], out["export_sha256"])] = digests
    for name in ("list", "export"):
        out[f"{name}_first_s"] = round(walls[name][0], 3)
        out[f"{name}_first_cpu_us_per_row"] = round(cpus[name][0] * 1e6 / max(rows, 1), 3)
        out[f"{name}_s"] = _runs(walls[name])
        out[f"{name}_cpu_us_per_row"] = _runs([x * 1e6 / max(rows, 1) for x in cpus[name]])
    out["load_average"] = [round(x, 1) for x in os.getloadavg()]
    return out


def _digest(text: io.StringIO) -> str:
    return hashlib.sha256(text.getvalue().encode()).hexdigest()[:16]


def main() -> None:
    cli(__doc__, run)


if __name__ == "__main__":
    main()
