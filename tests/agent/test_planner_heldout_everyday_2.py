"""Held out: everyday asks written before the code that fixed their neighbours, never tuned on.

Today is Wednesday 2 December 2026.
"""

from __future__ import annotations

import pytest

from agent.planner import OfflinePlanner
from tests.agent.test_planner import SYSTEM_EN, TOOLS, chat, only_call


@pytest.mark.parametrize(
    "text",
    [
        # scored once, 1 of 2, and left as it failed rather than tuned on: "can I still take"
        # reads as a request to take days off (the planner asks which kind and when)
        pytest.param(
            "how many days off can I still take this year?",
            marks=pytest.mark.xfail(strict=True, reason="held out: missed when first scored"),
        ),
        "how many vacation days off do I have left",
    ],
)
async def test_days_off_left_is_a_balance_question(text):
    call = only_call(await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS))
    assert call.name == "my_balances"


@pytest.mark.parametrize("text", ["remote tomorrow", "I'll be in late tomorrow, train strike"])
async def test_a_dated_plan_outside_the_bots_work_is_not_cheered(text):
    response = await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS)
    assert not response.tool_calls
    assert "enjoy" not in response.content
