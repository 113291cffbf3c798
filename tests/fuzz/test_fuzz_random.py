"""Random requests to /slack/events and /feishu/events (hypothesis): never a 5xx, never a traceback.

Unsigned bytes with random headers must change nothing at all (a full Redis dump before and
after); signed requests are valid ones with a random part removed or replaced by random
JSON: whatever they do, the answer is 2xx/4xx and nothing crashes, in the request or in the
background work it starts.
"""

from __future__ import annotations

import asyncio
import copy
import json
import urllib.parse
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import fakeredis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.budget import VerificationBudget
from tests.feishu.harness import ENCRYPT_KEY, FeishuHarness
from tests.feishu.harness import start_harness as start_feishu
from tests.feishu.harness import stop_harness as stop_feishu
from tests.fuzz.snapshot import redis_dump, tracebacks
from tests.slack.harness import SlackHarness
from tests.slack.harness import start_harness as start_slack
from tests.slack.harness import stop_harness as stop_slack
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

FORM = "application/x-www-form-urlencoded"
FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
OPEN = VerificationBudget(per_client=10**9, total=10**9)  # the fuzzer is one client

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)


def _engine(redis: Any, org: str) -> Engine:
    config = load_config().model_copy(update={"organisation": Organisation(id=org, name="Acme")})
    return Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


@pytest.fixture(scope="module")
def slack_rig(loop: asyncio.AbstractEventLoop) -> Iterator[SlackHarness]:
    async def start() -> SlackHarness:
        redis = fakeredis.FakeAsyncRedis(decode_responses=True)
        h = await start_slack(_engine(redis, "fzs"), redis)
        h.bot.edge.budget = OPEN
        return h

    h = loop.run_until_complete(start())
    yield h
    loop.run_until_complete(stop_slack(h))


@pytest.fixture(scope="module")
def feishu_rig(loop: asyncio.AbstractEventLoop) -> Iterator[FeishuHarness]:
    async def start() -> FeishuHarness:
        redis = fakeredis.FakeAsyncRedis(decode_responses=True)
        h = await start_feishu(_engine(redis, "fzf"), redis, encrypt_key=ENCRYPT_KEY)
        h.bot.budget = OPEN
        return h

    h = loop.run_until_complete(start())
    yield h
    loop.run_until_complete(stop_feishu(h))


# --- mutations of valid requests -----------------------------------------------------------


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@st.composite
def mutated(draw: st.DrawFn, template: dict[str, Any]) -> dict[str, Any]:
    """The template with one to three random parts removed or replaced by random JSON."""
    body = copy.deepcopy(template)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(body)
        if not paths:
            break
        path = draw(st.sampled_from(paths))
        parent = body
        for key in path[:-1]:
            parent = parent[key]
        if draw(st.booleans()) and isinstance(parent, dict):
            parent.pop(path[-1], None)
        else:
            parent[path[-1]] = draw(json_values)
    return body


SLACK_DM = {
    "type": "event_callback",
    "team_id": "T0ACME",
    "event_id": "EvFUZZ",
    "event": {
        "type": "message",
        "channel_type": "im",
        "channel": "D0FUZZ",
        "user": "U0OLIVER",
        "ts": "1796000000.000100",
        "text": "hi",
    },
}
SLACK_HOME = {"type": "event_callback", "event": {"type": "app_home_opened", "user": "U0EMMA"}}
SLACK_CLICK = {
    "type": "block_actions",
    "user": {"id": "U0EMMA"},
    "team": {"id": "T0ACME"},
    "trigger_id": "1.2.t",
    "container": {"channel_id": "D0EMMA", "message_ts": "1.1"},
    "actions": [{"action_id": "request_approve", "value": "R-NOPE:0"}],
}
SLACK_VIEW = {
    "type": "view_submission",
    "user": {"id": "U0EMMA"},
    "view": {
        "id": "V0FUZZ",
        "hash": "h",
        "callback_id": "reject_reason",
        "private_metadata": '{"request_id": "R-NOPE", "step": 0}',
        "state": {"values": {"reason": {"reason": {"value": "no"}}}},
    },
}
SLACK_COMMAND = {
    "command": "/leave",
    "user_id": "U0OLIVER",
    "team_id": "T0ACME",
    "trigger_id": "1.t",
}


