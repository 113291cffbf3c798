"""bench/ack_cpu.py runs end to end on a tiny burst: every DM acked 200 and queued once."""

from __future__ import annotations

import json
import shutil

import pytest

from tests.test_bench_load_smoke import load

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("redis-server") is None, reason="redis-server is not installed"
    ),
]


def test_ack_cpu_bench_acks_and_queues_every_dm_of_each_burst_once(capsys):
    """Two counted bursts of 20 after one not counted: 40 acks 200, 60 turns queued, a CPU figure."""
    result = load("ack_cpu").main(["--dms", "20", "--bursts", "2"])
    assert json.loads(capsys.readouterr().out) == result
    assert result["statuses"] == {"200": 40}
    assert result["turns_queued"] == result["dms_sent"] == 60
    assert len(result["cpu_ms_per_ack_per_burst"]) == 2 and result["cpu_ms_per_ack"] >= 0
