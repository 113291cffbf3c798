"""Redis Cluster: start a local 3-master cluster, run the storage tests and the load run on it.

The cluster lives in a temporary directory on loopback ports (`redis-server --cluster-enabled
yes` ×3, then `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`) and is torn
down however the script ends (normal exit, exception, Ctrl-C, SIGTERM).

    python bench/cluster.py                 # storage tests + a 100-employee load run, vs one Redis
    python bench/cluster.py --users 500 --redis-max-connections 1000
    python bench/cluster.py --no-tests      # the load comparison only
    python bench/cluster.py up              # start a cluster, print its URL, wait for Ctrl-C

The storage tests are `tests/test_engine_*.py tests/test_race.py tests/test_outbox.py` with
REDIS_URL=redis+cluster://127.0.0.1:PORT. tests/conftest.py opens that URL with
`redis.asyncio.from_url`, which does not know the `redis+cluster` scheme, so pytest is run with
`-p _cluster_plugin` (bench/_cluster_plugin.py), which routes such URLs to the product's
`workflow.store.connect`; no test file changes.

Prints one JSON object; writes bench/results/cluster.png.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _rig import RESULTS, ROOT, RunConfig, free_port, machine, run_load

STORAGE_TESTS = ["tests/test_engine_*.py", "tests/test_race.py", "tests/test_outbox.py"]


class LocalCluster:
    """N masters, no replicas, on 127.0.0.1; `with LocalCluster() as c: c.url`."""

    def __init__(self, masters: int = 3) -> None:
        self.masters = masters
        self.dir = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
        self.ports = self._ports(masters)
        self.procs: list[subprocess.Popen] = []

    @staticmethod
    def _ports(n: int) -> list[int]:
        # the cluster bus listens on port + 10000: both must be free
        ports: list[int] = []
        while len(ports) < n:
            p = free_port()
            if p + 10000 > 65535 or p in ports:
                continue
            with socket.socket() as s:
                try:
                    s.bind(("127.0.0.1", p + 10000))
                except OSError:
                    continue
            ports.append(p)
        return ports

    @property
    def url(self) -> str:
        return f"redis+cluster://127.0.0.1:{self.ports[0]}"

    def start(self) -> str:
        for tool in ("redis-server", "redis-cli"):
            if shutil.which(tool) is None:
                raise RuntimeError(f"{tool} is not on the PATH (apt-get install redis-server)")
        for port in self.ports:
            node_dir = self.dir / str(port)
            node_dir.mkdir()
            self.procs.append(
                subprocess.Popen(
                    [
                        "redis-server",
                        "--port",
                        str(port),
                        "--bind",
                        "127.0.0.1",
                        "--cluster-enabled",
                        "yes",
                        "--cluster-config-file",
                        f"nodes-{port}.conf",
                        "--cluster-node-timeout",
                        "5000",
                        "--appendonly",
                        "no",
                        "--save",
                        "",
                        "--dir",
                        str(node_dir),
                    ],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        for port in self.ports:
            self._wait_ping(port)
        subprocess.run(
            [
                "redis-cli",
                "--cluster",
                "create",
                *(f"127.0.0.1:{p}" for p in self.ports),
                "--cluster-replicas",
                "0",
                "--cluster-yes",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            timeout=60,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if all("cluster_state:ok" in self._cli(p, "cluster", "info") for p in self.ports):
                return self.url
            time.sleep(0.2)
        raise RuntimeError("the cluster did not reach cluster_state:ok")

    def _cli(self, port: int, *args: str) -> str:
        done = subprocess.run(
            ["redis-cli", "-p", str(port), *args], capture_output=True, text=True, timeout=10
        )
        return done.stdout

    def _wait_ping(self, port: int) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self._cli(port, "ping").strip() == "PONG":
                return
            time.sleep(0.05)
        raise RuntimeError(f"redis-server on {port} did not start")

    def slots(self) -> dict[int, int]:
        """Keys per node (dbsize), to show that data spread over the masters."""
        return {p: int(self._cli(p, "dbsize").strip() or 0) for p in self.ports}

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(5)
            if proc.poll() is None:
                proc.kill()
        self.procs.clear()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> LocalCluster:
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextlib.contextmanager
def stop_on_sigterm():
    """SIGTERM acts as Ctrl-C, so `with LocalCluster()` (and a load run's `finally`) still tear down."""

    def raise_exit(signum, frame):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, raise_exit)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run_storage_tests(url: str, extra: list[str]) -> dict[str, Any]:
    """pytest on the storage tests with REDIS_URL set to the cluster (REQUIRE_REDIS=1: no skips)."""
    files = sorted(
        {str(p.relative_to(ROOT)) for pattern in STORAGE_TESTS for p in ROOT.glob(pattern)}
    )
    env = {
        **os.environ,
        "REDIS_URL": url,
        "REQUIRE_REDIS": "1",
        "PYTHONPATH": str(ROOT / "bench") + os.pathsep + os.environ.get("PYTHONPATH", ""),
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "_cluster_plugin",
        "-q",
        "-p",
        "no:cacheprovider",
        *files,
        *extra,
    ]
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    out = done.stdout + done.stderr
    counts = {
        k: int(v)
        for v, k in re.findall(
            r"(\d+) (passed|failed|errors?|skipped)", out.splitlines()[-1] if out.strip() else ""
        )
    }
    failures = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    return {
        "command": "REDIS_URL="
        + url
        + " REQUIRE_REDIS=1 PYTHONPATH=bench python -m pytest -p _cluster_plugin -q "
        + " ".join(files),
        "exit_code": done.returncode,
        "counts": counts,
        "failures": failures[:30],
        "seconds": round(time.perf_counter() - started, 1),
        "tail": out.strip().splitlines()[-1] if out.strip() else "",
    }


