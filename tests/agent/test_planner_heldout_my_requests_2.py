"""Held out: asking what became of one's leave, written before the code, never tuned on."""

from __future__ import annotations

import pytest

from agent.planner import OfflinePlanner
from tests.agent.test_planner import SYSTEM_EN, TOOLS, chat, only_call

HELD_OUT = [
    "was my time off approved?",
    "what's going on with my leave request",
    "did Emma sign off my leave?",
    "any update on my sick leave?",
]


@pytest.mark.parametrize("text", HELD_OUT)
async def test_what_became_of_my_leave_reads_my_requests(text):
    call = only_call(await OfflinePlanner().complete(chat(SYSTEM_EN, text), TOOLS))
    assert call.name == "my_requests"
