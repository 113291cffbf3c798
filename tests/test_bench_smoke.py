"""The workflow benchmark runs end to end and its round-trip counts stay within budget.

A behaviour guard, not a timing test: submit and decide must each cost at most two round trips
(one pipelined read, one guarded Lua write), and the JSON must carry every documented key.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest
import redis

from tests.conftest import REQUIRE_REDIS, real_redis_url

BENCH = Path(__file__).resolve().parents[1] / "bench" / "workflow_bench.py"
KEYS = {
    "transitions_per_second",
    "round_trips_per_submit",
    "round_trips_per_decide",
    "round_trips_per_confirm",
    "round_trips_per_prepare",
    "requests",
    "concurrency",
    "redis_version",
}


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("workflow_bench", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def check(result: dict, printed: str, requests: int, concurrency: int) -> None:
    assert json.loads(printed) == result  # exactly one JSON object on stdout
    assert result.keys() >= KEYS
    assert result["requests"] == requests and result["concurrency"] == concurrency
    assert result["transitions"] == 3 * requests  # submit + two decisions each
    assert result["transitions_per_second"] > 0
    assert 1 <= result["round_trips_per_submit"] <= 2
    assert 1 <= result["round_trips_per_decide"] <= 2
    assert result["round_trips_per_confirm"] <= 3
    assert result["round_trips_per_prepare"] <= 2


def test_bench_on_fakeredis_reports_round_trips_within_budget(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
):
    """The benchmark runs on fakeredis and reports at most two round trips per submit and per decide."""
    result = bench.main(["--fake", "--requests", "12", "--concurrency", "4"])
    check(result, capsys.readouterr().out, 12, 4)


@pytest.mark.redis
def test_bench_on_real_redis_reports_round_trips_within_budget_and_cleans_up(
    bench: ModuleType, capsys: pytest.CaptureFixture[str]
):
    """On the real Redis the benchmark stays within two round trips per submit and decide and leaves no keys behind."""
    url = real_redis_url()
    probe = redis.Redis.from_url(url, decode_responses=True)
    try:
        try:
            probe.ping()
        except redis.ConnectionError as e:
            if REQUIRE_REDIS:
                pytest.fail(f"Redis at {url} is unreachable: {e}")
            pytest.skip(f"Redis at {url} is unreachable: {e}")
        result = bench.main(["--redis-url", url, "--requests", "20", "--concurrency", "5"])
        check(result, capsys.readouterr().out, 20, 5)
        assert result["redis"] == "server"
        assert not list(probe.scan_iter(match="{" + result["organisation"] + "}:*"))
    finally:
        probe.close()
