"""The load rig shared by load_bench, scaleout_bench and cluster: the real bot as subprocesses.

    driver process (this one)            subprocesses
    ─────────────────────────            ────────────
    SlackStandIn (Slack Web API)  ◀────  approvals-bot serve  ×S  (bench/_instrument.py)
    SlackSimulator (signed events) ────▶      │  │
                                              │  └──▶ fake LLM (bench/fake_llm.py, own process)
                                 ◀────  approvals-bot worker ×W
                                              └──▶ Redis (a private redis-server by default)

Each employee (a generated directory person) DMs a complete leave request, waits for the
confirm card and the end of the turn, clicks Submit; when every approver card is out the
managers click Approve and the requester's "approved" DM closes the request. The three
phases are separated by barriers so that CPU, Redis round trips and commands can be put
down to turns, Submit clicks and Approve clicks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

import aiohttp

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
RESULTS = BENCH / "results"
BURST_CLIENT = BENCH / "_burst_client.py"
sys.path.insert(0, str(ROOT))

from bot.sandbox.slack_simulator import SlackSimulator  # noqa: E402
from bot.sandbox.standins.slack.server import SlackStandIn  # noqa: E402
from workflow import calendar  # noqa: E402
from workflow.config import load_config  # noqa: E402

SECRET = "bench-signing-secret-0123456789abcdef"
TOKEN = "xoxb-bench-token"
NOW = "2026-12-02T09:00:00"  # the bot's fixed clock: every request is for 2027
PER_MANAGER = 25
REQUEST_ID = re.compile(r"\bR-[A-Za-z0-9]+\b")
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- small utilities ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def quantile(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation; 0 for no values."""
    if not values:
        return 0.0
    xs = sorted(values)
    pos = (len(xs) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def summary(values: list[float], digits: int = 2) -> dict[str, float]:
    return {
        "p50": round(quantile(values, 0.5), digits),
        "p90": round(quantile(values, 0.9), digits),
        "p99": round(quantile(values, 0.99), digits),
        "max": round(max(values), digits) if values else 0.0,
        "mean": round(statistics.fmean(values), digits) if values else 0.0,
    }


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {"cpus": os.cpu_count(), "cpu": model, "python": sys.version.split()[0]}


async def wait_until(check, within: float, what: str, every: float = 0.05) -> None:
    loop = asyncio.get_running_loop()
    give_up = loop.time() + within
    while True:
        try:
            if await check():
                return
        except (OSError, aiohttp.ClientError):
            pass
        if loop.time() > give_up:
            raise TimeoutError(f"{what} not ready within {within} s")
        await asyncio.sleep(every)


def interrupt_on_sigterm() -> None:
    """SIGTERM behaves like Ctrl-C: asyncio cancels the run, whose `finally` stops every process."""

    def interrupt(signum, frame):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)


# --- Redis -------------------------------------------------------------------------------


class RedisServer:
    """A private redis-server on a loopback port: exact INFO commandstats, nothing shared.

    With no port given it takes a free one, and it answers only once the server on that port is
    the one it started (INFO's process_id): a port taken between the pick and the start, by
    another suite's Redis, makes it pick again rather than share that Redis.
    """

    TRIES = 5

    def __init__(self, port: int | None = None) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="bench-redis-"))
        self.fixed = port is not None
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> str:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not on the PATH (apt-get install redis-server)")
        for _ in range(self.TRIES):
            self._spawn()
            if self._serving():
                return self.url
            self._end_proc()
            if self.fixed:
                break
            self.port = free_port()
        self.stop()
        raise RuntimeError(f"redis-server did not start (last port tried: {self.port})")

    def _spawn(self) -> None:
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.dir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def _serving(self) -> bool:
        """True once our process answers on the port; False if it exited or someone else answers."""
        assert self.proc is not None
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.proc.poll() is None:
            with contextlib.suppress(OSError):
                pid = self._pid_answering()
                if pid is not None:
                    return pid == self.proc.pid
            time.sleep(0.05)
        return False

    def _pid_answering(self) -> int | None:
        """The process_id in INFO of whatever Redis answers on the port (None: no answer yet).

        A bare socket, not redis-py, whose connect retries would wait on a port that is not Redis."""
        with socket.create_connection(("127.0.0.1", self.port), 0.2) as conn:
            conn.settimeout(0.5)
            conn.sendall(b"INFO server\r\n")
            data = b""
            while (found := re.search(rb"process_id:(\d+)\r\n", data)) is None:
                chunk = conn.recv(4096)
                if not chunk:
                    return None
                data += chunk
            return int(found.group(1))

    def _end_proc(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(5)
            if self.proc.poll() is None:
                self.proc.kill()

    def stop(self) -> None:
        self._end_proc()
        shutil.rmtree(self.dir, ignore_errors=True)


def with_pool(url: str, max_connections: int | None) -> str:
    """The URL with `?max_connections=N` (redis-py reads it from the URL), or as it is."""
    if not max_connections:
        return url
    return url + ("&" if "?" in url else "?") + f"max_connections={max_connections}"


def redis_nodes(url: str) -> list[tuple[str, int]]:
    """The (host, port) of every master behind `url` (one for a single Redis)."""
    import redis

    plain = url.replace("+cluster", "", 1).split("?", 1)[0]
    if "+cluster" not in url:
        conn = redis.Redis.from_url(plain)
        try:
            info = conn.connection_pool.connection_kwargs
            return [(info["host"], int(info["port"]))]
        finally:
            conn.close()
    from redis.cluster import RedisCluster

    rc = RedisCluster.from_url(plain)
    try:
        return [(n.host, int(n.port)) for n in rc.get_primaries()]
    finally:
        rc.close()


def commands_processed(nodes: list[tuple[str, int]]) -> tuple[Counter[str], Counter[str]]:
    """INFO commandstats calls and usec by command, summed over the nodes, without our own
    INFO calls (a script's usec includes the commands it runs, which count their own too)."""
    import redis

    calls: Counter[str] = Counter()
    usec: Counter[str] = Counter()
    for host, port in nodes:
        conn = redis.Redis(host=host, port=port)
        try:
            stats = conn.info("commandstats")
        finally:
            conn.close()
        for name, value in stats.items():
            if name not in ("cmdstat_info",):
                calls[name.removeprefix("cmdstat_")] += int(value["calls"])
                usec[name.removeprefix("cmdstat_")] += int(value["usec"])
    return calls, usec


# --- the organisation ----------------------------------------------------------------------


def employee_slack_id(i: int) -> str:
    return f"U0BE{i:05d}"


def manager_slack_id(k: int) -> str:
    return f"U0BM{k:03d}"


def bench_config(path: Path, employees: int, org_id: str) -> Path:
    """The demo organisation plus `employees` people in teams of 25, each team with a manager."""
    text = resources.files("workflow.data").joinpath("demo_org.toml").read_text("utf-8")
    text = text.replace('id = "acme"', f'id = "{org_id}"', 1)
    people = []
    managers = (employees + PER_MANAGER - 1) // PER_MANAGER
    for k in range(managers):
        people.append(
            f"""
[[people]]
id = "bmgr{k:03d}"
name = "Bench Manager {k:03d}"
email = "bmgr{k:03d}@bench.example"
manager = "david"
team = "bench{k:03d}"
timezone = "Europe/London"
country = "GB"
subdivision = "ENG"
locale = "en"
slack_user_id = "{manager_slack_id(k)}"
"""
        )
    for i in range(employees):
        people.append(
            f"""
[[people]]
id = "bemp{i:05d}"
name = "Bench Employee {i:05d}"
email = "bemp{i:05d}@bench.example"
manager = "bmgr{i // PER_MANAGER:03d}"
team = "bench{i // PER_MANAGER:03d}"
timezone = "Europe/London"
country = "GB"
subdivision = "ENG"
locale = "en"
slack_user_id = "{employee_slack_id(i)}"
"""
        )
    # people go before the leave types (TOML arrays of tables may interleave, but keep it tidy)
    marker = "# --- leave types"
    text = text.replace(marker, "".join(people) + "\n" + marker, 1)
    path.write_text(text, "utf-8")
    load_config(path)  # fail here, not in the subprocess
    return path


def leave_days(count: int) -> list[date]:
    """Working days in England from March 2027, one per request slot."""
    out, day = [], date(2027, 3, 1)
    while len(out) < count:
        if calendar.is_working_day(day, "GB", "ENG"):
            out.append(day)
        day += timedelta(days=1)
    return out


# --- processes -----------------------------------------------------------------------------


def pid_cpu_s(pid: int) -> float:
    """utime + stime of a process, from /proc (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def pid_switches(pid: int, kind: str = "ctxt_switches") -> float:
    """Context switches of a process's threads so far, from /proc (0 once gone): voluntary and
    not by default, or only `voluntary_ctxt_switches` (it waited: nothing to do) or
    `nonvoluntary_ctxt_switches` (it was preempted)."""
    total = 0
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            for line in (task / "status").read_text().splitlines():
                name = line[: line.find(":")]
                if name == kind or (kind == "ctxt_switches" and name.endswith("_" + kind)):
                    total += int(line.split()[1])
    except OSError:
        return 0.0
    return float(total)


def loop_thread_sched_s(pid: int) -> tuple[float, float]:
    """Seconds a process's main thread (a runner's event loop) has run and waited for a core,
    from /proc's schedstat ((0, 0) once gone): the rest of the wall it was idle."""
    try:
        run_ns, wait_ns, _ = Path(f"/proc/{pid}/task/{pid}/schedstat").read_text().split()
    except (OSError, ValueError):
        return 0.0, 0.0
    return int(run_ns) / 1e9, int(wait_ns) / 1e9