def _slack_body(kind: str, body: Any) -> tuple[str, str]:
    if kind == "event":
        return json.dumps(body), "application/json"
    if kind == "command":
        flat = {k: v if isinstance(v, str) else json.dumps(v) for k, v in body.items()}
        return urllib.parse.urlencode(flat), FORM
    return urllib.parse.urlencode({"payload": json.dumps(body)}), FORM


slack_requests = st.one_of(
    st.tuples(st.just("event"), mutated(SLACK_DM)),
    st.tuples(st.just("event"), mutated(SLACK_HOME)),
    st.tuples(st.just("payload"), mutated(SLACK_CLICK)),
    st.tuples(st.just("payload"), mutated(SLACK_VIEW)),
    st.tuples(st.just("command"), mutated(SLACK_COMMAND)),
)
header_names = st.sampled_from(
    ["X-Slack-Request-Timestamp", "X-Slack-Signature", "X-Lark-Request-Timestamp",
     "X-Lark-Request-Nonce", "X-Lark-Signature", "Content-Type"]
)  # fmt: skip
header_values = st.text(
    st.characters(min_codepoint=32, max_codepoint=126), max_size=20
) | st.integers(0, 2**40).map(str)
unsigned = st.tuples(st.binary(max_size=300), st.dictionaries(header_names, header_values))


def _run(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    return loop.run_until_complete(coro)


def test_random_unsigned_requests_change_nothing(
    loop: asyncio.AbstractEventLoop,
    slack_rig: SlackHarness,
    feishu_rig: FeishuHarness,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    before = (_run(loop, redis_dump(slack_rig.engine.store.redis)),
              _run(loop, redis_dump(feishu_rig.engine.store.redis)))  # fmt: skip
    urls = (slack_rig.url, feishu_rig.sim.events_url)

    @FUZZ
    @given(unsigned, st.sampled_from(urls))
    def post(request: tuple[bytes, dict[str, str]], url: str) -> None:
        body, headers = request

        async def send() -> int:
            async with slack_rig.http.post(url, data=body, headers=headers) as resp:
                await resp.read()
                return resp.status

        assert 400 <= _run(loop, send()) < 500

    post()
    _run(loop, slack_rig.bot.tasks.idle())
    _run(loop, feishu_rig.bot.tasks.idle())
    after = (_run(loop, redis_dump(slack_rig.engine.store.redis)),
             _run(loop, redis_dump(feishu_rig.engine.store.redis)))  # fmt: skip
    assert after == before
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == [], (out.out + out.err)[-5000:]


def test_random_signed_slack_requests_never_crash(
    loop: asyncio.AbstractEventLoop,
    slack_rig: SlackHarness,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    @FUZZ
    @given(slack_requests)
    def post(request: tuple[str, Any]) -> None:
        body, content_type = _slack_body(*request)
        resp = _run(loop, slack_rig.post(body, content_type))
        assert resp.status < 500

    post()
    _run(loop, slack_rig.settle())
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == [], (out.out + out.err)[-5000:]


FEISHU_MESSAGE = {
    "sender": {"sender_id": {"open_id": "ou_zhangsan"}, "sender_type": "user"},
    "message": {
        "message_id": "om_fuzz",
        "chat_id": "oc_fuzz",
        "chat_type": "p2p",
        "message_type": "text",
        "content": '{"text": "hi"}',
    },
}
FEISHU_CLICK = {
    "operator": {"open_id": "ou_wangfang"},
    "token": "c-fuzz",
    "action": {"value": {"action": "request_approve", "request_id": "R-NOPE", "step": 0}},
    "context": {"open_message_id": "om_card"},
}
feishu_requests = st.one_of(
    st.tuples(st.just("im.message.receive_v1"), mutated(FEISHU_MESSAGE)),
    st.tuples(st.just("card.action.trigger"), mutated(FEISHU_CLICK)),
)


def test_random_signed_feishu_callbacks_never_crash(
    loop: asyncio.AbstractEventLoop,
    feishu_rig: FeishuHarness,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    @FUZZ
    @given(feishu_requests, st.booleans())
    def post(request: tuple[str, dict[str, Any]], mangle_header: bool) -> None:
        kind, event = request
        envelope = feishu_rig.sim.envelope(kind, event)
        if mangle_header:
            envelope["header"]["event_type"] = [kind]
        resp = _run(loop, feishu_rig.sim.deliver(envelope))
        assert resp.status < 500

    post()
    _run(loop, feishu_rig.settle())
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == [], (out.out + out.err)[-5000:]
