"""The agent benchmark runs and a request given with all its facts takes one model call."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def test_agent_bench_one_call_per_complete_request(capsys):
    """Every request with all its facts ends in a proposal after one model call: the card says the rest."""
    path = Path(__file__).parents[1] / "bench" / "agent_bench.py"
    spec = importlib.util.spec_from_file_location("agent_bench", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = module.main(["--requests", "9", "--latency", "0"])
    assert result["completed_proposals"] == 9
    assert result["llm_calls_per_request"] == 1.0
    assert result["prompt_tokens_per_request"] > 0
