"""The open-API client against the stand-in: token caching, idempotent sends, retries, typed errors."""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.feishu.client import FeishuClient
from bot.feishu.errors import FeishuError, FeishuRateLimited, FeishuUnavailable
from bot.sandbox.standins.feishu.server import FeishuStandIn

USER = "ou_alice"
CARD = {
    "config": {"update_multi": True},
    "header": {"title": {"tag": "plain_text", "content": "Hi"}},
    "elements": [{"tag": "div", "text": {"tag": "plain_text", "content": "one"}}],
}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
async def standin():
    s = FeishuStandIn(app_id="cli_a", app_secret="sec")
    s.add_user(USER, "Alice")
    await s.start()
    yield s
    await s.stop()


@pytest.fixture
def waits() -> list[float]:
    return []


@pytest.fixture
async def client(standin, waits):
    async def sleep(seconds: float) -> None:
        waits.append(seconds)

    c = FeishuClient("cli_a", "sec", standin.base_url, sleep=sleep, backoff_s=0.01)
    yield c
    await c.close()


async def test_the_token_is_fetched_once_for_concurrent_calls(standin, client):
    """Ten sends at once share one tenant_access_token request."""
    await asyncio.gather(*(client.send(USER, "text", {"text": f"hi {n}"}) for n in range(10)))
    assert len(standin.calls("token")) == 1
    assert len(standin.chat(USER)) == 10
    assert all(r.token == standin.calls("send")[0].token for r in standin.calls("send"))


async def test_the_token_is_refreshed_ten_minutes_before_it_expires(standin):
    """A 7200 s token is reused for 6600 s, then fetched again."""
    clock = Clock()
    c = FeishuClient("cli_a", "sec", standin.base_url, clock=clock)
    try:
        first = await c.tenant_token()
        clock.now += 6599
        assert await c.tenant_token() == first
        clock.now += 2
        assert await c.tenant_token() != first
        assert len(standin.calls("token")) == 2
    finally:
        await c.close()


async def test_a_token_feishu_no_longer_accepts_is_replaced_once(standin, client):
    """99991663 (invalid token): the client fetches a new token and the call succeeds."""
    await client.send(USER, "text", {"text": "one"})
    standin.expire_tokens()
    await client.send(USER, "text", {"text": "two"})
    assert [r.status for r in standin.calls("send")] == [200, 400, 200]
    assert len(standin.calls("token")) == 2


async def test_rate_limits_are_retried_honouring_the_reset_header(standin, client, waits):
    """429 / 99991400 twice, then success: one message, and the client waited the reset time."""
    standin.fail_next("send", times=2, reset_s=2)
    data = await client.send(USER, "text", {"text": "hello"}, uuid="u-1")
    assert data["message_id"]
    assert [r.status for r in standin.calls("send")] == [429, 429, 200]
    assert waits == [2.0, 2.0]
    assert len(standin.chat(USER)) == 1


async def test_a_lasting_rate_limit_raises_a_typed_error(standin, client):
    """After max_attempts the error carries Feishu's code and message."""
    standin.fail_next("send", times=10, reset_s=0)
    with pytest.raises(FeishuRateLimited) as e:
        await client.send(USER, "text", {"text": "hello"})
    assert e.value.code == 99991400 and "frequency" in e.value.msg and e.value.retryable
    assert len(standin.calls("send")) == client.max_attempts


async def test_server_errors_are_retried_then_reported(standin, client):
    """5xx is retried; a lasting one is FeishuUnavailable."""
    standin.fail_next("patch", code=1500, msg="internal error", status=500)
    sent = await client.send(USER, "interactive", CARD)
    await client.patch_card(sent["message_id"], CARD)
    assert [r.status for r in standin.calls("patch")] == [500, 200]
    standin.fail_next("patch", code=1500, msg="internal error", status=503, times=10)
    with pytest.raises(FeishuUnavailable) as e:
        await client.patch_card(sent["message_id"], CARD)
    assert e.value.http_status == 503 and e.value.code == 1500


async def test_a_refusal_is_not_retried_and_says_why(standin, client):
    """An open_id the bot cannot reach: FeishuError 230013 at once, with the log id."""
    with pytest.raises(FeishuError) as e:
        await client.send("ou_nobody", "text", {"text": "hi"})
    assert e.value.code == 230013 and not e.value.retryable and e.value.log_id
    assert len(standin.calls("send")) == 1


async def test_a_wrong_app_secret_is_reported(standin):
    """The token endpoint's refusal surfaces as a FeishuError naming the code."""
    c = FeishuClient("cli_a", "wrong", standin.base_url)
    try:
        with pytest.raises(FeishuError) as e:
            await c.send(USER, "text", {"text": "hi"})
        assert e.value.code == 10014
    finally:
        await c.close()


async def test_a_slow_api_times_out_as_unavailable(standin, waits):
    """Each attempt is bounded by the timeout; after the last one the error is FeishuUnavailable."""

    async def sleep(_: float) -> None:
        return None

    c = FeishuClient("cli_a", "sec", standin.base_url, timeout_s=0.05, max_attempts=2, sleep=sleep)
    try:
        await c.tenant_token()
        standin.latency_s = 0.5
        with pytest.raises(FeishuUnavailable) as e:
            await c.send(USER, "text", {"text": "late"})
        assert e.value.code == -1 and "Timeout" in e.value.msg
    finally:
        standin.latency_s = 0
        await c.close()


async def test_the_same_uuid_is_the_same_message(standin, client):
    """Feishu's send idempotency: a repeated uuid within an hour returns the first message."""
    a = await client.send(USER, "text", {"text": "once"}, uuid="same-uuid")
    b = await client.send(USER, "text", {"text": "once"}, uuid="same-uuid")
    assert a["message_id"] == b["message_id"] and len(standin.chat(USER)) == 1


async def test_reply_in_thread_and_patch_a_card(standin, client):
    """A thread reply carries root and thread ids; a PATCH replaces the card's content."""
    asked = standin.user_says(USER, "hello")
    reply = await client.reply(asked.message_id, "interactive", CARD)
    assert reply["root_id"] == asked.message_id and reply["thread_id"]
    new = {**CARD, "elements": [{"tag": "div", "text": {"tag": "plain_text", "content": "two"}}]}
    await client.patch_card(reply["message_id"], new)
    stored = standin.message(reply["message_id"])
    assert stored.updated and stored.card["elements"][0]["text"]["content"] == "two"
    body = standin.calls("patch")[0].body
    assert json.loads(body["content"]) == new  # content is a JSON string, as Feishu wants


async def test_only_shared_cards_can_be_patched(standin, client):
    """A card without config.update_multi cannot be updated: Feishu refuses, and so does the stand-in."""
    sent = await client.send(USER, "interactive", {**CARD, "config": {}})
    with pytest.raises(FeishuError) as e:
        await client.patch_card(sent["message_id"], CARD)
    assert e.value.code == 230099


async def test_malformed_cards_are_refused_like_feishu_does(standin, client):
    """A button whose value is not an object fails with 230099, not silently."""
    bad = {
        "elements": [
            {
                "tag": "action",
                "actions": [
                    {"tag": "button", "text": {"tag": "plain_text", "content": "x"}, "value": "v"}
                ],
            }
        ]
    }
    with pytest.raises(FeishuError) as e:
        await client.send(USER, "interactive", bad)
    assert e.value.code == 230099 and "value" in e.value.msg
