"""What a click says comes from the engine's record, never from a guess or an exception.

A re-click of Submit after the manager approved says who approved; an approval whose
connection died after the write was sent is read back: the approver is told it is recorded
and the card loses its buttons, as the requester will be told by the worker. A withdrawal
(Home tab) and a confirmed reminder are asked again after the same failure: the record
answers, and the event is in the outbox once. The faults come from a client that lets the
write run and then drops the connection (or drops it before the write).
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


# --- withdraw and remind: the same truth after an ambiguous failure -----------------------------


def _applied_then_dropped(monkeypatch: pytest.MonkeyPatch, h: SlackHarness, times: int = 1):
    """The next `times` writes reach Redis and run, then the connection dies before the answer."""
    store = h.engine.store
    real, left = store._apply, [times]

    async def apply(*args, **kwargs):
        result = await real(*args, **kwargs)
        if left[0] > 0:
            left[0] -= 1
            raise redis.exceptions.ConnectionError("Connection closed by server.")
        return result

    monkeypatch.setattr(store, "_apply", apply)


async def _events(h: SlackHarness, kind: str) -> list[dict[str, str]]:
    entries = await h.engine.store.redis.xrange(h.engine.keys.outbox)
    return [fields for _, fields in entries if fields.get("type") == kind]


async def test_a_withdrawal_whose_connection_died_after_the_write_is_told_as_done(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    """Home-tab Withdraw, applied but unanswered: "withdrawn" once, and the approver's card closes."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    oliver = h.engine.person("oliver")
    _applied_then_dropped(monkeypatch, h)
    answer = await h.bot.core.withdraw(oliver, req_id)
    assert answer.ok and "withdrawn" in answer.text.lower(), answer.text
    assert "not known" not in answer.text and "nothing was changed" not in answer.text
    req = await h.engine.get_request(req_id, "oliver")
    assert req.status.value == "withdrawn"
    assert len(await _events(h, "request_withdrawn")) == 1  # recorded once, not twice
    await h.settle()
    assert button_message(h.dm_messages(EMMA), "request_approve") is None  # no live buttons


async def test_a_withdrawal_that_never_reached_the_store_is_made_when_it_comes_back(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    """The write was lost before it ran: asked again, the engine withdraws it now, once."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    store = h.engine.store
    real, lost = store._apply, [1]

    async def apply(*args, **kwargs):
        if lost[0]:
            lost[0] -= 1
            raise redis.exceptions.ConnectionError("Connection reset by peer.")
        return await real(*args, **kwargs)

    monkeypatch.setattr(store, "_apply", apply)
    answer = await h.bot.core.withdraw(h.engine.person("oliver"), req_id)
    assert answer.ok and "withdrawn" in answer.text.lower(), answer.text
    assert len(await _events(h, "request_withdrawn")) == 1


async def test_a_reminder_whose_connection_died_after_the_write_is_sent_once(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    """Confirming a reminder, applied but unanswered: the record says sent; Emma is reminded once."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")
    proposal = await h.engine.prepare_remind("oliver", req_id)
    _applied_then_dropped(monkeypatch, h)
    answer = await h.bot.core.confirm(h.engine.person("oliver"), proposal.pending.id)
    assert answer.ok and "not known" not in answer.text, answer.text
    assert len(await _events(h, "reminder_sent")) == 1
    req = await h.engine.get_request(req_id, "oliver")
    assert req.last_reminded_at is not None


async def test_a_withdrawal_the_store_never_confirms_says_so_and_claims_nothing(
    slack: SlackHarness, monkeypatch: pytest.MonkeyPatch
):
    """Redis stays away: the answer says it is not known yet — never "withdrawn", never "nothing changed"."""
    h = slack
    req_id = await ask_and_submit(h, OLIVER, "annual leave next Monday to Wednesday")

    async def dropped(*args, **kwargs):
        raise redis.exceptions.ConnectionError("Connection refused.")

    monkeypatch.setattr(h.engine.store, "_apply", dropped)
    answer = await h.bot.core.withdraw(h.engine.person("oliver"), req_id)
    assert not answer.ok and "not known" in answer.text, answer.text
    assert "nothing was changed" not in answer.text
