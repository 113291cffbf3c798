"""Slack's signature on a DM, checked over the body's bytes before anything is queued.

The DM fast path checks `X-Slack-Signature` itself (no slack_sdk verifier, no decoding of the
body): these DMs are signed as Slack signs them (slack_sdk's scheme, in the simulator) and
sent as UTF-8 bytes, so a difference between the two would refuse real people's messages.
"""

from __future__ import annotations

import json
import time

from tests.fuzz.snapshot import redis_dump
from tests.slack.harness import SlackHarness

OLIVER = "U0OLIVER"
JSON = "application/json"


def dm_body(h: SlackHarness, text: str, event_id: str) -> str:
    """A DM event as Slack sends it, not escaped to ASCII (Slack sends UTF-8)."""
    message = h.standin.post_user_message(OLIVER, text)
    event = {
        "type": "message",
        "channel_type": "im",
        "channel": message["channel"],
        "user": OLIVER,
        "text": text,
        "ts": message["ts"],
    }
    return json.dumps(h.sim.envelope(event, event_id), ensure_ascii=False)


async def test_a_dm_in_chinese_with_an_emoji_signed_by_slack_is_acked_and_answered(
    slack: SlackHarness,
):
    """The signature of a UTF-8 body (not ASCII) matches: 200, and the person gets an answer."""
    h = slack
    body = dm_body(h, "下周一请年假 🌴", "EvUTF8")
    resp = await h.post(body, JSON, h.signed_headers(body))
    assert resp.status == 200
    await h.settle()
    assert h.standin.calls("chat.startStream") != []


async def test_a_dm_changed_after_signing_or_signed_too_long_ago_is_refused_and_changes_nothing(
    slack: SlackHarness,
):
    """One character changed after signing, or signed six minutes ago: 401, nothing queued or said."""
    h = slack
    body = dm_body(h, "年假 next Monday", "EvTamper")
    before = await redis_dump(h.engine.store.redis)
    changed = await h.post(body.replace("Monday", "Friday"), JSON, h.signed_headers(body))
    stale = await h.post(body, JSON, h.signed_headers(body, ts=int(time.time()) - 360))
    await h.settle()
    assert (changed.status, stale.status) == (401, 401)
    assert await redis_dump(h.engine.store.redis) == before
    assert h.standin.calls("chat.startStream") == [] and h.standin.calls("chat.postMessage") == []


async def test_a_dm_signed_four_minutes_ago_is_still_accepted(slack: SlackHarness):
    """Slack's clock and ours may differ: a signature up to five minutes old is accepted."""
    h = slack
    body = dm_body(h, "annual leave next Monday", "EvLate")
    resp = await h.post(body, JSON, h.signed_headers(body, ts=int(time.time()) - 240))
    assert resp.status == 200
    await h.settle()
    assert h.standin.calls("chat.startStream") != []
