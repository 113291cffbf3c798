"""Held out: leaving early is the afternoon off; written before the code, never tuned on.

Today is Wednesday 2 December 2026 (Friday is the 4th).
"""

from __future__ import annotations

import pytest

from agent.planner import OfflinePlanner
from tests.agent.test_planner import TOOLS, chat, only_call, system_for

HELD_OUT = [
    ("migraine, I need to go home early", "2026-12-02"),
    ("可以今天提前下班吗，孩子发烧", "2026-12-02"),
    ("leaving early on Friday, doctor's appointment", "2026-12-04"),
]


@pytest.mark.parametrize(("text", "day"), HELD_OUT, ids=[h[0] for h in HELD_OUT])
async def test_leaving_early_is_that_afternoon(text, day):
    call = only_call(await OfflinePlanner().complete(chat(system_for(text), text), TOOLS))
    assert call.name == "propose_leave"
    args = call.arguments
    assert (args["start"], args.get("end", args["start"]), args.get("start_half")) == (
        day,
        day,
        True,
    )