def plot(single: dict[str, Any] | None, cluster: dict[str, Any] | None, path: Path) -> Path | None:
    if not single or not cluster:
        return None
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    keys = [
        ("ack_ms_all", "p99", "ack p99 ms"),
        ("turn_ms", "p50", "turn p50 ms"),
        ("submit_to_approver_card_ms", "p50", "Submit→card p50 ms"),
        ("serve_cpu_ms_per_turn", None, "serve CPU ms/turn"),
        ("redis_round_trips_per_turn", None, "round trips/turn"),
    ]
    fig, ax = plt.subplots(figsize=(10, 4))
    width = 0.38
    for j, (label, run) in enumerate((("one Redis", single), ("3-master cluster", cluster))):
        vals = [run[k][q] if q else run[k] for k, q, _ in keys]
        ax.bar([i + (j - 0.5) * width for i in range(len(keys))], vals, width, label=label)
    ax.set_xticks(range(len(keys)), [name for _, _, name in keys], fontsize=8)
    ax.set(
        yscale="log",
        title=f"Load run ({single['users']} employees) on one Redis and on a 3-master Redis Cluster",
    )
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


async def load_runs(
    args: argparse.Namespace, url: str
) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    common = dict(
        users=args.users,
        latency_s=args.latency,
        ramp_s=args.ramp,
        redis_max_connections=args.redis_max_connections,
    )
    single = None if args.no_baseline else await run_load(RunConfig(**common))
    cluster = await run_load(RunConfig(**common, redis_url=url, count_commands=True))
    return single, cluster


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("command", nargs="?", default="bench", choices=["bench", "up"])
    parser.add_argument("--masters", type=int, default=3)
    parser.add_argument("--no-tests", action="store_true")
    parser.add_argument("--no-load", action="store_true")
    parser.add_argument(
        "--no-baseline", action="store_true", help="skip the same load run on one Redis"
    )
    parser.add_argument("--users", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--ramp", type=float, default=1.0)
    parser.add_argument("--redis-max-connections", type=int, default=None)
    parser.add_argument(
        "--pytest-args", default="", help="extra pytest arguments, e.g. '-x -k race'"
    )
    parser.add_argument("--plot", type=Path, default=RESULTS / "cluster.png")
    args = parser.parse_args(argv)
    result: dict[str, Any] = {
        "benchmark": "redis-cluster",
        "masters": args.masters,
        "machine": machine(),
    }
    with stop_on_sigterm(), LocalCluster(args.masters) as cluster:
        result["url"] = cluster.url
        if args.command == "up":
            print(json.dumps({"url": cluster.url, "ports": cluster.ports}), flush=True)
            with contextlib.suppress(KeyboardInterrupt):
                signal.pause()
            return result
        if not args.no_tests:
            result["storage_tests"] = run_storage_tests(cluster.url, args.pytest_args.split())
        if not args.no_load:
            single, on_cluster = asyncio.run(load_runs(args, cluster.url))
            result["keys_per_master_after_load"] = cluster.slots()
            result["load_one_redis"] = single
            result["load_cluster"] = on_cluster
            written = plot(single, on_cluster, args.plot)
            result["plot"] = str(written) if written else None
    result["torn_down"] = (
        not any(p.poll() is None for p in cluster.procs) and not cluster.dir.exists()
    )
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
