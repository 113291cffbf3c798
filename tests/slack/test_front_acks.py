"""POST /slack/events through serve's front (bot/front.py) on one keep-alive connection.

A person's DM is acked by the front without aiohttp; any other request on that connection —
a command, a click, /healthz, a forged DM — gets the edge's (or aiohttp's) answer, exactly as
before, and so does every request after it.
"""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections.abc import Callable

import pytest

from agent.catalogue import say
from tests.slack.harness import SlackHarness
from tests.test_front import Conn, Response

OLIVER = "U0OLIVER"


def http(h: SlackHarness, body: str, content_type: str, headers: dict[str, str]) -> bytes:
    data = body.encode()
    head = [
        "POST /slack/events HTTP/1.1",
        "Host: bot",
        f"Content-Type: {content_type}",
        f"Content-Length: {len(data)}",
        *(f"{k}: {v}" for k, v in headers.items()),
    ]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + data


def dm(h: SlackHarness, text: str, *, forged: bool = False) -> tuple[bytes, str]:
    """A signed DM event from Oliver (signed with the wrong secret if `forged`); its ts."""
    message = h.standin.post_user_message(OLIVER, text)
    event = {
        "type": "message",
        "channel": message["channel"],
        "user": OLIVER,
        "text": text,
        "ts": message["ts"],
        "channel_type": "im",
    }
    body = json.dumps(h.sim.envelope(event))
    headers = h.signed_headers(body)
    if forged:
        headers["X-Slack-Signature"] = "v0=" + "0" * 64
    return http(h, body, "application/json", headers), message["ts"]


def command(h: SlackHarness) -> bytes:
    form = urllib.parse.urlencode(
        {
            "team_id": h.sim.team_id,
            "channel_id": h.standin.dm_channel(OLIVER),
            "user_id": OLIVER,
            "command": "/leave",
            "text": "annual leave next Monday",
            "trigger_id": h.standin.issue_trigger_id(OLIVER),
        }
    )
    return http(h, form, "application/x-www-form-urlencoded", h.signed_headers(form))


def click(h: SlackHarness) -> bytes:
    payload = {
        "type": "block_actions",
        "user": {"id": OLIVER},
        "team": {"id": h.sim.team_id},
        "actions": [{"action_id": "request_approve", "value": "not a step"}],
    }
    form = "payload=" + urllib.parse.quote(json.dumps(payload))
    return http(h, form, "application/x-www-form-urlencoded", h.signed_headers(form))


def healthz(_: SlackHarness) -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n"


def forged(h: SlackHarness) -> bytes:
    return dm(h, "annual leave next Monday", forged=True)[0]


def expect_command(r: Response) -> None:
    assert (r.status, r.body.decode()) == (200, say("ack.command", "en"))


def expect_click(r: Response) -> None:
    assert (r.status, r.body) == (200, b"")  # the edge ignores a click of a broken shape


def expect_healthz(r: Response) -> None:
    assert r.status == 200 and json.loads(r.body)["ok"] is True


def expect_forged(r: Response) -> None:
    assert (r.status, r.body) == (401, b"the signature does not match or is stale")


async def test_a_dm_is_acked_by_the_front_and_its_turn_queued(slack: SlackHarness):
    h = slack
    conn = Conn(*await asyncio.open_connection("127.0.0.1", h.port))
    sent = [dm(h, f"annual leave next Monday {i}") for i in range(2)]
    for data, _ in sent:
        await conn.send(data)
        r = await conn.response()
        assert (r.status, r.body, r.by_aiohttp) == (200, b"", False)
    conn.close()
    await h.settle()
    for _, ts in sent:
        assert any(m.get("stream") for m in h.thread(OLIVER, ts))  # answered by the runner


@pytest.mark.parametrize(
    ("other", "expect"),
    [
        (command, expect_command),
        (click, expect_click),
        (healthz, expect_healthz),
        (forged, expect_forged),
    ],
    ids=["command", "click", "healthz", "bad-signature"],
)
async def test_other_requests_on_a_dm_s_connection_get_the_edge_s_answer(
    slack: SlackHarness,
    other: Callable[[SlackHarness], bytes],
    expect: Callable[[Response], None],
):
    h = slack
    conn = Conn(*await asyncio.open_connection("127.0.0.1", h.port))
    await conn.send(dm(h, "annual leave next Monday")[0])
    first = await conn.response()
    assert (first.status, first.by_aiohttp) == (200, False)
    await conn.send(other(h))
    r = await conn.response()
    assert r.by_aiohttp
    expect(r)
    await conn.send(dm(h, "annual leave next Friday")[0])  # the connection is aiohttp's now
    last = await conn.response()
    assert (last.status, last.by_aiohttp) == (200, True)
    conn.close()