def child_pids(pid: int) -> list[int]:
    """Processes whose parent is `pid`, from /proc (this kernel has no task/*/children)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(entry.name))
    return sorted(out)


@dataclass
class Proc:
    """A subprocess we started, with its CPU time, peak RSS and bench metrics."""

    name: str
    popen: subprocess.Popen
    metrics_port: int
    log: Path
    http_port: int | None = None

    def cpu_s(self) -> float:
        return pid_cpu_s(self.popen.pid)

    def children(self) -> list[int]:
        """The pids of the processes it forked (serve's extra ingress processes)."""
        return child_pids(self.popen.pid)

    def peak_rss_mb(self) -> float:
        try:
            for line in Path(f"/proc/{self.popen.pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    return round(int(line.split()[1]) / 1024, 1)
        except OSError:
            pass
        return 0.0

    async def metrics(self, session: aiohttp.ClientSession) -> dict[str, float]:
        """The bench metrics (round trips) and, for serve, the product's own /metrics."""
        out: dict[str, float] = {}
        urls = [f"http://127.0.0.1:{self.metrics_port}/metrics"]
        if self.http_port:
            urls.append(f"http://127.0.0.1:{self.http_port}/metrics")
        for url in urls:
            async with session.get(url) as resp:
                out.update(parse_prometheus(await resp.text()))
        return out

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
            try:
                self.popen.wait(15)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(5)


def parse_prometheus(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = line.rpartition(" ")
        with contextlib.suppress(ValueError):
            out[name] = float(value)
    return out


def metric_sum(metrics: dict[str, float], prefix: str) -> float:
    return sum(v for k, v in metrics.items() if k == prefix or k.startswith(prefix + "{"))


# --- one run ---------------------------------------------------------------------------------


@dataclass
class RunConfig:
    users: int = 10
    latency_s: float = 0.3
    ramp_s: float = 1.0
    serves: int = 1
    workers: int = 1
    redis_url: str | None = None  # None: a private redis-server
    redis_max_connections: int | None = None  # None: redis-py's default pool (100 in redis-py 8)
    duplicate: bool = False  # every event and click delivered twice (to two processes if any)
    log_level: str = "info"
    timeout_s: float = 120.0
    # py-spy during the turns: the (first) serve process, or each worker when serve only acks
    # (one file each, named after the process: runners-worker0.txt, …)
    profile: Path | None = None
    # every 0.2 s during the turns: each process's CPU seconds so far and each runner's turns
    timeline: bool = False
    count_commands: bool = (
        False  # INFO commandstats on a Redis we did not start (it must be ours alone)
    )
    seed: int = 7
    stall_s: float = 20.0  # a phase with no progress for this long is over; the rest is lost
    burst: bool = False  # every DM prepared and signed first, then all sent at once (no ramp)
    fresh_connections: bool = False  # the burst connects as it sends (default: connected first)
    close_connections: bool = (
        False  # the burst's requests say Connection: close (default: keep-alive)
    )
    turns_only: bool = False  # stop after the turns (no Submit / Approve phases)
    acks_only: bool = (
        False  # with burst: stop once every DM is acked and its turn queued (none run)
    )
    serve_runs_turns: bool = True  # False: only the worker processes run turns
    ingress_processes: int = 1  # processes each serve answers its port with (SO_REUSEPORT)
    redis_port: int | None = None  # the private redis-server's port (None: any free one)
    extra_env: dict[str, str] = field(default_factory=dict)
    # the bot talks to bench/_lean.py (canned Slack Web API and model, one process) instead of
    # the Slack stand-in and bench/fake_llm.py: a turns-only burst, checked from its counts
    lean: bool = False


@dataclass
class User:
    index: int
    slack_id: str
    manager_slack: str
    text: str
    thread: str | None = None
    channel: str | None = None
    sent: float = 0.0
    ack_ms: float = 0.0
    card: dict[str, Any] | None = None
    card_at: float = 0.0
    final_at: float = 0.0
    request_id: str | None = None
    submit_at: float = 0.0
    submit_ack_ms: float = 0.0
    approver_card: dict[str, Any] | None = None
    approver_card_at: float = 0.0
    approve_at: float = 0.0
    approve_ack_ms: float = 0.0
    approved_at: float = 0.0
    metadata_dms: int = 0
    ack_status: int = 200
    refusals: int = 0  # DM events answered non-2xx (then retried)
    failed: str | None = None  # the turn ended with an error message instead of a card

    @property
    def turn_over(self) -> bool:
        return bool(self.failed or (self.final_at and self.card))


@dataclass
class Feed:
    """Reads the stand-in's change feed and files what each user and approver sees."""

    standin: SlackStandIn
    users_by_slack: dict[str, User]
    by_thread: dict[tuple[str, str], User] = field(default_factory=dict)
    by_request: dict[str, User] = field(default_factory=dict)
    early_cards: dict[str, tuple[dict[str, Any], float]] = field(default_factory=dict)
    streams_per_thread: Counter = field(default_factory=Counter)
    cards_per_request: Counter = field(default_factory=Counter)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    overflowed: bool = False

    async def run(self) -> None:
        queue = self.standin.workspace.subscribe(maxsize=10_000_000)
        try:
            while True:
                record = await queue.get()
                self.handle(record, time.perf_counter())
                self.changed.set()
        finally:
            self.standin.unsubscribe(queue)

    def handle(self, r: dict[str, Any], now: float) -> None:
        kind = r.get("kind")
        if kind == "overflow":
            self.overflowed = True
            return
        channel, thread_ts, message = r.get("channel"), r.get("thread_ts"), r.get("message") or {}
        if kind == "stream.started" and thread_ts:
            self.streams_per_thread[(channel, thread_ts)] += 1
        user = self.by_thread.get((channel, thread_ts)) if thread_ts else None
        if user is not None:
            if kind == "message.posted" and has_button(message, "pending_confirm"):
                user.card, user.card_at = {**message, "channel": channel}, now
            elif kind == "stream.stopped":
                user.final_at = now
            elif (
                kind == "message.posted" and not message.get("stream") and not message.get("blocks")
            ):
                text = message.get("text") or ""
                if "database" in text or "数据库" in text:  # bot.slack.app: the store failed
                    user.failed = text[:120]
            elif kind == "message.updated" and user.card and message.get("ts") == user.card["ts"]:
                found = REQUEST_ID.search(
                    json.dumps(message.get("blocks") or []) + message.get("text", "")
                )
                if found and user.request_id is None:
                    user.request_id = found.group(0)
                    self.by_request[user.request_id] = user
                    early = self.early_cards.pop(user.request_id, None)
                    if early is not None:
                        user.approver_card, user.approver_card_at = early
            return
        if kind != "message.posted" or thread_ts:
            return
        # a top-level DM from the bot: an approver card, or a requester's update
        value = button_value(message, "request_approve")
        if value is not None:
            request_id = value.rpartition(":")[0]
            self.cards_per_request[request_id] += 1
            card = {**message, "channel": channel}
            owner = self.by_request.get(request_id)
            if owner is None:
                self.early_cards[request_id] = (card, now)
            else:
                owner.approver_card, owner.approver_card_at = card, now
            return
        meta = message.get("metadata") or {}
        person = self.users_by_slack.get(r.get("user") or "")
        if person is not None and meta.get("event_type") == "approvals_outbox":
            person.metadata_dms += 1
            # the request_approved DM leads with :tada: (bot/slack/blocks_cards._OUTCOME_EMOJI);
            # a step_approved DM (✅) comes with it for the last step
            if ":tada:" in json.dumps(message.get("blocks") or []) and not person.approved_at:
                person.approved_at = now


def has_button(message: dict[str, Any], action_id: str) -> bool:
    return button_value(message, action_id) is not None


def button_value(message: dict[str, Any], action_id: str) -> str | None:
    for block in message.get("blocks") or []:
        if block.get("type") == "actions":
            for e in block.get("elements", []):
                if e.get("action_id") == action_id:
                    return e.get("value", "")
    return None


class Rig:
    """Everything one run needs, started in order and always torn down."""

    def __init__(self, cfg: RunConfig) -> None:
        self.cfg = cfg
        self.tmp = Path(tempfile.mkdtemp(prefix="bench-load-"))
        self.org = "bench" + os.urandom(3).hex()
        self.redis: RedisServer | None = None
        self.redis_url = cfg.redis_url
        self.llm_proc: subprocess.Popen | None = None
        self.llm_port = 0
        self.standin = SlackStandIn(token=TOKEN)
        self.serves: list[Proc] = []
        self.workers: list[Proc] = []
        self.session: aiohttp.ClientSession | None = None
        self.sims: list[SlackSimulator] = []
        self.team = "T0B" + os.urandom(3).hex().upper()

    # -- start and stop -------------------------------------------------------------------

    async def start(self) -> None:
        cfg = self.cfg
        if self.redis_url is None:
            self.redis = RedisServer(cfg.redis_port)
            self.redis_url = self.redis.start()
        config_path = bench_config(self.tmp / "org.toml", cfg.users, self.org)
        await self.standin.start()  # the people's side (their DMs); the bot's too unless lean
        ws = self.standin.workspace
        stand_ins = (
            [BENCH / "_lean.py", "--team", self.team, "--bot-user", ws.bot_user_id]
            if cfg.lean
            else [BENCH / "fake_llm.py"]
        )
        self.llm_proc = subprocess.Popen(
            [sys.executable, *map(str, stand_ins), "--latency", str(cfg.latency_s)],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = await asyncio.to_thread(self.llm_proc.stdout.readline)  # type: ignore[union-attr]
        self.llm_port = json.loads(line)["port"]
        api_url = f"http://127.0.0.1:{self.llm_port}/api/" if cfg.lean else self.standin.api_url
        for p in load_config(config_path).people:
            if p.slack_user_id:
                self.standin.add_user(p.slack_user_id, p.id, p.name, p.email, p.timezone)
        env = {
            **{
                k: v
                for k, v in os.environ.items()
                if not k.startswith(("LLM_", "SLACK_", "FEISHU_"))
            },
            "REDIS_URL": with_pool(self.redis_url, cfg.redis_max_connections),
            "APPROVALS_CONFIG": str(config_path),
            "APPROVALS_NOW": NOW,
            "SLACK_BOT_TOKEN": TOKEN,
            "SLACK_SIGNING_SECRET": SECRET,
            "SLACK_API_URL": api_url,
            "LLM_PRESET": "generic",
            "LLM_BASE_URL": f"http://127.0.0.1:{self.llm_port}/v1",
            "LLM_MODEL": "fake",
            "LLM_API_KEY": "bench",
            "LOG_LEVEL": cfg.log_level,
            "SERVE_RUNS_TURNS": "true" if cfg.serve_runs_turns else "false",
            "INGRESS_PROCESSES": str(cfg.ingress_processes),
            "LOG_FORMAT": "json",
            "PYTHONUNBUFFERED": "0",
            **cfg.extra_env,
        }
        for i in range(cfg.serves):
            port = free_port()
            self.serves.append(self._spawn(f"serve{i}", "serve", env | {"PORT": str(port)}, port))
        for i in range(cfg.workers):
            self.workers.append(self._spawn(f"worker{i}", "worker", env, None))
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0, limit_per_host=0)
        )
        for proc in self.serves:

            async def healthy(proc: Proc = proc) -> bool:
                if not proc.alive():
                    raise RuntimeError(f"{proc.name} exited: {proc.log.read_text()[-2000:]}")
                async with self.session.get(f"http://127.0.0.1:{proc.http_port}/healthz") as r:
                    return r.status == 200

            await wait_until(healthy, 60, proc.name)  # start-up is slow on a loaded machine
        for proc in self.workers:

            async def up(proc: Proc = proc) -> bool:
                if not proc.alive():
                    raise RuntimeError(f"{proc.name} exited: {proc.log.read_text()[-2000:]}")
                # its scheduler's first pass done: the start-up work (the due index seeded,
                # every person's digest checked: ~2 Redis commands a person) is not measured
                # with the turns (a second worker's fell inside the two-runner phase)
                m = await proc.metrics(self.session)
                return metric_sum(m, "bench_scheduler_passes_total") >= 1

            await wait_until(up, 120, proc.name)
        for proc in self.serves:
            self.sims.append(
                SlackSimulator(
                    self.standin,
                    f"http://127.0.0.1:{proc.http_port}/slack/events",
                    SECRET,
                    team_id=self.team,
                    session=self.session,
                )
            )

    def _spawn(self, name: str, command: str, env: dict[str, str], port: int | None) -> Proc:
        metrics_port = free_port()
        log = self.tmp / f"{name}.log"
        popen = subprocess.Popen(
            [sys.executable, str(BENCH / "_instrument.py"), command],
            env=env | {"BENCH_METRICS_PORT": str(metrics_port)},
            stdout=log.open("w"),
            stderr=subprocess.STDOUT,
            cwd=self.tmp,  # no stray .env is read
        )
        return Proc(name, popen, metrics_port, log, port)

    async def stop(self) -> None:
        for proc in [*self.serves, *self.workers]:
            await asyncio.to_thread(proc.stop)
        if self.session is not None:
            await self.session.close()
        with contextlib.suppress(Exception):
            await self.standin.stop()
        if self.llm_proc is not None and self.llm_proc.poll() is None:
            self.llm_proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.llm_proc.wait(5)
            if self.llm_proc.poll() is None:
                self.llm_proc.kill()
        if self.redis is not None:
            self.redis.stop()
        elif self.redis_url:
            await asyncio.to_thread(self._clean_shared_redis)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _clean_shared_redis(self) -> None:
        """On a Redis we did not start: delete what this run wrote (its org, team and threads)."""
        import redis

        patterns = [
            "{" + self.org + "}:*",
            f"thread:{{slack:{self.team}:*",
            f"slack:{self.team}:*",
            f"cards:slack:{{{self.org}}}:*",
            "seen:slack:Ev" + "*",
        ]
        prefixes = [s._event_prefix for s in self.sims]
        for host, port in redis_nodes(self.redis_url or ""):
            conn = redis.Redis(host=host, port=port, decode_responses=True)
            try:
                for pattern in patterns:
                    for key in conn.scan_iter(match=pattern, count=1000):
                        if pattern.startswith("seen:") and not any(
                            key.startswith(f"seen:slack:Ev{p}") for p in prefixes
                        ):
                            continue
                        conn.delete(key)
                # the DM channel cache is keyed by the workspace's team (auth.test) and person
                for pattern in ("slack:*:dm:bemp*", "slack:*:dm:bmgr*"):
                    for key in conn.scan_iter(match=pattern, count=1000):
                        conn.delete(key)
                # delivery keys are named by outbox stream id and person: ours are our people's
                for key in conn.scan_iter(match="delivered:slack:*", count=1000):
                    if key.rsplit(":", 1)[-1].startswith(("bemp", "bmgr")):
                        conn.delete(key)
            finally:
                conn.close()

    # -- measurements ------------------------------------------------------------------------

    async def queued_turns(self) -> int:
        """Entries in the turn stream (queued, not yet done)."""
        import redis.asyncio as aioredis

        from workflow.keys import turn_stream

        client = aioredis.Redis.from_url(self.redis_url.replace("+cluster", "", 1))
        try:
            return int(await client.xlen(turn_stream(self.org)))
        finally:
            await client.aclose()

    async def llm_stats(self) -> dict[str, int]:
        async with self.session.get(f"http://127.0.0.1:{self.llm_port}/stats") as r:  # type: ignore[union-attr]
            return await r.json()

    async def snapshot(self) -> dict[str, Any]:
        procs = {}
        for proc in [*self.serves, *self.workers]:
            m = await proc.metrics(self.session)  # type: ignore[arg-type]
            procs[proc.name] = {
                "cpu_s": proc.cpu_s(),
                "switches": pid_switches(proc.popen.pid),
                "waits": pid_switches(proc.popen.pid, "voluntary_ctxt_switches"),
                "loop_sched_s": loop_thread_sched_s(proc.popen.pid),
                "round_trips": metric_sum(m, "bench_redis_round_trips_total"),
                "turns": metric_sum(m, "approvals_agent_turns_total"),
                "turns_final": m.get('approvals_agent_turns_total{stop_reason="final"}', 0.0),
                "turns_running_max": m.get("approvals_turns_running_max", 0.0),
            }
            # serve's extra ingress processes: only their CPU (they run no turns)
            for i, pid in enumerate(proc.children(), start=1):
                procs[f"{proc.name}.ingress{i}"] = {
                    "cpu_s": pid_cpu_s(pid),
                    "switches": pid_switches(pid),
                    "waits": pid_switches(pid, "voluntary_ctxt_switches"),
                    "round_trips": 0.0,
                    "turns": 0.0,
                    "turns_final": 0.0,
                }
        commands = commands_usec = None
        if self.redis is not None or self.cfg.count_commands:
            commands, commands_usec = await asyncio.to_thread(
                commands_processed, redis_nodes(self.redis_url)
            )
        usage = resource.getrusage(resource.RUSAGE_SELF)
        procs["driver"] = {"cpu_s": usage.ru_utime + usage.ru_stime, "round_trips": 0.0}
        # the rest of the machine's work: the fake model and (a private) Redis
        if self.llm_proc is not None:
            name = "lean_stand_ins" if self.cfg.lean else "fake_llm"
            procs[name] = {"cpu_s": pid_cpu_s(self.llm_proc.pid), "round_trips": 0.0}
        if self.redis is not None and self.redis.proc is not None:
            procs["redis"] = {"cpu_s": pid_cpu_s(self.redis.proc.pid), "round_trips": 0.0}
        return {
            "t": time.perf_counter(),
            "procs": procs,
            "commands": commands,
            "commands_usec": commands_usec,
            "llm": await self.llm_stats(),
        }


class BurstSender:
    """bench/_burst_client.py in its own process: connected first, then every request at once."""

    def __init__(self, rig: Rig, ready: list[tuple[SlackSimulator, str, dict[str, str]]]) -> None:
        self.rig = rig
        self.spec = {
            "host": "127.0.0.1",
            "path": "/slack/events",
            "requests": [
                {"port": int(sim.events_url.split(":")[2].split("/")[0]), "body": b, "headers": h}
                for sim, b, h in ready
            ],
        }
        self.proc: asyncio.subprocess.Process | None = None

    async def connect(self, fresh: bool, close: bool = False) -> None:
        """Start the sender; it opens its connections (unless `fresh`) and waits for go()."""
        path = self.rig.tmp / "burst.json"
        path.write_text(json.dumps(self.spec))
        args = [sys.executable, str(BURST_CLIENT), str(path)]
        self.proc = await asyncio.create_subprocess_exec(
            *args,
            *(["--fresh"] if fresh else []),
            *(["--close"] if close else []),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            # its one line of results grows ~25 bytes a request: past 64 KiB (~2,600 DMs)
            # asyncio's default line limit refused it
            limit=1 << 26,
        )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), 120)
        if line.strip() != b"ready":
            raise RuntimeError(f"the burst sender did not start: {line[:200]!r}")
        await asyncio.sleep(0.5)  # serve has accepted the connections and is idle again

    async def go(self) -> dict[str, Any]:
        """Send everything now; per request its status, ack and send time, and the sender's CPU."""
        assert self.proc is not None and self.proc.stdin is not None and self.proc.stdout
        self.proc.stdin.write(b"go\n")
        await self.proc.stdin.drain()
        out = await self.proc.stdout.readline()
        await self.proc.wait()
        return json.loads(out)


