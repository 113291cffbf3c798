"""Scale benchmark: a 10,000-person organisation and a Redis filled with its history.

    python bench/scale_bench.py --requests 1000000 --checkpoints 1000,100000 [--minutes 60]
                                [--people 10000] [--concurrency 64] [--samples 200] [--out FILE]

Starts its OWN redis-server (a free loopback port unless --port, a temporary folder,
`--save "" --appendonly no`, maxmemory --maxmemory), generates the organisation
(bench/scale_org.py: a manager tree 5–6 deep, CN/GB/US), and fills Redis through the engine's
own API with leave and expense requests spread over two years of simulated time.

What the filling driver does, exactly: for each request, `Engine.prepare_submit` (validate,
store the draft and its pending action), `Engine.confirm` (what the requester's click runs:
read the pending action, submit), then `Engine.decide` for each step by its assignee; ~85%
are decided (one in ten rejected), the rest stay pending. --concurrency such requests run at
once in one process, and the fill's engine is built with `coalesce=True`: the round trips
that concurrent transitions start in the same turn of the event loop go to Redis as one
pipeline (each transition still reads in one round trip and writes with its own guarded Lua
script; see workflow/store.py). Latencies are measured on a second engine without it, as
`serve` runs, one call at a time.

At each checkpoint (and at the end, or when --minutes of filling have passed) it measures:

- confirm (submit) and decide, p50/p99 and CPU per call, on fresh leave requests;
- who's out this week for a team, and the first page of the whole organisation's (and, apart,
  reading the whole list page by page, which nothing in the product does);
- my pending approvals, balances and my requests;
- `requests list` and `requests export --format csv` of the last full month (streamed);
- Redis used_memory, per request, also without the pending actions (which expire in 8 days);
- the fill: requests/s and transitions (submits and decisions)/s, the CPU per transition of
  the filling process and of Redis, and the load average (the machine may be shared).

It also times loading the organisation file with 10,000 people and `approvals-bot people --json`.

`--peak-week 300,3000,8000` fills nothing: it books that many people out in one week (in
turn, through the index writes the transitions make) and times who's out that week at each
size: the whole organisation's first and last page (wall, this process's CPU and Redis's),
a team's, and, apart, reading the whole list page by page.

Fill once, measure later: with --redis-url the bench uses a Redis you started (e.g.
`redis-server --port 6391 --save "" --appendonly no --dir /tmp/x`) instead of its own, and
leaves it filled. It notes in that Redis how far the fill got (the key `scalebench:fill`), so
running it again resumes the fill where it stopped, and --measure-only measures the Redis as
the fill left it (at the fill's simulated date) without filling. It refuses a Redis that holds
other keys.
Prints ONE JSON object (and writes it to --out), then a table of every figure with, per
latency, p99 at the last checkpoint over p99 at the first (flat: ~1) and the slope per
100,000 requests.
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
from bot import request_pages, request_rows  # noqa: E402
from bot.logs import configure_logging  # noqa: E402
from workflow import whos_out  # noqa: E402
from workflow.clock import FixedClock  # noqa: E402
from workflow.config import load_config  # noqa: E402
from workflow.engine import Engine  # noqa: E402
from workflow.errors import WorkflowError  # noqa: E402
from workflow.models import RequestStatus  # noqa: E402
from workflow.queries import OUT_PAGE  # noqa: E402
from workflow.store import Tx, connect  # noqa: E402

T = TypeVar("T")
META = "scalebench:fill"  # the bench's own note of a kept fill: never a key the bot reads
START = datetime(2025, 1, 6, 9, 0)  # the fill's first simulated day; it spans two years
SPAN = timedelta(days=730)


def pct(values_ms: list[float]) -> dict[str, float]:
    return {"p50": round(quantile(values_ms, 0.5), 2), "p99": round(quantile(values_ms, 0.99), 2)}


async def sample(n: int, op: Callable[[], Awaitable[Any]]) -> dict[str, float]:
    """Wall p50/p99 of `n` calls, and this process's CPU per call (the machine is shared:
    wall time includes waiting for a core, CPU time does not)."""
    out, cpu0 = [], time.process_time()
    for _ in range(n):
        t = time.perf_counter()
        await op()
        out.append((time.perf_counter() - t) * 1000)
    return {**pct(out), "cpu_ms": round((time.process_time() - cpu0) * 1000 / max(n, 1), 3)}


class OwnRedis(RedisServer):
    """A private redis-server for this run on a fixed port, never the shared one; removed at the end."""

    def __init__(self, port: int, maxmemory: str = "8gb") -> None:
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

    def __init__(
        self,
        engine: Engine,
        clock: FixedClock,
        total: int,
        seed: int = 16,
        *,
        filler: Engine,
        made: int = 0,
        transitions: int = 0,
        days: int = 0,
    ) -> None:
        # `engine` answers the measured calls as serve would; `filler` (coalescing) fills
        self.engine, self.filler, self.clock, self.total = engine, filler, clock, total
        # a resumed fill draws other people than the first run did from the same point
        self.rng = random.Random(seed + made)
        d = engine.directory
        self.people = [p.id for p in d if p.manager]  # everyone but the CEO has an approver
        self.managers = sorted({p.manager for p in d if p.manager})
        self.teams = sorted({d.team_of(p) for p in self.people})
        self.made = made
        self.engine_s = 0.0
        self.transitions = transitions
        self.days = days
        self.refused = 0

    def set_time(self, i: int) -> None:
        # two years for a big fill (or --days); a small one moves ~10 minutes a request, so that
        # a card confirmed by one worker while others move the clock has not aged out
        span = timedelta(days=self.days) or min(SPAN, timedelta(minutes=10) * self.total)
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
        e = self.filler
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

    async def fill(
        self,
        upto: int,
        concurrency: int,
        deadline: float,
        note: Callable[[], Awaitable[None]] | None = None,
    ) -> dict[str, float]:
        """Fill up to `upto` requests, or until time.monotonic() passes `deadline`; `note`
        records the progress every 15 s, so a fill that dies can resume."""
        start_made, start_tr = self.made, self.transitions
        redis_cpu0 = await redis_cpu_s(self.engine)
        t0, cpu0 = time.perf_counter(), time.process_time()
        queue = iter(range(self.made, upto))

        async def worker() -> None:
            for i in queue:
                if time.monotonic() > deadline:
                    return
                self.set_time(i)
                await self.one()

        async def noting() -> None:
            while note is not None:
                await asyncio.sleep(15)
                await note()

        noter = asyncio.create_task(noting())
        try:
            await asyncio.gather(*(worker() for _ in range(concurrency)))
        finally:
            noter.cancel()
        if note is not None:
            await note()
        wall = time.perf_counter() - t0
        cpu = time.process_time() - cpu0
        redis_cpu = await redis_cpu_s(self.engine) - redis_cpu0
        made = self.made - start_made
        tr = self.transitions - start_tr
        return {
            "requests": made,
            "transitions": tr,
            "wall_s": round(wall, 1),
            "requests_per_s": round(made / wall, 1) if wall else 0.0,
            "transitions_per_s": round(tr / wall, 1) if wall else 0.0,
            "cpu_s": round(cpu, 1),
            "cpu_ms_per_transition": round(cpu * 1000 / max(tr, 1), 3),
            "transitions_per_cpu_s": round(tr / cpu, 1) if cpu else 0.0,
            "redis_cpu_ms_per_transition": round(redis_cpu * 1000 / max(tr, 1), 3),
            "load_average": [round(x, 1) for x in os.getloadavg()],
        }

    async def sample(self, n: int, op: Callable[[], Awaitable[Any]]) -> dict[str, float]:
        return await sample(n, op)

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

        async def org_out() -> Any:  # its first page, as a person asking is shown
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
            "whos_out_org_week_people": (await org_out()).total,
            "whos_out_org_week_all_pages": await whole_list(e, self.people[0], monday, friday),
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
        runs_list, runs_page, runs_export, cpu_list, cpu_export, rows = [], [], [], [], [], 0
        month = {"since": first, "until": last, "status": None, "process": None}
        for _ in range(3):
            t, c = time.perf_counter(), time.process_time()  # `requests list --all`, streamed
            sink, rows = io.StringIO(), 0
            async for _, lines in request_pages.iter_table_pages(e, **month):
                sink.write("".join([line + "\n" for line in lines]))
                rows += len(lines)
            runs_list.append(time.perf_counter() - t)
            cpu_list.append(time.process_time() - c)
            t, shown = time.perf_counter(), 0  # `requests list`: its first page
            async for _, line in request_pages.iter_table_lines(
                e, **month, page=request_pages.LIST_PAGE + 1
            ):
                if shown == request_pages.LIST_PAGE:
                    break
                sink.write(line + "\n")
                shown += 1
            runs_page.append(time.perf_counter() - t)
            t, c = time.perf_counter(), time.process_time()
            writer = request_rows.ExportWriter(e, io.StringIO(), "csv", False)
            async for page in request_pages.iter_csv_pages(e, **month, with_reasons=False):
                writer.write_lines(page)
            runs_export.append(time.perf_counter() - t)
            cpu_export.append(time.process_time() - c)
        # this process's CPU per row: on a shared machine, the figure that does not wait
        result["requests_list_month_cpu_us_per_row"] = _runs(
            [x * 1e6 / max(rows, 1) for x in cpu_list]
        )
        result["requests_export_csv_month_cpu_s"] = _runs(cpu_export)
        result["requests_export_csv_month_cpu_us_per_row"] = _runs(
            [x * 1e6 / max(rows, 1) for x in cpu_export]
        )
        result["month"] = {"from": first.isoformat(), "to": last.isoformat(), "requests": rows}
        result["requests_list_month_s"] = _runs(runs_list)
        result["requests_list_first_page_s"] = _runs(runs_page)
        result["requests_export_csv_month_s"] = _runs(runs_export)
        for key in ("requests_list_month", "requests_export_csv_month"):
            median = result[f"{key}_s"]["median"]
            result[f"{key}_rows_per_s"] = round(rows / median) if median else 0
        return result


async def whole_list(engine: Engine, viewer: str, start: Any, end: Any) -> dict[str, Any]:
    """Reading everyone out from `start` to `end` page by page (nothing in the product does:
    a person is shown the first page and how to narrow it), 3 runs: seconds, and this
    process's CPU µs per person out."""
    runs, cpu = [], []
    people = 0
    for _ in range(3):
        t, c, offset, people = time.perf_counter(), time.process_time(), 0, 0
        while offset is not None:
            page = await engine.who_is_out(viewer, start, end, offset=offset)
            people += len(page.entries)
            offset = page.next_offset
        runs.append(time.perf_counter() - t)
        cpu.append((time.process_time() - c) * 1e6 / max(people, 1))
    return {"s": _runs(runs), "cpu_us_per_person": _runs(cpu), "people": people}


