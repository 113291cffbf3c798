"""The notifier: a DM is neither lost nor sent twice when the notifier dies at the worst moment."""

from __future__ import annotations

import asyncio

import pytest

from bot.notifier import OutboxWorker
from bot.serve import NOTIFIER_GROUP
from bot.slack.delivery import SlackDelivery
from tests.helpers import submitted
from tests.slack.harness import SlackHarness
from workflow.outbox import Outbox

WANG = "U0WANGFANG"


class Killed(BaseException):
    """Stands for the process dying: not an Exception, so nothing in the notifier catches it."""


def approval_cards(h: SlackHarness) -> list[dict]:
    return [m for m in h.dm_messages(WANG) if "request_approve" in str(m.get("blocks"))]


async def fresh_worker(h: SlackHarness, consumer: str) -> OutboxWorker:
    delivery = SlackDelivery(h.engine, h.bot.client, h.bot.identity, h.bot.cards)
    worker = OutboxWorker(
        Outbox(h.engine.store.redis, h.engine.keys, NOTIFIER_GROUP),
        [delivery],
        consumer,
        reclaim_idle_ms=0,
    )
    return worker


async def test_killed_after_slack_accepted_the_dm_but_before_recording_it(
    slack: SlackHarness, monkeypatch
):
    """Slack took the DM, then the notifier died before its key and ack: after restart the DM is found, not re-sent."""
    h = slack
    await submitted(h.engine, actor="zhangsan")
    client = h.bot.client
    real_post = client.chat_postMessage

    async def post_then_die(**kwargs):
        response = await real_post(**kwargs)  # Slack has accepted the DM...
        if "request_approve" in str(kwargs.get("blocks")):
            raise Killed()  # ...and the notifier dies before recording it or acking the event
        return response

    monkeypatch.setattr(client, "chat_postMessage", post_then_die)
    with pytest.raises(Killed):
        await h.worker.run_once()
    monkeypatch.setattr(client, "chat_postMessage", real_post)
    assert len(approval_cards(h)) == 1  # Slack has it

    restarted = await fresh_worker(h, "restarted")
    while await restarted.run_once():
        pass
    assert len(approval_cards(h)) == 1  # found by its metadata, not posted again
    assert await restarted.outbox.lag() == 0  # and every event is acked


async def test_killed_after_recording_but_before_the_ack(slack: SlackHarness, monkeypatch):
    """The DM was sent and recorded but the event not acked: redelivery sees the key and sends nothing."""
    h = slack
    await submitted(h.engine, actor="zhangsan")
    real_ack = h.worker.outbox.ack

    async def dying_ack(*ids):
        raise Killed()

    monkeypatch.setattr(h.worker.outbox, "ack", dying_ack)
    with pytest.raises(Killed):
        await h.worker.run_once()
    monkeypatch.setattr(h.worker.outbox, "ack", real_ack)
    posted = len(h.standin.calls("chat.postMessage"))
    restarted = await fresh_worker(h, "restarted")
    while await restarted.run_once():
        pass
    assert len(approval_cards(h)) == 1
    assert (
        len(h.standin.calls("chat.postMessage")) == posted + 1
    )  # only the DM the kill had prevented
    assert await restarted.outbox.lag() == 0


async def test_a_slack_outage_delays_a_dm_and_never_drops_it(slack: SlackHarness):
    """Slack answering 500 (past the client's retries) leaves the event pending; it is delivered once Slack is back."""
    h = slack
    await submitted(h.engine, actor="zhangsan")
    h.standin.fail_next("chat.postMessage", error="internal_error", status=500, times=10)
    worker = await fresh_worker(h, "w1")
    assert await worker.run_once() == 0
    assert approval_cards(h) == []
    h.standin.clear_faults()
    while await worker.run_once():
        pass
    assert len(approval_cards(h)) == 1
    assert await worker.outbox.lag() == 0


async def test_rate_limited_posts_are_retried_after_retry_after(slack: SlackHarness):
    """A 429 with Retry-After is waited out by the client's retry handler and the DM goes through once."""
    h = slack
    await submitted(h.engine, actor="zhangsan")
    h.standin.fail_next("chat.postMessage", error="ratelimited", retry_after=1, times=1)
    started = asyncio.get_running_loop().time()
    await h.settle()
    assert len(approval_cards(h)) == 1
    assert asyncio.get_running_loop().time() - started >= 0.9
