"""The agent benchmark runs and a request given with all its facts takes two model calls."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_agent_bench_two_calls_per_complete_request(capsys):
    """Every request with all its facts ends in a proposal after exactly two model calls."""
    path = Path(__file__).parents[1] / "bench" / "agent_bench.py"
    spec = importlib.util.spec_from_file_location("agent_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(["--requests", "9", "--latency", "0"])
    assert result["completed_proposals"] == 9
    assert result["llm_calls_per_request"] == 2.0
    assert result["prompt_tokens_per_request"] > 0
