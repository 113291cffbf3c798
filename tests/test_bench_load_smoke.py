"""The load benchmark runs end to end on a tiny load: the real bot as subprocesses, every key reported, nothing lost or doubled."""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
KEYS = {
    "users",
    "requests_completed",
    "lost",
    "ack_ms_dm",
    "ack_ms_click",
    "ack_ms_all",
    "turn_ms",
    "turn_to_floor_ratio",
    "model_calls_per_turn",
    "serve_cpu_ms_per_turn",
    "worker_cpu_ms_per_request",
    "redis_round_trips_per_turn",
    "redis_commands_per_turn",
    "peak_rss_mb",
    "duplicate_turns",
    "duplicate_dms",
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("redis-server") is None, reason="redis-server is not installed"
    ),
]


def load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_load_bench_three_employees_complete_with_one_turn_and_one_dm_each(capsys):
    """Three employees DM, submit and get approved; one model call per turn (the card ends it);
    no turn or DM doubled."""
    result = load("load_bench").main(
        ["--users", "3", "--latency", "0", "--ramp", "0.1", "--no-plot", "--stall", "10"]
    )
    assert json.loads(capsys.readouterr().out) == result
    [run] = result["runs"]
    assert run.keys() >= KEYS
    assert run["requests_completed"] == 3 and not any(run["lost"].values())
    assert run["model_calls_per_turn"] == 1.0
    assert run["duplicate_turns"] == 0 and run["duplicate_dms"] == 0
    assert run["turns_per_thread"] == {"1": 3}
    assert run["redis_round_trips_per_turn"] > 0 and run["redis_commands_per_turn"] > 0
    assert set(run["peak_rss_mb"]) == {"serve0", "worker0"}


def test_load_bench_burst_mode_sends_everything_at_once_from_its_own_process(capsys):
    """--burst: the sender is a process of its own (its CPU reported); each DM acked and answered once."""
    result = load("load_bench").main(
        ["--burst", "--turns-only", "--users", "5", "--latency", "0", "--no-plot", "--stall", "10"]
    )
    capsys.readouterr()
    [run] = result["runs"]
    sender = run["burst_sender"]
    assert sender["errors"] == {} and sender["cpu_s"] >= 0 and sender["send_spread_ms"] >= 0
    assert run["ack_ms_dm"]["max"] < 10_000 and run["dm_refused_non_2xx"] == 0
    assert not any(run["lost"].values()) and run["duplicate_turns"] == 0
    assert run["turns_per_thread"] == {"1": 5}


def test_load_bench_acks_only_with_two_ingress_processes_queues_every_dm_once(capsys):
    """--acks-only --ingress-processes 2: both processes ack (their CPU reported), every DM queued."""
    result = load("load_bench").main(
        ["--acks-only", "--users", "40", "--ingress-processes", "2", "--no-plot"]
    )
    capsys.readouterr()
    [run] = result["runs"]
    assert run["burst_sender"]["queued_turns"] == 40 and run["burst_sender"]["keep_alive"]
    assert run["dm_refused_non_2xx"] == 0 and not any(run["lost"].values())
    assert set(run["cpu_s_per_process"]) == {"serve0", "serve0.ingress1"}
