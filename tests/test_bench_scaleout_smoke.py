"""Two serve and two worker processes on one Redis, every event and click delivered twice: each is handled once."""

from __future__ import annotations

import shutil

import pytest

from tests.test_bench_load_smoke import load

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("redis-server") is None, reason="redis-server is not installed"
    ),
]


def test_scaleout_with_redelivered_events_and_double_clicks_keeps_every_invariant(capsys):
    """Slack's retries land on the other process and clicks are doubled; still one turn per thread and one DM per event and person."""
    result = load("scaleout_bench").main(
        ["--users", "4", "--latency", "0", "--ramp", "0.1", "--no-plot", "--stall", "10"]
    )
    capsys.readouterr()
    assert set(result["runs"]) == {"1 serve + 1 worker", "2 serve + 2 worker"}
    assert result["all_invariants_hold"], result["invariants"]
    two = result["runs"]["2 serve + 2 worker"]
    assert two["serve_processes"] == 2 and two["worker_processes"] == 2
    assert two["requests_completed"] == 4
    assert result["throughput_ratio_2x2_vs_1x1"] > 0