def _runs(xs: list[float]) -> dict[str, float]:
    xs = sorted(xs)
    return {"min": round(xs[0], 3), "median": round(xs[len(xs) // 2], 3), "max": round(xs[-1], 3)}


async def redis_cpu_s(engine: Engine) -> float:
    info = await engine.store.redis.info("cpu")
    return float(info["used_cpu_user"]) + float(info["used_cpu_sys"])


async def memory(url: str, requests: int, baseline: int) -> dict[str, Any]:
    client = connect(url)
    try:
        info = await client.info("memory")
        used = int(info["used_memory"])
        # every pending action is counted, and the first 2,000 weighed (MEMORY USAGE on a
        # million keys would take minutes): their mean times the count
        pending, weighed = 0, []
        async for key in client.scan_iter(match="*:pending:*", count=10_000):
            pending += 1
            if len(weighed) < 2_000:
                weighed.append(int(await client.memory_usage(key) or 0))
        pending_bytes = round(sum(weighed) / max(len(weighed), 1) * pending)
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


async def peak_weeks(args: argparse.Namespace, url: str, result: dict[str, Any]) -> None:
    """--peak-week: no fill; book more and more people out in one week, through the index
    writes transitions make (whos_out.write), and time who's out that week at each size."""
    config = org_config(args.people, org_id="scalebench")
    clock = FixedClock(START)
    client = connect(url)
    if await client.dbsize():
        raise SystemExit(f"--peak-week needs an empty Redis; {url} holds keys")
    engine, rng = Engine(config, client, clock), random.Random(16)
    d = engine.directory
    people = [p.id for p in d if p.manager]
    rng.shuffle(people)
    viewer = people[0]
    monday = engine.today_for(viewer) - timedelta(days=engine.today_for(viewer).weekday())
    friday = monday + timedelta(days=4)
    teams = sorted({d.team_of(p) for p in people})
    booked, result["peak_weeks"] = 0, []
    memory0 = int((await client.info("memory"))["used_memory"])
    for size in sorted(args.peak_week):
        while booked < min(size, len(people)):  # 250 leaves a write
            tx = Tx()
            for i in range(booked, min(booked + 250, size, len(people))):
                start = monday + timedelta(days=i % 9 - 4)  # from the Thursday before to Friday
                end = max(start + timedelta(days=i % 4), monday)
                whos_out.write(
                    tx,
                    engine.keys,
                    person=people[i],
                    name=d.get(people[i]).name,
                    team=d.team_of(people[i]),
                    request_id=f"R-PEAK{i:06d}",
                    fields={"start": start.isoformat(), "end": end.isoformat()},
                    booked=True,
                    tentative=i % 3 == 0,
                    now=clock.now(),
                )
                booked += 1
            await engine.store.apply(tx)
        first = await engine.who_is_out(viewer, monday, friday)
        last_offset = max(first.total - OUT_PAGE, 0)

        async def team_out() -> Any:
            team = rng.choice(teams)
            return await engine.who_is_out(d.team_members(team)[0].id, monday, friday, team)

        redis0 = await redis_cpu_s(engine)
        first_page = await sample(args.samples, lambda: engine.who_is_out(viewer, monday, friday))
        redis_us = (await redis_cpu_s(engine) - redis0) * 1e6 / args.samples
        used = int((await client.info("memory"))["used_memory"]) - memory0
        point = {
            "people_out": first.total,
            # the leaves' team week buckets, organisation day indexes and member hashes
            "whos_out_bytes_per_leave": round(used / max(booked, 1)),
            "whos_out_org_week_ms": first_page,
            "whos_out_org_week_redis_cpu_us": round(redis_us, 1),
            "whos_out_org_week_last_page_ms": await sample(
                args.samples,
                lambda at=last_offset: engine.who_is_out(viewer, monday, friday, offset=at),
            ),
            "whos_out_team_week_ms": await sample(args.samples, team_out),
            "whos_out_org_week_all_pages": await whole_list(engine, viewer, monday, friday),
            "load_average": [round(x, 1) for x in os.getloadavg()],
        }
        result["peak_weeks"].append(point)
        print(json.dumps(point), file=sys.stderr, flush=True)
    await client.aclose()


def peak_table(result: dict[str, Any]) -> str:
    pts = result["peak_weeks"]
    rows = [
        "| who's out this week | " + " | ".join(f"{p['people_out']:,} out" for p in pts) + " |",
        "|" + "---|" * (len(pts) + 1),
    ]

    def ms(p: dict[str, Any], k: str) -> str:
        return f"{p[k]['p50']} / {p[k]['p99']} ({p[k]['cpu_ms']})"

    for key, name in (
        ("whos_out_org_week_ms", "whole org, first page: p50 / p99 ms (CPU ms)"),
        ("whos_out_org_week_last_page_ms", "whole org, last page: p50 / p99 ms (CPU ms)"),
        ("whos_out_team_week_ms", "a team: p50 / p99 ms (CPU ms)"),
    ):
        rows.append(f"| {name} | " + " | ".join(ms(p, key) for p in pts) + " |")
    rows.append(
        "| Redis CPU µs a first page | "
        + " | ".join(str(p["whos_out_org_week_redis_cpu_us"]) for p in pts)
        + " |"
    )
    rows.append(
        "| the whole list in pages (nothing reads it): median s (CPU µs a person) | "
        + " | ".join(
            f"{p['whos_out_org_week_all_pages']['s']['median']} "
            f"({p['whos_out_org_week_all_pages']['cpu_us_per_person']['median']})"
            for p in pts
        )
        + " |"
    )
    rows.append(
        "| Redis memory a leave (team weeks, organisation days, members), bytes | "
        + " | ".join(f"{p['whos_out_bytes_per_leave']:,}" for p in pts)
        + " |"
    )
    rows.append("| load average | " + " | ".join(str(p["load_average"]) for p in pts) + " |")
    return "\n".join(rows)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {"people": args.people, "machine": {"cpus": os.cpu_count()}}
    if args.peak_week:
        if args.redis_url:
            await peak_weeks(args, args.redis_url, result)
        else:
            with OwnRedis(args.port, args.maxmemory) as server:
                await peak_weeks(args, server.url, result)
        return result
    if not args.skip_org_file and not args.measure_only:
        result.update(org_file_figures(args.people))
    if args.redis_url:
        await fill_and_measure(args, args.redis_url, result)
    else:
        with OwnRedis(args.port, args.maxmemory) as server:
            await fill_and_measure(args, server.url, result)
    result["slopes_ms_per_100k_requests"] = slopes(result["checkpoints"])
    return result


async def kept_fill(client: Any, args: argparse.Namespace) -> dict[str, int]:
    """What a previous run left in a kept Redis (`META`), or {} for an empty one."""
    state = {k: int(v) for k, v in (await client.hgetall(META)).items()}
    if not state and await client.dbsize():
        raise SystemExit(
            f"{args.redis_url} holds keys that are not a scale bench fill: give an empty Redis"
        )
    if state and state["people"] != args.people:
        raise SystemExit(
            f"that Redis was filled with --people {state['people']}, not {args.people}"
        )
    if args.measure_only and not state:
        raise SystemExit(f"--measure-only: {args.redis_url} holds no fill to measure")
    return state


async def fill_and_measure(args: argparse.Namespace, url: str, result: dict[str, Any]) -> None:
    config = org_config(args.people, org_id="scalebench")
    clock = FixedClock(START)
    client = connect(url)
    state = await kept_fill(client, args) if args.redis_url else {}
    # the simulated dates follow the first run's size and span
    total = state.get("total", args.requests)
    days = state.get("days", args.days)
    engine = Engine(config, client, clock)
    filler = Engine(config, client, clock, coalesce=not args.no_coalesce)
    baseline = state.get("baseline") or int((await client.info("memory"))["used_memory"])
    driver = Driver(
        engine,
        clock,
        total,
        filler=filler,
        made=state.get("made", 0),
        transitions=state.get("transitions", 0),
        days=days,
    )

    async def note() -> None:
        if args.redis_url:
            await client.hset(
                META,
                mapping={
                    "people": args.people,
                    "total": total,
                    "days": days,
                    "made": driver.made,
                    "transitions": driver.transitions,
                    "baseline": baseline,
                },
            )

    result["checkpoints"] = []
    if args.measure_only:
        driver.set_time(driver.made)
        await measure_point(driver, url, baseline, args.samples, {}, result)
        await note()  # the measured samples are requests too
        await client.aclose()
        return
    if state:
        print(f"resuming a kept fill at {driver.made:,} of {total:,}", file=sys.stderr, flush=True)
    await note()
    checkpoints = sorted({c for c in args.checkpoints if driver.made < c < total} | {total})
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else float("inf")
    for at in checkpoints:
        fill = await driver.fill(at, args.concurrency, deadline, note)
        await measure_point(driver, url, baseline, args.samples, fill, result)
        await note()
        if time.monotonic() > deadline:
            result["stopped"] = f"--minutes {args.minutes} of filling passed at {driver.made:,}"
            break
    result["refused_leave_became_expense"] = driver.refused
    await client.aclose()


async def measure_point(
    driver: Driver,
    url: str,
    baseline: int,
    samples: int,
    fill: dict[str, Any],
    result: dict[str, Any],
) -> None:
    mem = await memory(url, driver.made, baseline)
    figures = await driver.measure(samples)
    point = {
        "requests": driver.made,
        "fill": fill,
        "memory": mem,
        **figures,
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }
    result["checkpoints"].append(point)
    print(json.dumps(point), file=sys.stderr, flush=True)


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
    for k in LATENCIES:
        out[f"{k}.p99_ratio_last_over_first"] = round(b[k]["p99"] / max(a[k]["p99"], 0.001), 2)
    out["requests_export_csv_month_s_per_100k"] = round(
        (b["requests_export_csv_month_s"]["median"] - a["requests_export_csv_month_s"]["median"])
        / span,
        4,
    )
    return out


def _fill_cell(point: dict[str, Any], form: str) -> str:
    # a --measure-only point filled nothing
    return form.format(**point["fill"]) if point["fill"] else "—"


def table(result: dict[str, Any]) -> str:
    pts = result["checkpoints"]
    head = "| figure | " + " | ".join(f"at {p['requests']:,} requests" for p in pts)
    rows = [head + " | p99 last / first |", "|" + "---|" * (len(pts) + 2)]

    def row(name: str, cell: Callable[[dict[str, Any]], str], ratio: str = "") -> None:
        rows.append(f"| {name} | " + " | ".join(cell(p) for p in pts) + f" | {ratio} |")

    ratios = result.get("slopes_ms_per_100k_requests", {})
    for key, name in (
        ("confirm_submit_ms", "confirm (submit), p50 / p99 ms (CPU ms per call)"),
        ("decide_ms", "decide, p50 / p99 ms (CPU ms)"),
        ("whos_out_team_week_ms", "who's out this week (a team), p50 / p99 ms (CPU ms)"),
        (
            "whos_out_org_week_ms",
            "who's out this week (whole org, its first page), p50 / p99 ms (CPU ms)",
        ),
        ("my_approvals_ms", "my pending approvals, p50 / p99 ms (CPU ms)"),
        ("balances_ms", "balances, p50 / p99 ms (CPU ms)"),
        ("my_requests_ms", "my requests, p50 / p99 ms (CPU ms)"),
    ):
        row(
            name,
            lambda p, k=key: f"{p[k]['p50']} / {p[k]['p99']} ({p[k]['cpu_ms']})",
            str(ratios.get(f"{key}.p99_ratio_last_over_first", "")),
        )
    row(
        "who's out (whole org): people out that week · the whole list in pages, median s "
        "(CPU µs per person)",
        lambda p: (
            f"{p['whos_out_org_week_people']:,} · {p['whos_out_org_week_all_pages']['s']['median']}"
            f" ({p['whos_out_org_week_all_pages']['cpu_us_per_person']['median']})"
        ),
    )
    row(
        "`requests list --all` / `export --format csv`, one month: median s (export CPU s; rows)",
        lambda p: (
            f"{p['requests_list_month_s']['median']} / {p['requests_export_csv_month_s']['median']}"
            f" ({p['requests_export_csv_month_cpu_s']['median']}; {p['month']['requests']:,})"
        ),
    )
    row(
        "… rows/s, list --all / export; `requests list` (its first page), median s",
        lambda p: (
            f"{p.get('requests_list_month_rows_per_s', 0):,} / "
            f"{p.get('requests_export_csv_month_rows_per_s', 0):,}; "
            f"{p.get('requests_list_first_page_s', {}).get('median', '—')}"
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
        "fill since the last point: requests/s · transitions/s (wall)",
        lambda p: _fill_cell(p, "{requests_per_s} · {transitions_per_s}"),
    )
    row(
        "fill: CPU ms per transition, filling process / Redis · transitions per CPU-second",
        lambda p: _fill_cell(
            p,
            "{cpu_ms_per_transition} / {redis_cpu_ms_per_transition} · {transitions_per_cpu_s}",
        ),
    )
    row("load average (1, 5, 15 min) when measured", lambda p: str(p["load_average"]))
    lines = rows
    if "load_org_file_s" in result:
        lines.append("")
        lines.append(
            f"loading the organisation file ({result['people']:,} people), min/median/max s: "
            f"{result['load_org_file_s']}; `approvals-bot people --json`: {result['people_json_s']}"
        )
    if "stopped" in result:
        lines.append(result["stopped"])
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--people", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument(
        "--checkpoints",
        type=lambda s: [int(x) for x in s.split(",") if x],
        default=[1_000, 100_000],
    )
    parser.add_argument(
        "--days",
        type=int,
        default=0,
        help="simulated days the fill spans (default: two years, less for a small fill); "
        "e.g. --requests 45000 --days 31 makes the dense month a million requests would",
    )
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--maxmemory", default="8gb")
    parser.add_argument("--minutes", type=float, default=0, help="stop filling after this long")
    parser.add_argument("--no-coalesce", action="store_true", help="fill one round trip at a time")
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--skip-org-file", action="store_true")
    parser.add_argument("--out", type=Path)
    parser.add_argument(
        "--peak-week",
        type=lambda s: [int(x) for x in s.split(",") if x],
        default=[],
        help="e.g. 300,3000,8000: fill nothing; book that many people out in one week (in "
        "turn) and time who's out that week at each size",
    )
    parser.add_argument(
        "--redis-url",
        help="fill or measure this Redis (one you started, empty or a kept fill) instead of "
        "starting one; it is left filled, and filling it again resumes where it stopped",
    )
    parser.add_argument(
        "--measure-only",
        action="store_true",
        help="with --redis-url: measure the kept fill as it is, without filling",
    )
    args = parser.parse_args(argv)
    if args.measure_only and not args.redis_url:
        parser.error("--measure-only needs --redis-url (the Redis a fill was kept in)")
    configure_logging("warning", "console")
    result = asyncio.run(run(args))
    text = json.dumps(result, indent=1)
    print(text)
    if args.out:
        args.out.write_text(text + "\n", "utf-8")
    print(peak_table(result) if args.peak_week else table(result), file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