def delta(a: dict[str, Any], b: dict[str, Any], role: str, key: str) -> float:
    return sum(b["procs"][n][key] - a["procs"][n][key] for n in b["procs"] if n.startswith(role))


def start_profilers(rig: Rig, cfg: RunConfig, path: Path) -> list[subprocess.Popen]:
    """py-spy on what runs the turns: serve0, or every worker when serve only acks."""
    targets = (
        [(p.name, p) for p in rig.workers]
        if rig.workers and not cfg.serve_runs_turns
        else [(rig.serves[0].name, rig.serves[0])]
    )
    fmt = {".json": "speedscope", ".txt": "raw"}.get(path.suffix, "flamegraph")
    return [
        subprocess.Popen(
            [
                "py-spy",
                "record",
                "--pid",
                str(proc.popen.pid),
                "--rate",
                "200",
                "--format",
                fmt,
                "-o",
                str(path if len(targets) == 1 else path.with_stem(f"{path.stem}-{name}")),
                "--nonblocking",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for name, proc in targets
    ]


async def run_load(cfg: RunConfig) -> dict[str, Any]:
    """One run: start everything, three phases, measure, tear down; returns the figures."""
    rig = Rig(cfg)
    feed_task: asyncio.Task | None = None
    profilers: list[subprocess.Popen] = []
    try:
        await rig.start()
        days = leave_days(20)
        users = [
            User(
                i,
                employee_slack_id(i),
                manager_slack_id(i // PER_MANAGER),
                f"annual leave from {days[i % 20]} to {days[i % 20]}, reason: bench",
            )
            for i in range(cfg.users)
        ]
        all_users = list(users)
        feed = Feed(rig.standin, {u.slack_id: u for u in users})
        feed_task = asyncio.create_task(feed.run())
        sims = rig.sims
        rng = random.Random(cfg.seed)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + cfg.timeout_s

        async def until(done, what: str) -> bool:
            """Wait for `done()`; False when nothing changed for cfg.stall_s (the rest is lost)."""
            last_change = loop.time()
            while not done():
                if loop.time() > deadline:
                    raise TimeoutError(f"timed out waiting for {what}: {diagnose(rig, users)}")
                if loop.time() - last_change > cfg.stall_s:
                    return False
                if feed_task.done():
                    feed_task.result()
                for p in [*rig.serves, *rig.workers]:
                    if not p.alive():
                        raise RuntimeError(f"{p.name} died: {p.log.read_text()[-2000:]}")
                feed.changed.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(feed.changed.wait(), 1.0)
                    last_change = loop.time()
            return True

        def spread(i: int) -> float:
            return cfg.ramp_s * (i / max(1, cfg.users)) + rng.uniform(
                0, cfg.ramp_s / max(1, cfg.users)
            )

        # ---- phase 1: every employee DMs a complete leave request -----------------------
        s0: dict[str, Any] = {}
        timeline: list[dict[str, float]] = []
        sampling: list[asyncio.Task] = []
        t_start = 0.0

        async def at_go() -> None:
            """The phase starts: the profiler on, the first snapshot, the clock."""
            nonlocal s0, t_start
            if cfg.profile is not None and shutil.which("py-spy"):
                profilers.extend(start_profilers(rig, cfg, cfg.profile))
            s0 = await rig.snapshot()
            t_start = time.perf_counter()
            if cfg.timeline:
                sampling.append(asyncio.create_task(sample_cpu(rig, t_start, timeline)))

        async def dm(u: User) -> None:
            await asyncio.sleep(spread(u.index))
            sim = sims[u.index % len(sims)]
            message = rig.standin.post_user_message(u.slack_id, u.text)
            u.channel, u.thread = message["channel"], message["ts"]
            feed.by_thread[(u.channel, u.thread)] = u
            envelope = sim.envelope(dm_event(u, message, rig.team))
            u.sent = time.perf_counter()
            resp = await sim.send_event(envelope)
            u.ack_ms = (time.perf_counter() - u.sent) * 1000
            if resp.status != 200:
                raise RuntimeError(f"event answered {resp.status}")
            if cfg.duplicate:  # Slack's retry, to the other process when there is one
                other = sims[(u.index + 1) % len(sims)]
                await other.send_event(envelope, retry=1)

        async def burst() -> None:
            """Every DM posted and signed first; then all sent at once by bench/_burst_client.py."""
            ready = []
            for u in users:
                sim = sims[u.index % len(sims)]
                message = rig.standin.post_user_message(u.slack_id, u.text)
                u.channel, u.thread = message["channel"], message["ts"]
                feed.by_thread[(u.channel, u.thread)] = u
                envelope = sim.envelope(dm_event(u, message, rig.team))
                body = json.dumps(envelope)
                ready.append((u, sim, body, sim.signed_headers(body)))
            client = BurstSender(rig, [(sim, body, h) for _, sim, body, h in ready])
            await client.connect(cfg.fresh_connections, cfg.close_connections)
            await at_go()
            sent = await client.go()
            for (u, *_), status, ack, at in zip(
                ready, sent.pop("status"), sent.pop("ack_ms"), sent.pop("sent_at"), strict=True
            ):
                u.sent, u.ack_status = at, status
                u.ack_ms = ack if ack is not None else float("inf")
            errors = Counter(e for e in sent.pop("errors") if e)
            sender.update(sent, errors=dict(errors))

            async def retry(u: User, sim: SlackSimulator, body: str) -> None:
                for n in (1, 2, 3):  # a refusal (503) is retried, as Slack does
                    if u.ack_status == 200:
                        return
                    u.refusals += 1
                    await asyncio.sleep(1.0)
                    extra = {"X-Slack-Retry-Num": str(n), "X-Slack-Retry-Reason": "http_error"}
                    resp = await sim.post(
                        body, "application/json", sim.signed_headers(body, **extra)
                    )
                    u.ack_status = resp.status

            await asyncio.gather(*(retry(u, sim, body) for u, sim, body, _ in ready))

        sender: dict[str, Any] = {}
        if cfg.burst:
            await burst()
        else:
            await at_go()
            await asyncio.gather(*(dm(u) for u in users))

        async def end_profile() -> None:
            for profiler in profilers:
                profiler.send_signal(signal.SIGINT)
            for profiler in profilers:
                await asyncio.to_thread(profiler.wait, 30)
            profilers.clear()

        if cfg.acks_only:  # nothing runs the turns: what counts is that each one is queued
            t_acks = time.perf_counter()
            await end_profile()
            s1 = await rig.snapshot()
            sender["queued_turns"] = await rig.queued_turns()
            unqueued = max(0, len(users) - sender["queued_turns"])
            return report(
                cfg,
                rig,
                all_users,
                [],
                {"turn": users[:unqueued]},
                feed,
                (s0, s1, s1, s1),
                (t_start,) + (t_acks,) * 3,
                sender,
            )
        if cfg.lean:
            await lean_until(rig, users, feed, cfg.stall_s, deadline)
        else:
            await until(lambda: all(u.turn_over for u in users), "turns")
        lost: dict[str, list[User]] = {"turn": [u for u in users if not u.turn_over or u.failed]}
        users = [u for u in users if u.turn_over and not u.failed]
        t_turns = time.perf_counter()
        for task in sampling:
            task.cancel()
        if cfg.lean and users and not lost["turn"]:  # the last answer, not when the poll saw it
            t_turns = max(u.final_at for u in users)
        await end_profile()
        s1 = await rig.snapshot()
        if cfg.turns_only:
            result = report(
                cfg,
                rig,
                all_users,
                users,
                lost,
                feed,
                (s0, s1, s1, s1),
                (t_start,) + (t_turns,) * 3,
                sender,
            )
            if cfg.timeline:
                result["cpu_timeline"] = timeline
            return result

        # ---- phase 2: each clicks Submit; the worker sends the approver cards --------------
        async def submit(u: User) -> None:
            await asyncio.sleep(spread(u.index))
            sim = sims[u.index % len(sims)]
            u.submit_at = time.perf_counter()
            resp = await sim.click(u.slack_id, u.card, "pending_confirm")  # type: ignore[arg-type]
            u.submit_ack_ms = (time.perf_counter() - u.submit_at) * 1000
            if resp.status != 200:
                raise RuntimeError(f"click answered {resp.status}")
            if cfg.duplicate:  # a double click, landing on the other process
                await sims[(u.index + 1) % len(sims)].click(u.slack_id, u.card, "pending_confirm")  # type: ignore[arg-type]

        await asyncio.gather(*(submit(u) for u in users))
        await until(
            lambda: all(u.approver_card and u.metadata_dms >= 1 for u in users), "approver cards"
        )
        lost["submit"] = [u for u in users if not (u.approver_card and u.metadata_dms >= 1)]
        users = [u for u in users if u.approver_card and u.metadata_dms >= 1]
        t_cards = time.perf_counter()
        s2 = await rig.snapshot()

        # ---- phase 3: the managers approve; the requesters are told ----------------------
        async def approve(u: User) -> None:
            await asyncio.sleep(spread(u.index))
            sim = sims[u.index % len(sims)]
            u.approve_at = time.perf_counter()
            resp = await sim.click(u.manager_slack, u.approver_card, "request_approve")  # type: ignore[arg-type]
            u.approve_ack_ms = (time.perf_counter() - u.approve_at) * 1000
            if resp.status != 200:
                raise RuntimeError(f"click answered {resp.status}")
            if cfg.duplicate:
                await sims[(u.index + 1) % len(sims)].click(
                    u.manager_slack,
                    u.approver_card,
                    "request_approve",  # type: ignore[arg-type]
                )

        await asyncio.gather(*(approve(u) for u in users))
        await until(lambda: all(u.approved_at for u in users), "approvals")
        lost["approve"] = [u for u in users if not u.approved_at]
        users = [u for u in users if u.approved_at]
        # the cards are closed after the approval DM: wait for the worker to go idle
        await asyncio.sleep(0.5)
        t_end = time.perf_counter()
        s3 = await rig.snapshot()
        return report(
            cfg,
            rig,
            all_users,
            users,
            lost,
            feed,
            (s0, s1, s2, s3),
            (t_start, t_turns, t_cards, t_end),
            sender,
        )
    finally:
        for profiler in profilers:
            if profiler.poll() is None:
                profiler.kill()
        if feed_task is not None:
            feed_task.cancel()
            with contextlib.suppress(BaseException):
                await feed_task
        await rig.stop()


async def sample_cpu(rig: Rig, t0: float, out: list[dict[str, float]]) -> None:
    """Every 0.2 s: each process's CPU seconds so far (runners, Redis, stand-ins), from /proc,
    and the turns each runner runs."""
    pids = {p.name: p.popen.pid for p in [*rig.serves, *rig.workers]}
    if rig.llm_proc is not None:
        pids["stand_ins"] = rig.llm_proc.pid
    if rig.redis is not None and rig.redis.proc is not None:
        pids["redis"] = rig.redis.proc.pid
    while True:
        row = {"t": round(time.perf_counter() - t0, 2)}
        row.update({name: round(pid_cpu_s(pid), 2) for name, pid in pids.items()})
        for proc in rig.workers:  # and the turns each runner runs at that moment
            metrics = await proc.metrics(rig.session)  # type: ignore[arg-type]
            row[f"{proc.name}.turns"] = metrics.get("approvals_turns_running", 0.0)
        out.append(row)
        await asyncio.sleep(0.2)


async def lean_until(
    rig: Rig, users: list[User], feed: Feed, stall_s: float, deadline: float
) -> None:
    """Wait for every turn's answer by asking bench/_lean.py's count (a long poll: answered when
    every turn is, or after a second), then read when each thread was answered (its clock is
    this process's) and what it was sent."""
    loop = asyncio.get_running_loop()
    last_change, done = loop.time(), -1
    url = f"http://127.0.0.1:{rig.llm_port}/progress?until={len(users)}&wait_s=1"
    while loop.time() < deadline and loop.time() - last_change < stall_s:
        async with rig.session.get(url) as r:  # type: ignore[union-attr]
            stopped = (await r.json())["stopped"]
        if stopped >= len(users):
            break
        if stopped != done:
            last_change, done = loop.time(), stopped
    stats: dict[str, Any] = await rig.llm_stats()  # type: ignore[assignment]
    for u in users:
        key = f"{u.channel}:{u.thread}"
        if key in stats["stopped_at"]:
            u.final_at = stats["stopped_at"][key]
        if stats["cards"].get(key):
            u.card, u.card_at = {"lean": True}, u.final_at
    for key, n in stats["started"].items():
        channel, _, thread = key.partition(":")
        feed.streams_per_thread[(channel, thread)] = n


def dm_event(u: User, message: dict[str, Any], team: str) -> dict[str, Any]:
    """The message event Slack sends for a person's DM."""
    return {
        "type": "message",
        "channel": u.channel,
        "user": u.slack_id,
        "text": u.text,
        "ts": u.thread,
        "event_ts": u.thread,
        "channel_type": "im",
        "team": team,
        "client_msg_id": message.get("client_msg_id"),
        "blocks": message.get("blocks", []),
    }


def log_problems(rig: Rig) -> dict[str, int]:
    """Warnings and errors the bot processes logged, by event name."""
    problems: Counter = Counter()
    for proc in [*rig.serves, *rig.workers]:
        for line in proc.log.read_text(errors="replace").splitlines():
            if '"level": "error"' in line or '"level": "warning"' in line:
                try:
                    problems[f"{proc.name}:{json.loads(line).get('event')}"] += 1
                except ValueError:
                    problems[f"{proc.name}:{line[:80]}"] += 1
            elif line.startswith(("Traceback", "ERROR", "WARNING")):
                problems[f"{proc.name}:{line[:80]}"] += 1
    return dict(problems.most_common(20))


def log_examples(rig: Rig) -> dict[str, str]:
    """The first warning or error line of each kind, cut to 300 characters."""
    out: dict[str, str] = {}
    for proc in [*rig.serves, *rig.workers]:
        for line in proc.log.read_text(errors="replace").splitlines():
            if '"level": "error"' in line or '"level": "warning"' in line:
                try:
                    key = f"{proc.name}:{json.loads(line).get('event')}"
                except ValueError:
                    continue
                out.setdefault(key, line[:300])
    return out


def diagnose(rig: Rig, users: list[User]) -> str:
    """What is missing, and the bot's warnings and errors, for a run that timed out."""
    counts = {
        "card": sum(1 for u in users if u.card),
        "final": sum(1 for u in users if u.final_at),
        "request_id": sum(1 for u in users if u.request_id),
        "approver_card": sum(1 for u in users if u.approver_card),
        "approved": sum(1 for u in users if u.approved_at),
    }
    failed = Counter(r.method for r in rig.standin.requests if r.status is not None and not r.ok)
    problems: Counter = Counter()
    examples: dict[str, str] = {}
    for proc in [*rig.serves, *rig.workers]:
        for line in proc.log.read_text(errors="replace").splitlines():
            if '"level": "error"' in line or '"level": "warning"' in line or "Traceback" in line:
                with contextlib.suppress(ValueError):
                    event = json.loads(line).get("event")
                    problems[(proc.name, event)] += 1
                    examples.setdefault(f"{proc.name}:{event}", line[:400])
                    continue
                problems[(proc.name, line[:160])] += 1
    return json.dumps(
        {
            "of": len(users),
            **counts,
            "failed_slack_calls": dict(failed),
            "log_problems": {f"{k[0]}:{k[1]}": v for k, v in problems.most_common(10)},
            "examples": examples,
        }
    )


def report(
    cfg: RunConfig,
    rig: Rig,
    all_users: list[User],
    completed: list[User],
    lost: dict[str, list[User]],
    feed: Feed,
    snaps,
    times,
    sender: dict[str, Any] | None = None,
) -> dict[str, Any]:
    s0, s1, s2, s3 = snaps
    t_start, t_turns, t_cards, t_end = times
    n = max(1, len(all_users))
    turned = [u for u in all_users if u.turn_over and not u.failed]
    submits = max(1, sum(1 for u in all_users if u.submit_at))
    approves = max(1, sum(1 for u in all_users if u.approve_at))
    carded = [u for u in turned if u.approver_card_at]
    turns = delta(s0, s1, "serve", "turns_final") + delta(s0, s1, "worker", "turns_final")
    model_calls = s1["llm"]["calls"] - s0["llm"]["calls"]
    calls_per_turn = model_calls / max(1, turns)
    floor_ms = calls_per_turn * cfg.latency_s * 1000
    turn_ms = [(u.final_at - u.sent) * 1000 for u in turned]
    card_ms = [(u.card_at - u.sent) * 1000 for u in turned]
    ratio = [t / floor_ms for t in turn_ms] if floor_ms else []
    ack_dm = [u.ack_ms for u in all_users if u.sent]
    ack_click = [u.submit_ack_ms for u in all_users if u.submit_at] + [
        u.approve_ack_ms for u in all_users if u.approve_at
    ]
    notify_card = [(u.approver_card_at - u.submit_at) * 1000 for u in carded]
    notify_done = [(u.approved_at - u.approve_at) * 1000 for u in completed]

    def per(a, b, role, key, count):
        return round(delta(a, b, role, key) / max(1, count), 3)

    def commands(a, b, count):
        if a["commands"] is None or b["commands"] is None:
            return None
        return round((b["commands"].total() - a["commands"].total()) / max(1, count), 2)

    def by_name(a: Counter[str], b: Counter[str], count: int) -> dict[str, float]:
        return {k: round((b[k] - a[k]) / max(1, count), 2) for k in sorted(b) if b[k] > a[k]}

    # invariants: one turn per thread, one post per (outbox event, recipient)
    posts = Counter()
    for r in rig.standin.requests:
        if r.method == "chat.postMessage" and r.ok:
            payload = ((r.params.get("metadata") or {}).get("event_payload")) or {}
            if payload.get("event_id"):
                posts[(payload["event_id"], payload.get("recipient"))] += 1
    threads = {(u.channel, u.thread) for u in all_users if u.thread}
    turns_per_thread = Counter(feed.streams_per_thread[t] for t in threads)
    serve_procs = [p for p in rig.serves]
    worker_procs = [p for p in rig.workers]
    wall = t_end - t_start
    return {
        "users": len(all_users),
        "requests_completed": len(completed),
        "lost": {
            "turn_failed_or_unfinished": len(lost.get("turn", [])),
            "submit_without_approver_card": len(lost.get("submit", [])),
            "approve_without_requester_dm": len(lost.get("approve", [])),
        },
        "turn_failures": dict(Counter(u.failed for u in lost.get("turn", []) if u.failed)),
        "model_latency_ms": cfg.latency_s * 1000,
        "ramp_s": cfg.ramp_s,
        "serve_processes": cfg.serves,
        "worker_processes": cfg.workers,
        "duplicate_deliveries": cfg.duplicate,
        "store": "redis-cluster"
        if "+cluster" in (rig.redis_url or "")
        else ("private redis-server" if rig.redis else "redis"),
        "log_level": cfg.log_level,
        "redis_max_connections": cfg.redis_max_connections or "redis-py default",
        "burst": cfg.burst,
        "turns_only": cfg.turns_only,
        "serve_runs_turns": cfg.serve_runs_turns,
        "dm_refused_non_2xx": sum(u.refusals for u in all_users),
        # the burst's sender (its own process): how long writing every request took, its CPU
        "burst_sender": sender or None,
        "turns_per_s": round(len(turned) / max(1e-9, t_turns - t_start), 2),
        "ingress_processes_per_serve": cfg.ingress_processes,
        "cpu_s_per_process": {  # serve0.ingress1 …: serve0's extra ingress processes
            name: round(s1["procs"][name]["cpu_s"] - s0["procs"][name]["cpu_s"], 2)
            for name in s1["procs"]
            if name.startswith(("serve", "worker")) and name in s0["procs"]
        },
        # what else used the cores during the turns: the driver (Slack stand-in), the fake
        # model, a private Redis, and the burst's sender; cores_busy is all of it over the wall
        "support_cpu_s": {
            name: round(s1["procs"][name]["cpu_s"] - s0["procs"][name]["cpu_s"], 2)
            for name in ("driver", "fake_llm", "lean_stand_ins", "redis")
            if name in s1["procs"]
        },
        "cores_busy_during_turns": round(
            (
                sum(s1["procs"][n]["cpu_s"] - s0["procs"][n]["cpu_s"] for n in s1["procs"])
                + ((sender or {}).get("cpu_s") or 0.0)
            )
            / max(1e-9, t_turns - t_start),
            2,
        ),
        "ack_ms_dm": summary(ack_dm),
        "ack_ms_click": summary(ack_click),
        "ack_ms_all": summary(ack_dm + ack_click),
        "turns": int(turns),
        "model_calls_per_turn": round(calls_per_turn, 3),
        "floor_ms": round(floor_ms, 1),
        "turn_ms": summary(turn_ms),
        "confirm_card_ms": summary(card_ms),
        "turn_to_floor_ratio": summary(ratio, 3),
        "submit_to_approver_card_ms": summary(notify_card),
        "approve_to_requester_dm_ms": summary(notify_done),
        "serve_cpu_ms_per_turn": round(delta(s0, s1, "serve", "cpu_s") * 1000 / max(1, turns), 2),
        "bot_cpu_ms_per_turn": round(
            (delta(s0, s1, "serve", "cpu_s") + delta(s0, s1, "worker", "cpu_s"))
            * 1000
            / max(1, turns),
            2,
        ),
        "serve_cpu_ms_per_submit_click": round(delta(s1, s2, "serve", "cpu_s") * 1000 / submits, 2),
        "serve_cpu_ms_per_approve_click": round(
            delta(s2, s3, "serve", "cpu_s") * 1000 / approves, 2
        ),
        "worker_cpu_ms_per_request": round(delta(s1, s3, "worker", "cpu_s") * 1000 / submits, 2),
        "redis_round_trips_per_turn": per(s0, s1, "serve", "round_trips", turns),
        # the workers' during the turns: theirs when serve only acks (SERVE_RUNS_TURNS=false)
        "redis_round_trips_worker_per_turn": per(s0, s1, "worker", "round_trips", turns),
        # the runners' context switches a turn (voluntary: waits; the rest: preempted)
        "context_switches_worker_per_turn": per(s0, s1, "worker", "switches", turns),
        # … of which voluntary: a runner's loop waited with nothing to run
        "voluntary_switches_worker_per_turn": per(s0, s1, "worker", "waits", turns),
        "redis_round_trips_per_submit_click": per(s1, s2, "serve", "round_trips", submits),
        "redis_round_trips_per_approve_click": per(s2, s3, "serve", "round_trips", approves),
        "redis_round_trips_worker_per_request": per(s1, s3, "worker", "round_trips", submits),
        "redis_commands_per_turn": commands(s0, s1, turns),
        # which commands (EVALSHA counts the script once; the commands it runs count too)
        "redis_commands_per_turn_by_name": by_name(s0["commands"], s1["commands"], turns)
        if s0["commands"] is not None and s1["commands"] is not None
        else None,
        # bench/_lean.py's count of the bot's Slack Web API calls, by method
        "slack_calls_per_turn": by_name(
            Counter(s0["llm"].get("slack_calls") or {}),
            Counter(s1["llm"].get("slack_calls") or {}),
            turns,
        ),
        # the time Redis spent in each command a turn, µs (INFO commandstats' usec)
        "redis_usec_per_turn_by_name": by_name(s0["commands_usec"], s1["commands_usec"], turns)
        if s0["commands_usec"] is not None and s1["commands_usec"] is not None
        else None,
        # when the turns were answered, s from the go: a long tail is one runner's backlog
        "turns_answered_at_s": {
            f"p{round(q * 100)}": round(quantile([u.final_at - t_start for u in turned], q), 2)
            for q in (0.1, 0.5, 0.9, 0.99, 1.0)
        },
        # each runner's event loop over the turns: the share of the wall it ran, waited for a
        # core (preempted or queued) and was idle (nothing to run: the rest)
        "loop_share": {
            name: {
                "ran": round((b[0] - a[0]) / max(1e-9, t_turns - t_start), 3),
                "waited": round((b[1] - a[1]) / max(1e-9, t_turns - t_start), 3),
            }
            for name in s1["procs"]
            if name.startswith("worker") and name in s0["procs"]
            for a, b in [(s0["procs"][name]["loop_sched_s"], s1["procs"][name]["loop_sched_s"])]
        },
        "turns_per_process": {
            name: round(s1["procs"][name]["turns"] - s0["procs"][name]["turns"])
            for name in s1["procs"]
            if name.startswith(("serve", "worker"))
            and name in s0["procs"]
            and "ingress" not in name
        },
        "redis_commands_per_request": commands(s0, s3, max(1, len(completed))),
        "driver_cpu_share": round(delta(s0, s3, "driver", "cpu_s") / max(1e-9, t_end - t_start), 2),
        "peak_rss_mb": {p.name: p.peak_rss_mb() for p in [*serve_procs, *worker_procs]},
        "turns_running_max": {
            name: proc.get("turns_running_max", 0.0)
            for name, proc in s1["procs"].items()
            if name.startswith(("serve", "worker"))
        },
        "phase_s": {
            "turns": round(t_turns - t_start, 2),
            "submit_to_cards": round(t_cards - t_turns, 2),
            "approve_to_done": round(t_end - t_cards, 2),
        },
        "requests_per_s": round(len(completed) / wall, 2),
        "turns_per_thread": {str(k): v for k, v in sorted(turns_per_thread.items())},
        "duplicate_turns": sum(v for k, v in turns_per_thread.items() if k > 1),
        "approver_cards_per_request": {
            str(k): v for k, v in sorted(Counter(feed.cards_per_request.values()).items())
        },
        "requester_dms_per_request": {
            str(k): v for k, v in sorted(Counter(u.metadata_dms for u in completed).items())
        },
        "slack_calls_per_request": {
            k: round(v / n, 2)
            for k, v in sorted(Counter(r.method for r in rig.standin.requests).items())
        },
        "dm_posts_total": sum(posts.values()),
        "duplicate_dms": sum(c - 1 for c in posts.values() if c > 1),
        "log_problems": log_problems(rig),
        "log_examples": log_examples(rig),
        "feed_overflowed": feed.overflowed,
        "measurement": {
            "ack": "client side: signed POST /slack/events sent to its HTTP response read, in the "
            "driver (ramp) or in bench/_burst_client.py, a process of its own (burst)",
            "turn_ms": "DM event sent to the streamed answer stopped (chat.stopStream seen by the stand-in)",
            "cpu": "utime+stime of the bot process from /proc over the phase; waiting on the model costs none",
            "round_trips": "redis-py send_packed_command calls counted in the bot process (a pipeline counts once)",
            "commands": "INFO commandstats delta summed over the Redis masters (a private redis-server unless --redis-url)",
        },
        "machine": machine(),
    }
