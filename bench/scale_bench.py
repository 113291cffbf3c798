"""Scale benchmark: a 10,000-person organisation and a Redis filled with its history.

    python bench/scale_bench.py [--people 10000] [--requests 100000] [--checkpoints 1000,100000]
                                [--port 6408] [--concurrency 16] [--samples 200] [--out FILE]

Starts its OWN redis-server (loopback port --port, a temporary folder, no persistence,
maxmemory 3.5 GB), generates the organisation (bench/scale_org.py: a manager tree 5–6 deep,
CN/GB/US), and fills Redis through the engine's own API (prepare_submit → confirm →
decide) with leave and expense requests spread over two years of simulated time: ~85% are
decided (one in ten rejected), the rest stay pending. At each checkpoint (and at the end)
it measures, on the filled store:

- confirm (submit) and decide, p50/p99, on fresh leave requests;
- who's out this week for a team and for the whole organisation;
- my pending approvals, balances and my requests;
- `requests list` and `requests export --format csv` of the last full month (streamed);
- Redis used_memory, per request, also without the pending actions (which expire in 8 days);
- the fill rate of this one process: requests/s and transitions (submits and decisions)/s.

It also times loading the organisation file with 10,000 people and `approvals-bot people --json`.
Prints ONE JSON object (and writes it to --out), then a table of the figures with the
slope of each latency per 100,000 requests between the first and last checkpoint.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "bench"))

from _rig import RedisServer, quantile  # noqa: E402

from bench.scale_org import org_config, org_toml  # noqa: E402
from bot import admin  # noqa: E402
from bot.logs import configure_logging  # noqa: E402
from workflow.clock import FixedClock  # noqa: E402
from workflow.config import load_config  # noqa: E402
from workflow.engine import Engine  # noqa: E402
from workflow.errors import WorkflowError  # noqa: E402
from workflow.models import RequestStatus  # noqa: E402
from workflow.store import connect  # noqa: E402

T = TypeVar("T")
START = datetime(2025, 1, 6, 9, 0)  # the fill's first simulated day; it spans two years
SPAN = timedelta(days=730)


def pct(values_ms: list[float]) -> dict[str, float]:
    return {"p50": round(quantile(values_ms, 0.5), 2), "p99": round(quantile(values_ms, 0.99), 2)}


class OwnRedis(RedisServer):
    """A private redis-server for this run on a fixed port, never the shared one; removed at the end."""

    def __init__(self, port: int, maxmemory: str = "3500mb") -> None:
        super().__init__()  # picks a free port; --port 0 keeps it
        self.maxmemory = maxmemory
        if port:
            self.port = port

    def __enter__(self) -> OwnRedis:
        self.start()
        import redis as sync_redis

        client = sync_redis.Redis(port=self.port)
        client.config_set("maxmemory", self.maxmemory)
        client.config_set("maxmemory-policy", "noeviction")
        client.close()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


class Driver:
    """Fills the store through the engine and times what the issue's table asks for."""

    def __init__(self, engine: Engine, clock: FixedClock, total: int, seed: int = 16) -> None:
        self.engine, self.clock, self.total = engine, clock, total
        self.rng = random.Random(seed)
        d = engine.directory
        self.people = [p.id for p in d if p.manager]  # everyone but the CEO has an approver
        self.managers = sorted({p.manager for p in d if p.manager})
        self.teams = sorted({d.team_of(p) for p in self.people})
        self.made = 0
        self.engine_s = 0.0
        self.transitions = 0
        self.refused = 0

    def set_time(self, i: int) -> None:
        # two years for a big fill; a small one moves ~10 minutes a request, so that a card
        # confirmed by one worker while others move the clock has not aged out
        span = min(SPAN, timedelta(minutes=10) * self.total)
        target = START + span * (i / max(self.total, 1))
        self.clock._offset = target - self.clock.at  # FixedClock keeps wall time per zone

    async def timed(self, op: Awaitable[T]) -> T:
        t = time.perf_counter()
        try:
            return await op
        finally:
            self.engine_s += time.perf_counter() - t

    def leave_fields(self, person: str) -> dict[str, Any]:
        today = self.engine.today_for(person)
        start = today + timedelta(days=self.rng.randint(1, 60))
        days = self.rng.choice((0, 0, 1, 1, 2))
        kind = self.rng.choice(("annual", "annual", "sick", "unpaid"))
        return {
            "leave_type": kind,
            "start": start.isoformat(),
            "end": (start + timedelta(days=days)).isoformat(),
        }

    def expense_fields(self, person: str) -> dict[str, Any]:
        today = self.engine.today_for(person)
        return {
            "amount": round(
                self.rng.choice((self.rng.uniform(20, 900),) * 4 + (self.rng.uniform(1000, 3000),)),
                2,
            ),
            "currency": "CNY",
            "category": "travel",
            "spent_on": (today - timedelta(days=self.rng.randint(0, 20))).isoformat(),
            "description": "taxi to the customer",
        }

    async def one(self, decide: bool = True) -> Any:
        """One request through the engine: prepared, confirmed and (usually) decided."""
        e = self.engine
        person = self.rng.choice(self.people)
        leave = self.rng.random() < 0.45
        fields = self.leave_fields(person) if leave else self.expense_fields(person)
        try:
            p = await self.timed(e.prepare_submit(person, "leave" if leave else "expense", fields))
        except WorkflowError:
            if not leave:
                raise
            self.refused += 1  # overlapping days or no balance left: an expense instead
            p = await self.timed(e.prepare_submit(person, "expense", self.expense_fields(person)))
        try:
            out = await self.timed(e.confirm(p.pending.id, person))
        except WorkflowError:  # a concurrent request took the days, or the card aged out
            self.refused += 1
            return None
        self.transitions += 1
        req = out.request
        self.made += 1
        if not decide or self.rng.random() < 0.15:
            return req
        while req.status is RequestStatus.PENDING:
            step = req.open_step()
            verdict = "reject" if self.rng.random() < 0.1 else "approve"
            req = await self.timed(
                e.decide(
                    req.id,
                    step.index,
                    step.assignee,
                    verdict,
                    "no" if verdict == "reject" else None,
                )
            )
            self.transitions += 1
        return req

    async def fill(self, upto: int, concurrency: int) -> dict[str, float]:
        start_made, start_tr = self.made, self.transitions
        t0, cpu0 = time.perf_counter(), time.process_time()
        queue = iter(range(self.made, upto))

        async def worker() -> None:
            for i in queue:
                self.set_time(i)
                await self.one()

        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - t0
        made = self.made - start_made
        tr = self.transitions - start_tr
        return {
            "requests": made,
            "wall_s": round(wall, 1),
            "requests_per_s": round(made / wall, 1) if wall else 0.0,
            "transitions_per_s": round(tr / wall, 1) if wall else 0.0,
            "cpu_s": round(time.process_time() - cpu0, 1),
        }

    async def sample(self, n: int, op: Callable[[], Awaitable[Any]]) -> dict[str, float]:
        """Wall p50/p99 of `n` calls, and this process's CPU per call (the machine is shared:
        wall time includes waiting for a core, CPU time does not)."""
        out, cpu0 = [], time.process_time()
        for _ in range(n):
            t = time.perf_counter()
            await op()
            out.append((time.perf_counter() - t) * 1000)
        return {**pct(out), "cpu_ms": round((time.process_time() - cpu0) * 1000 / max(n, 1), 2)}

    async def measure(self, samples: int) -> dict[str, Any]:
        e, rng = self.engine, self.rng
        confirm_ms, decide_ms, pending = [], [], []
        confirm_cpu = decide_cpu = 0.0
        for _ in range(samples):  # fresh leave requests, submitted then decided
            person = rng.choice(self.people)
            try:
                p = await e.prepare_submit(person, "leave", self.leave_fields(person))
            except WorkflowError:
                continue
            t, c = time.perf_counter(), time.process_time()
            out = await e.confirm(p.pending.id, person)
            confirm_ms.append((time.perf_counter() - t) * 1000)
            confirm_cpu += time.process_time() - c
            self.made += 1
            if out.request.status is RequestStatus.PENDING:
                pending.append(out.request)
        for req in pending:
            step = req.open_step()
            t, c = time.perf_counter(), time.process_time()
            await e.decide(req.id, step.index, step.assignee, "approve")
            decide_ms.append((time.perf_counter() - t) * 1000)
            decide_cpu += time.process_time() - c
        d = e.directory
        today = e.today_for(self.people[0])
        monday = today - timedelta(days=today.weekday())
        friday = monday + timedelta(days=4)

        async def team_out() -> Any:
            team = rng.choice(self.teams)
            return await e.who_is_out(d.team_members(team)[0].id, monday, friday, team=team)

        async def org_out() -> Any:
            return await e.who_is_out(self.people[0], monday, friday)

        result: dict[str, Any] = {
            "confirm_submit_ms": {
                **pct(confirm_ms),
                "cpu_ms": round(confirm_cpu * 1000 / max(len(confirm_ms), 1), 2),
            },
            "decide_ms": {
                **pct(decide_ms),
                "cpu_ms": round(decide_cpu * 1000 / max(len(decide_ms), 1), 2),
            },
            "whos_out_team_week_ms": await self.sample(samples, team_out),
            "whos_out_org_week_ms": await self.sample(max(samples // 4, 20), org_out),
            "my_approvals_ms": await self.sample(
                samples, lambda: e.my_approvals(rng.choice(self.managers))
            ),
            "balances_ms": await self.sample(samples, lambda: e.balances(rng.choice(self.people))),
            "my_requests_ms": await self.sample(
                samples, lambda: e.my_requests(rng.choice(self.people))
            ),
        }
        first = (today.replace(day=1) - timedelta(days=1)).replace(day=1)
        last = today.replace(day=1) - timedelta(days=1)
        runs_list, runs_export, rows = [], [], 0
        for _ in range(3):
            t = time.perf_counter()
            sink, rows = io.StringIO(), 0
            async for _, r in admin.iter_requests(
                e, since=first, until=last, status=None, process=None
            ):
                sink.write(admin.table_line(e, r) + "\n")
                rows += 1
            runs_list.append(time.perf_counter() - t)
            t = time.perf_counter()
            writer = admin.ExportWriter(e, io.StringIO(), "csv", False)
            async for _, r in admin.iter_requests(
                e, since=first, until=last, status=None, process=None
            ):
                writer.write(r)
            runs_export.append(time.perf_counter() - t)
        result["month"] = {"from": first.isoformat(), "to": last.isoformat(), "requests": rows}
        result["requests_list_month_s"] = _runs(runs_list)
        result["requests_export_csv_month_s"] = _runs(runs_export)
        return result


def _runs(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"min": round(xs[0], 3), "median": round(xs[len(xs) // 2], 3), "max": round(xs[-1], 3)}


async def memory(url: str, requests: int, baseline: int) -> dict[str, Any]:
    client = connect(url)
    try:
        info = await client.info("memory")
        used = int(info["used_memory"])
        pending_bytes = 0
        async for key in client.scan_iter(match="*:pending:*", count=1000):
            pending_bytes += int(await client.memory_usage(key) or 0)
        outbox = 0
        async for key in client.scan_iter(match="*:outbox", count=1000):
            outbox += int(await client.memory_usage(key, samples=0) or 0)
        return {
            "used_memory": used,
            "used_memory_human": info.get("used_memory_human"),
            "bytes_per_request": round((used - baseline) / max(requests, 1)),
            "bytes_per_request_without_pending_actions_and_outbox": round(
                (used - baseline - pending_bytes - outbox) / max(requests, 1)
            ),
            "pending_actions_bytes": pending_bytes,
            "outbox_bytes": outbox,
        }
    finally:
        await client.aclose()


def org_file_figures(people: int) -> dict[str, Any]:
    """Loading the organisation file with `people` people, and `approvals-bot people --json`."""
    with tempfile.TemporaryDirectory(prefix="scale-org-") as tmp:
        path = Path(tmp) / "org.toml"
        path.write_text(org_toml(people), "utf-8")
        loads = []
        for _ in range(3):
            t = time.perf_counter()
            load_config(path)
            loads.append(time.perf_counter() - t)
        cli = []
        env = {**os.environ, "APPROVALS_CONFIG": str(path), "LOG_LEVEL": "warning"}
        env.pop("REDIS_URL", None)
        for _ in range(3):
            t = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "bot.cli", "people", "--json"],
                cwd=ROOT,
                env=env,
                stdout=subprocess.DEVNULL,
                check=True,
            )
            cli.append(time.perf_counter() - t)
    return {"load_org_file_s": _runs(loads), "people_json_s": _runs(cli)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    config = org_config(args.people, org_id="scalebench")
    clock = FixedClock(START)
    result: dict[str, Any] = {"people": args.people, "machine": {"cpus": os.cpu_count()}}
    if not args.skip_org_file:
        result.update(org_file_figures(args.people))
    with OwnRedis(args.port) as server:
        client = connect(server.url)
        engine = Engine(config, client, clock)
        baseline = int((await client.info("memory"))["used_memory"])
        driver = Driver(engine, clock, args.requests)
        checkpoints = sorted({c for c in args.checkpoints if c < args.requests} | {args.requests})
        result["checkpoints"] = []
        for at in checkpoints:
            fill = await driver.fill(at, args.concurrency)
            mem = await memory(server.url, driver.made, baseline)
            figures = await driver.measure(args.samples)
            point = {"requests": driver.made, "fill": fill, "memory": mem, **figures}
            result["checkpoints"].append(point)
            print(json.dumps(point), file=sys.stderr, flush=True)
        result["refused_leave_became_expense"] = driver.refused
        await client.aclose()
    result["slopes_ms_per_100k_requests"] = slopes(result["checkpoints"])
    return result


LATENCIES = (
    "confirm_submit_ms",
    "decide_ms",
    "whos_out_team_week_ms",
    "whos_out_org_week_ms",
    "my_approvals_ms",
    "balances_ms",
    "my_requests_ms",
)


def slopes(points: list[dict[str, Any]]) -> dict[str, float]:
    if len(points) < 2:
        return {}
    a, b = points[0], points[-1]
    span = (b["requests"] - a["requests"]) / 100_000
    out = {f"{k}.p50": round((b[k]["p50"] - a[k]["p50"]) / span, 3) for k in LATENCIES}
    out |= {f"{k}.p99": round((b[k]["p99"] - a[k]["p99"]) / span, 3) for k in LATENCIES}
    out |= {f"{k}.cpu_ms": round((b[k]["cpu_ms"] - a[k]["cpu_ms"]) / span, 3) for k in LATENCIES}
    out["requests_export_csv_month_s_per_100k"] = round(
        (b["requests_export_csv_month_s"]["median"] - a["requests_export_csv_month_s"]["median"])
        / span,
        4,
    )
    return out


def table(result: dict[str, Any]) -> str:
    pts = result["checkpoints"]
    head = "| figure | " + " | ".join(f"at {p['requests']:,} requests" for p in pts) + " |"
    rows = [head, "|" + "---|" * (len(pts) + 1)]

    def row(name: str, cell: Callable[[dict[str, Any]], str]) -> None:
        rows.append(f"| {name} | " + " | ".join(cell(p) for p in pts) + " |")

    for key, name in (
        ("confirm_submit_ms", "confirm (submit), p50 / p99 ms (CPU ms per call)"),
        ("decide_ms", "decide, p50 / p99 ms"),
        ("whos_out_team_week_ms", "who's out this week (a team), p50 / p99 ms"),
        ("whos_out_org_week_ms", "who's out this week (whole org), p50 / p99 ms"),
        ("my_approvals_ms", "my pending approvals, p50 / p99 ms"),
        ("balances_ms", "balances, p50 / p99 ms"),
        ("my_requests_ms", "my requests, p50 / p99 ms"),
    ):
        row(name, lambda p, k=key: f"{p[k]['p50']} / {p[k]['p99']} (CPU {p[k]['cpu_ms']})")
    row(
        "`requests list` / `export --format csv`, one month (median s; rows)",
        lambda p: (
            f"{p['requests_list_month_s']['median']} / {p['requests_export_csv_month_s']['median']} ({p['month']['requests']:,})"
        ),
    )
    row("Redis used_memory", lambda p: p["memory"]["used_memory_human"])
    row(
        "bytes per request (as filled / without pending actions and outbox)",
        lambda p: (
            f"{p['memory']['bytes_per_request']:,} / {p['memory']['bytes_per_request_without_pending_actions_and_outbox']:,}"
        ),
    )
    row(
        "fill (one process): requests/s · transitions/s",
        lambda p: f"{p['fill']['requests_per_s']} · {p['fill']['transitions_per_s']}",
    )
    lines = rows
    if "load_org_file_s" in result:
        lines.append("")
        lines.append(
            f"loading the organisation file ({result['people']:,} people), min/median/max s: "
            f"{result['load_org_file_s']}; `approvals-bot people --json`: {result['people_json_s']}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=100_000)
    parser.add_argument(
        "--checkpoints", type=lambda s: [int(x) for x in s.split(",") if x], default=[1_000, 10_000]
    )
    parser.add_argument("--port", type=int, default=6408)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--skip-org-file", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    configure_logging("warning", "console")
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", "utf-8")
    print(table(result), file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
