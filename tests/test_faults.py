"""Faults across the whole product: the LLM misbehaving, Redis killed mid-conversation, Slack failing.

Every turn ends with a clear message; no request, decision or DM is lost or doubled.
"""

from __future__ import annotations

import json
from datetime import datetime

import fakeredis
import pytest

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from tests.agent.fake_openai import FakeOpenAI, completion, wire_call
from tests.slack.harness import start_harness, stop_harness
from tests.test_durability import RedisServer, redis_server  # noqa: F401 - the fixture
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine
from workflow.store import connect

OLIVER, EMMA = "U0OLIVER", "U0EMMA"


def engine_on(redis) -> Engine:
    config = load_config().model_copy(
        update={"organisation": Organisation(id="faults", name="Acme")}
    )
    return Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))


def texts(messages) -> str:
    out = []
    for m in messages:
        for c in [m, *m.get("replies", [])]:
            out += [
                c.get("text") or "",
                json.dumps(c.get("blocks") or [], ensure_ascii=False),
                (c.get("stream") or {}).get("markdown_text") or "",
            ]
    return "\n".join(out)


def card(messages, action_id):
    found = None
    for m in messages:
        for c in [m, *m.get("replies", [])]:
            if any(
                b.get("type") == "actions"
                and any(e.get("action_id") == action_id for e in b.get("elements", []))
                for b in c.get("blocks") or []
            ):
                found = c
    return found


@pytest.fixture
async def llm():
    server = FakeOpenAI()
    await server.start()
    yield server
    await server.stop()


async def test_an_llm_that_rate_limits_sends_broken_arguments_then_fails_still_ends_the_turn(
    llm: FakeOpenAI,
):
    """429 with Retry-After, invalid JSON arguments, then 500s: the request is prepared and the person is told."""
    sleeps: list[float] = []

    async def no_wait(seconds: float) -> None:
        sleeps.append(seconds)

    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    model = OpenAICompatModel(
        options_for("generic", base_url=llm.base_url, model="m", api_key="k"), sleep=no_wait
    )
    h = await start_harness(engine_on(redis), redis, model)
    try:
        llm.error(429, "slow down", headers={"retry-after": "2"})
        llm.answer(
            completion(
                tool_calls=[wire_call("propose_leave", '{"leave_type": "annual", "start": ')]
            )
        )
        llm.answer(
            completion(
                tool_calls=[
                    wire_call(
                        "propose_leave",
                        {"leave_type": "annual", "start": "2026-12-07", "end": "2026-12-09"},
                        id="call_2",
                    )
                ]
            )
        )
        for _ in range(3):
            llm.error(500, "boom")
        await h.dm(OLIVER, "annual leave next Monday to Wednesday")
        await h.settle()
        # the proposal ended that turn; the next message meets the 500s
        await h.dm(OLIVER, "thanks, is it sent?")
        await h.settle()
        said = texts(h.dm_messages(OLIVER))
        assert 2.0 in sleeps  # Retry-After honoured
        assert card(h.dm_messages(OLIVER), "pending_confirm") is not None  # prepared despite it all
        assert "offline assistant" in said  # the planner finished the turn and said so
        bodies = [json.dumps(r) for r in llm.requests]
        assert any("not valid JSON" in b for b in bodies)  # the broken call went back as an error
        assert await h.engine.my_requests("oliver") == []  # nothing submitted without the click
    finally:
        await model.close()
        await stop_harness(h)


async def test_an_llm_that_times_out_hands_over_to_the_planner(llm: FakeOpenAI):
    """Every call slower than the timeout: the offline planner answers within the same turn."""
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    model = OpenAICompatModel(
        options_for("generic", base_url=llm.base_url, model="m", timeout_s=0.2, max_retries=0)
    )
    h = await start_harness(engine_on(redis), redis, model)
    try:
        llm.answer(completion("late"), delay=2)
        await h.dm(OLIVER, "what is my balance?")
        await h.settle()
        said = texts(h.dm_messages(OLIVER))
        assert "offline assistant" in said and "Annual leave" in said
    finally:
        await model.close()
        await stop_harness(h)


@pytest.mark.slow
async def test_redis_killed_mid_conversation_loses_and_doubles_nothing(redis_server: RedisServer):  # noqa: F811
    """Submitted, then Redis is SIGKILLed: a DM is refused with 503 (Slack retries it), a click gets a
    clear line and changes nothing; after the restart (AOF) the retried DM is answered, the approval
    goes through and every DM is delivered exactly once."""
    redis = connect(redis_server.url)
    h = await start_harness(engine_on(redis), redis)
    try:
        await h.dm(OLIVER, "annual leave next Monday to Wednesday")
        await h.settle()
        await h.click(OLIVER, card(h.dm_messages(OLIVER), "pending_confirm"), "pending_confirm")
        await h.settle()
        [req] = await h.engine.my_requests("oliver")
        approve_card = card(h.dm_messages(EMMA), "request_approve")
        assert approve_card is not None

        redis_server.kill()
        refused, envelope = await h.dm(OLIVER, "what is my balance?")
        assert refused.status == 503  # not queued, so not acked: Slack delivers it again
        await h.click(EMMA, approve_card, "request_approve")
        await h.bot.tasks.idle()
        assert any("unreachable" in e["text"] for e in h.standin.calls("chat.postEphemeral"))

        redis_server.start()
        assert (await h.redeliver(envelope, retry=1)).status == 200
        await h.settle()
        assert "Annual leave" in texts(h.dm_messages(OLIVER))  # the retried DM is answered
        await h.click(EMMA, approve_card, "request_approve")
        await h.settle()
        done = await h.engine.get_request(req.id, "oliver")
        assert done.status.value == "approved"
        events = await redis.xrange(h.engine.keys.outbox)
        assert [f["type"] for _, f in events].count("request_approved") == 1
        dms = [
            m["metadata"]["event_payload"]["event_id"]
            for m in h.dm_messages(OLIVER)
            if m.get("metadata")
        ]
        assert len(dms) == len(set(dms)) >= 2  # submitted and approved, once each
    finally:
        await stop_harness(h)
        await redis.aclose()
