"""bench/cluster.py starts a 3-master Redis Cluster, runs the bot on it and always tears it down."""

from __future__ import annotations

import shutil

import pytest

from tests.test_bench_load_smoke import load

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("redis-server") is None or shutil.which("redis-cli") is None,
        reason="redis-server and redis-cli are not installed",
    ),
]


def test_cluster_load_run_completes_and_the_cluster_is_torn_down(capsys):
    """Two employees complete their requests on the cluster; keys spread over the masters; nothing is left running."""
    result = load("cluster").main(
        ["--no-tests", "--no-baseline", "--users", "2", "--latency", "0", "--ramp", "0.1"]
    )
    capsys.readouterr()
    run = result["load_cluster"]
    assert run["store"] == "redis-cluster"
    assert run["requests_completed"] == 2 and not any(run["lost"].values())
    assert run["duplicate_turns"] == 0 and run["duplicate_dms"] == 0
    assert result["torn_down"]


def test_cluster_is_torn_down_when_the_run_fails():
    """An exception inside the `with` block still stops every node and removes the directory."""
    cluster_module = load("cluster")
    c = cluster_module.LocalCluster(3)
    with pytest.raises(RuntimeError), c:
        assert c.url.startswith("redis+cluster://127.0.0.1:")
        raise RuntimeError("boom")
    assert not c.procs and not c.dir.exists()
