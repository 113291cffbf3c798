"""Held out: Chinese who-is-out questions with a time inside, written before the code, never tuned on.

Today is Wednesday 2 December 2026 (明天 Thu 3, 这周 Wed 2 – Fri 4, 周五 Fri 4).
"""

from __future__ import annotations

import pytest

from agent.planner import OfflinePlanner
from tests.agent.test_planner import TOOLS, chat, only_call, system_for

HELD_OUT = [
    ("哪些同事这周请假了", {"start": "2026-12-02", "end": "2026-12-04"}),
    ("有谁明天休假吗", {"start": "2026-12-03"}),
    ("谁周五请假", {"start": "2026-12-04"}),
    ("我们组谁下周不在", {"start": "2026-12-07", "end": "2026-12-11"}),
]


@pytest.mark.parametrize(("text", "arguments"), HELD_OUT, ids=[h[0] for h in HELD_OUT])
async def test_who_is_out_with_a_time_inside_is_a_question(text, arguments):
    call = only_call(await OfflinePlanner().complete(chat(system_for(text), text), TOOLS))
    assert (call.name, call.arguments) == ("who_is_out", arguments)
