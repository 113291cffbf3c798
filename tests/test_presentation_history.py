"""The terminal's /history: the conversation in words, never the model's tool JSON or internal ids."""

from __future__ import annotations

import json

from agent.messages import Message
from bot.presentation.history import conversation_lines


def test_tool_results_become_one_line_each_without_ids():
    tool = {
        "ok": True,
        "status": "awaiting_confirmation",
        "pending_id": "P-5KPP8PNGC3J79HBV",
        "request_id": "R-FDSWX9QP",
        "summary": "Prepared: withdraw R-FDSWX9QP (Sick leave, Thu 3 Dec 2026).",
    }
    failed = {"ok": False, "error": "not_found", "message": "No request R-ZZZZZZZZ."}
    lines = conversation_lines(
        [
            Message(role="user", content="withdraw my sick leave"),
            Message(role="assistant", content="", name=None),
            Message(role="tool", content=json.dumps(tool), name="propose_withdraw"),
            Message(role="tool", content=json.dumps(failed), name="get_request"),
            Message(role="tool", content="not json", name="x"),
            Message(role="assistant", content="Click Withdraw on the card."),
        ]
    )
    assert lines == [
        "you> withdraw my sick leave",
        "  ✓ Prepared: withdraw (Sick leave, Thu 3 Dec 2026).",
        "  ✗ No request.",
        "bot> Click Withdraw on the card.",
    ]
