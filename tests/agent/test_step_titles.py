"""A step line names what the bot is doing, never an internal request id (the card shows which)."""

from __future__ import annotations

import re

import pytest

from agent.tools import default_tools

RID = "R-7K2M9QXA"


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("name", ["propose_withdraw", "propose_decision", "request_details"])
def test_a_step_about_one_request_shows_no_request_id(name: str, locale: str):
    tool = default_tools().get(name)
    fields = {"request_id": RID, "decision": "approve", "reason": ""}
    args = tool.args.model_validate(
        {k: v for k, v in fields.items() if k in tool.args.model_fields}
    )
    title = tool.title(args, locale)
    assert title and not re.search(r"R-[0-9A-Z]{8}", title), title
