"""The token benchmark runs the real agent on every scripted conversation and compares it with the naive design."""

from __future__ import annotations

import json

from tests.test_bench_load_smoke import load


def test_token_bench_reports_both_designs_for_every_conversation(capsys):
    """Every scripted reply is used, a complete leave takes one call, and the ratio is reported per request and by directory size."""
    result = load("token_bench").main(["--no-plot"])
    assert json.loads(capsys.readouterr().out) == result
    rows = result["conversations"]
    assert rows["leave_all_facts_en"]["ours"]["calls"] == 1
    assert rows["leave_all_facts_en"]["naive"]["calls"] == 4
    for row in rows.values():
        assert row["ours"]["prompt_tokens"] > 0 and row["naive"]["prompt_tokens"] > 0
    per = result["per_completed_request"]
    assert per["ratio"] > 0 and {"ours", "naive"} <= per.keys()
    sweep = result["ratio_per_completed_request_by_directory_size"]
    ratios = [sweep[k] for k in sorted(sweep, key=int)]
    assert ratios == sorted(ratios, reverse=True)  # the naive design grows with the directory
    assert 1 <= result["ours_prompt_breakdown"]["tool_count"] <= 4  # the leave set, not all 14
