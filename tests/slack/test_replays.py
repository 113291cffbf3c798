"""Write requests replayed or double-clicked run once: one turn per /leave, one delegation per form."""

from __future__ import annotations

import asyncio
import urllib.parse

from tests.slack.harness import SlackHarness

FORM = "application/x-www-form-urlencoded"
OLIVER, EMMA = "U0OLIVER", "U0EMMA"


def _leave_body(h: SlackHarness, text: str) -> str:
    return urllib.parse.urlencode(
        {
            "team_id": h.sim.team_id,
            "channel_id": h.standin.dm_channel(OLIVER),
            "user_id": OLIVER,
            "command": "/leave",
            "text": text,
            "trigger_id": h.standin.issue_trigger_id(OLIVER),
        }
    )


async def test_the_same_signed_leave_command_twice_runs_one_turn(slack: SlackHarness):
    """A replayed `/leave <text>` (same trigger_id) gets the first answer and starts nothing."""
    h = slack
    body = _leave_body(h, "annual leave next Monday")
    first = await h.post(body, FORM)
    again = await h.post(body, FORM)
    await h.settle()
    assert first.status == again.status == 200
    openers = [
        c for c in h.standin.calls("chat.postMessage") if c.get("text", "").startswith("/leave")
    ]
    assert len(openers) == 1
    drafts = [m for m in h.dm_messages(OLIVER) if m.get("text", "").startswith("/leave")]
    assert len(drafts) == 1


async def test_two_leave_commands_at_once_run_one_turn(slack: SlackHarness):
    """The replay racing the original: still one turn."""
    h = slack
    body = _leave_body(h, "annual leave next Tuesday")
    answers = await asyncio.gather(h.post(body, FORM), h.post(body, FORM))
    await h.settle()
    assert [a.status for a in answers] == [200, 200]
    openers = [
        c for c in h.standin.calls("chat.postMessage") if c.get("text", "").startswith("/leave")
    ]
    assert len(openers) == 1


async def test_the_same_delegation_form_twice_creates_one_delegation(slack: SlackHarness):
    """A double-clicked (or replayed) delegation form sets one delegation; both get the same answer."""
    h = slack
    emma = h.engine.directory.by_slack_id(EMMA)
    await h.sim.home_opened(EMMA)
    await h.settle()
    home = h.standin.workspace.views.home(EMMA)
    assert home is not None
    await h.sim.click_in_view(EMMA, home, "open_delegation_form")
    opened = await h.standin.wait_for_call("views.open")
    assert opened["view"]["callback_id"] == "delegation_form"
    delegate = next(p for p in h.engine.directory if p.id not in (emma.id,) and p.slack_user_id)
    values = {
        "delegate": {"delegate": {"selected_option": {"value": delegate.id}}},
        "start": {"start": {"selected_date": "2026-12-07"}},
        "end": {"end": {"selected_date": "2026-12-11"}},
        "reason": {"reason": {"value": "away"}},
    }
    view = opened["view"]
    first = await h.submit_view(EMMA, view, values)
    again = await h.submit_view(EMMA, view, values)
    await h.settle()
    assert first.status == again.status == 200
    assert await first.read() == await again.read()
    assert [d.delegate for d in await h.engine.delegations()] == [delegate.id]
