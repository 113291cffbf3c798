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


@pytest.mark.timeout(300)  # two runs of five processes each; start-up is slow on a loaded machine
def test_scaleout_runners_on_the_lean_stand_ins_answer_every_turn_once(capsys):
    """--runners: one then two workers run a burst against bench/_lean.py; each turn answered once.

    Two pairs: the second runs two runners first, and the target is judged on the median pair.
    """
    result = load("scaleout_bench").main(
        [
            "--runners",
            "--users",
            "6",
            "--latency",
            "0",
            "--no-plot",
            "--stall",
            "10",
            "--pairs",
            "2",
        ]
    )
    capsys.readouterr()
    assert result["lost"] == {"1 runner": 0, "2 runners": 0}
    assert result["duplicated"] == {"1 runner": 0, "2 runners": 0}
    for run in result["runs"].values():
        assert run["turns_per_thread"] == {"1": 6}
        assert "lean_stand_ins" in run["support_cpu_s"]
    assert set(result["cpu_s_per_process"]["2 runners"]) == {"serve0", "worker0", "worker1"}
    assert [p["order"] for p in result["pairs"]] == [
        "1 runner then 2 runners",
        "2 runners then 1 runner",
    ]
    assert result["ratios"] == [p["throughput_ratio_2_vs_1"] for p in result["pairs"]]
    assert result["throughput_ratio_2_vs_1"] in result["ratios"]
    assert result["target"]["on"] == "the median of 2 pairs"
