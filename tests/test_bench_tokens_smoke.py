"""The token benchmark runs the real agent on every scripted conversation and compares it with
the naive design and the seed's own, with the 4-characters estimate and SmolLM2's tokenizer."""

from __future__ import annotations

import json

from tests.test_bench_load_smoke import load
from tests.test_smollm2 import smollm2_installed


def test_token_bench_reports_ours_naive_and_seed_for_every_conversation(capsys):
    """Every scripted reply is used, a fully-stated leave takes one call under 1,000 prompt
    tokens, and the ratios per completed request meet the targets at 10 people."""
    measures = ["--estimate-only"] if not smollm2_installed() else []
    result = load("token_bench").main(
        ["--no-plot", "--no-eval", "--people", "10", "100", *measures]
    )
    assert json.loads(capsys.readouterr().out) == result
    assert result["targets_met"]
    for name, m in result["measures"].items():
        rows = m["conversations"]
        leave = rows["leave_all_facts_en"]
        assert leave["ours"]["calls"] == 1 and leave["naive"]["calls"] == 4, name
        assert m["first_call_fully_stated_leave"] <= 1000
        for row in rows.values():
            assert row["ours"]["prompt_tokens"] > 0 and row["naive"]["prompt_tokens"] > 0
            assert row["seed"]["prompt_tokens"] > 0
            for c in row["ours"]["per_call"]:
                assert c["prompt"] == c["system"] + c["tools"] + c["history"]
                assert 0 <= c["cacheable_prefix"] <= c["prompt"]
        sweep = m["per_completed_request_by_people"]
        assert sweep["100"]["ours_vs_naive"] < sweep["10"]["ours_vs_naive"] <= 0.5
        assert sweep["10"]["ours_vs_seed"] <= 0.5
        assert m["per_call"]["tools_offered"] < 5  # the chosen sets, not all 14
        assert m["cacheable_share"] > 0.3
    calls = result["model_calls_per_completed_request"]
    assert calls["ours"] < calls["ours_if_every_card_needed_a_second_call"]
