"""What a click says comes from the engine's record, never from a guess or an exception.

A re-click of Submit after the manager approved says who approved; an approval whose
connection died after the write was sent is read back: the approver is told it is recorded
and the card loses its buttons, as the requester will be told by the worker.
"""

from __future__ import annotations

import pytest
import redis.exceptions

from tests.slack.harness import SlackHarness
from tests.slack.test_slack_flow import ask_and_submit, button_message

OLIVER, EMMA = "U0OLIVER", "U0EMMA"


def _ephemerals(h: SlackHarness, user: str) -> list[str]:
    return [
        c.get("text") or "" for c in h.standin.calls("chat.postEphemeral") if c.get("user") == user
    ]


async def test_resubmitting_after_the_manager_approved_says_who_approved(slack: SlackHarness):
    h = slack
    await h.dm(OLIVER, "annual leave next Monday")
    await h.bot.tasks.idle()
    card = button_message(h.dm_messages(OLIVER), "pending_confirm")
    await h.click(OLIVER, card, "pending_confirm")
    await h.settle()
    [req] = await h.engine.my_requests("oliver")
    while (step := req.open_step()) is not None:
        req = await h.engine.decide(req.id, step.index, step.assignee, "approve")
    assert req.status.value == "approved"
    h.standin.clear()
    await h.click(OLIVER, card, "pending_confirm")  # the old card, clicked again
    await h.settle()
    updates = [c for c in h.standin.calls("chat.update") if c.get("ts") == card["ts"]]
    said = updates[-1].get("text") or ""
    assert "automatically" not in said and "Approved by" in said, said
    approver = h.engine.person(req.steps[0].decided_by).name
    assert approver in said


async def test_an_approval_whose_connection_died_after_the_write_is_read_back(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    card = button_message(h.dm_messages(EMMA), "request_approve")
    store = h.engine.store
    real = store._apply

    async def applied_then_dropped(*args, **kwargs):
        await real(*args, **kwargs)  # Redis ran the script…
        raise redis.exceptions.ConnectionError("Connection closed by server.")  # …then we lost it

    monkeypatch.setattr(store, "_apply", applied_then_dropped)
    await h.click(EMMA, card, "request_approve")
    await h.bot.tasks.idle()
    monkeypatch.setattr(store, "_apply", real)
    req = await h.engine.get_request(req_id, "emma")
    assert req.steps[0].status.value == "approved" and req.steps[0].decided_by == "emma"
    assert not any("nothing was changed" in e for e in _ephemerals(h, EMMA))
    assert button_message(h.dm_messages(EMMA), "request_approve") is None  # no live buttons
    await h.settle()
    told = [m.get("text") or "" for m in h.dm_messages(OLIVER)]
    assert any("approved" in t.lower() for t in told)


async def test_an_approval_that_did_not_reach_the_store_says_nothing_changed(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    """The other half: the connection died before the script ran; reading back shows it open."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    card = button_message(h.dm_messages(EMMA), "request_approve")

    async def dropped(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Connection refused.")

    monkeypatch.setattr(h.engine.store, "_apply", dropped)
    await h.click(EMMA, card, "request_approve")
    await h.bot.tasks.idle()
    req = await h.engine.get_request(req_id, "emma")
    assert req.steps[0].status.value == "pending"
    assert any("nothing was changed" in e for e in _ephemerals(h, EMMA))
    assert button_message(h.dm_messages(EMMA), "request_approve") is not None  # still live
