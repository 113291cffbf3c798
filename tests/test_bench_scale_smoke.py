"""bench/scale_bench.py runs end to end on a small organisation and prints every figure."""

from __future__ import annotations

import shutil

import pytest

from bench import scale_bench

pytestmark = pytest.mark.skipif(
    shutil.which("redis-server") is None, reason="redis-server is not installed"
)


def test_the_scale_bench_prints_each_figure_at_each_checkpoint(capsys):
    """Two checkpoints, each with the latencies, the month's list and export, memory and the
    fill rate; the slopes between them; the private Redis is gone afterwards."""
    result = scale_bench.main(
        [
            "--people",
            "300",
            "--requests",
            "60",
            "--checkpoints",
            "30",
            "--samples",
            "5",
            "--concurrency",
            "4",
            "--skip-org-file",
            "--port",
            "0",
        ]
    )
    capsys.readouterr()
    first, last = result["checkpoints"]
    assert first["requests"] >= 12 and last["requests"] >= 24
    for key in scale_bench.LATENCIES:
        assert {"p50", "p99", "cpu_ms"} <= set(last[key])
    assert last["memory"]["used_memory"] > 0 and last["memory"]["bytes_per_request"] > 0
    assert {"median", "min", "max"} <= set(last["requests_export_csv_month_s"])
    assert "confirm_submit_ms.p99" in result["slopes_ms_per_100k_requests"]
