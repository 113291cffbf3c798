"""Hostile and random requests to the sandbox's page API (/sandbox/…): never a 5xx, never a traceback.

The page API acts as anyone in the directory, so what must hold is stricter than for the
platforms' endpoints: a request that is refused (no token, another site, not JSON, a body
of the wrong shape, someone else's message) answers 4xx with `{"ok": false, …}` and changes
nothing — a full Redis dump and both stand-ins' state are compared before and after. A table
holds the hostile inputs; hypothesis sends random ones, with and without the page's token.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given
from hypothesis import strategies as st

from bot.sandbox.guard import TOKEN_HEADER
from bot.sandbox.server import Sandbox
from tests.fuzz.snapshot import redis_dump, tracebacks
from tests.fuzz.test_fuzz_random import FUZZ, json_values, mutated
from tests.sandbox.conftest import NOW, runtime_at
from tests.sandbox.test_sandbox_server import buttons

OLIVER, EMMA, ZHANG = "U0OLIVER", "U0EMMA", "ou_zhangsan"
DEEP = "[" * 100_000 + "]" * 100_000


@dataclass
class Rig:
    """A sandbox serving on a free port, a client that sends the page's token, and a pending request."""

    sandbox: Sandbox
    client: TestClient
    emma_card: dict[str, Any]  # the approver's card of Oliver's request: a click would decide it

    def headers(self, **extra: str) -> dict[str, str]:
        return {TOKEN_HEADER: self.sandbox.page_token, **extra}


@pytest.fixture(scope="module")
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    running = asyncio.new_event_loop()
    yield running
    running.close()


def _run(loop: asyncio.AbstractEventLoop, coro: Any) -> Any:
    return loop.run_until_complete(coro)


async def _start() -> Rig:
    sandbox = Sandbox(runtime_at(NOW))
    server = TestServer(sandbox.app)
    client = TestClient(server)
    await client.start_server()
    sandbox.bind(str(server.make_url("/")))
    token = {TOKEN_HEADER: sandbox.page_token}
    sent = await client.post(
        "/sandbox/message",
        json={"user": OLIVER, "text": "annual leave next Monday to Wednesday"},
        headers=token,
    )
    assert sent.status == 200
    await sandbox.bot.tasks.idle()
    [top] = sandbox.standin.snapshot(OLIVER)["messages"]
    card = next(r for r in top["replies"] if "pending_confirm" in buttons(r))
    click = {
        "user": OLIVER,
        "channel": sandbox.standin.dm_channel(OLIVER),
        "ts": card["ts"],
        "action_id": "pending_confirm",
    }
    assert (await client.post("/sandbox/click", json=click, headers=token)).status == 200
    await sandbox.standin.wait_for_call(
        "chat.postMessage",
        lambda p: p.get("channel") == sandbox.standin.dm_channel(EMMA),
        within=10,
    )
    [approval] = sandbox.standin.snapshot(EMMA)["messages"]
    assert "request_approve" in buttons(approval)
    rig = Rig(sandbox, client, {**approval, "channel": sandbox.standin.dm_channel(EMMA)})
    await quiet(rig)
    return rig


@pytest.fixture(scope="module")
def rig(loop: asyncio.AbstractEventLoop) -> Iterator[Rig]:
    started = _run(loop, _start())
    yield started

    async def stop() -> None:
        await started.sandbox.bot.tasks.drain(5)
        await started.client.close()
        await started.sandbox.runtime.redis.aclose()

    _run(loop, stop())


async def state(rig: Rig) -> tuple[Any, ...]:
    """All the sandbox's state: a full Redis dump and what both stand-ins hold."""
    sandbox = rig.sandbox
    ws = sandbox.standin.workspace
    slack = {u: sandbox.standin.snapshot(u) for u in (OLIVER, EMMA)}
    tenant = sandbox.feishu.standin.tenant
    feishu = {mid: m.to_dict() for mid, m in tenant.messages.items()}
    return (
        await redis_dump(sandbox.runtime.redis),
        ws.change_seq,
        json.dumps(slack, sort_keys=True, default=str),
        json.dumps(feishu, sort_keys=True, default=str, ensure_ascii=False),
    )


async def quiet(rig: Rig) -> None:
    """Wait until the bots' work and the notifier are done: the state no longer moves."""
    last = None
    for _ in range(100):
        await rig.sandbox.bot.tasks.idle()
        now = await state(rig)
        if now == last:
            return
        last = now
        await asyncio.sleep(0.05)
    raise AssertionError("the sandbox never went quiet")


# --- the table -------------------------------------------------------------------------------

TEXT_PLAIN = {"Content-Type": "text/plain"}
EVIL = {"Origin": "https://evil.example"}
DM = {"user": OLIVER, "text": "annual leave next Monday to Wednesday"}
# (name, method, path, body: a dict (sent as JSON), a str (sent as is) or None, headers, token?, statuses)
HOSTILE: list[tuple[str, str, str, Any, dict[str, str], bool, set[int]]] = [
    ("cross-site-text-plain", "POST", "/sandbox/message", json.dumps(DM), EVIL | TEXT_PLAIN, False, {403}),
    ("cross-site-with-token", "POST", "/sandbox/message", DM, EVIL, True, {403}),
    ("sec-fetch-cross-site", "POST", "/sandbox/message", DM, {"Sec-Fetch-Site": "cross-site"}, True, {403}),
    ("no-token", "POST", "/sandbox/message", DM, {}, False, {403}),
    ("wrong-token", "POST", "/sandbox/message", DM, {TOKEN_HEADER: "guess"}, False, {403}),
    ("token-in-query-post", "POST", "/sandbox/message?token=x", DM, {}, False, {403}),
    ("rebinding-host", "GET", "/sandbox/info", None, {"Host": "evil.example"}, True, {403}),
    ("read-without-token", "GET", "/sandbox/people", None, {}, False, {403}),
    ("feed-without-token", "GET", "/sandbox/events", None, {}, False, {403}),
    ("text-plain-with-token", "POST", "/sandbox/message", json.dumps(DM), TEXT_PLAIN, True, {415}),
    ("not-json", "POST", "/sandbox/message", "{nope", {}, True, {400}),
    ("json-list", "POST", "/sandbox/message", "[1, 2]", {}, True, {400}),
    ("json-string", "POST", "/sandbox/home", '"U0OLIVER"', {}, True, {400}),
    ("deeply-nested", "POST", "/sandbox/message", '{"user": ' + DEEP + "}", {}, True, {400}),
    ("not-utf8", "POST", "/sandbox/home", b'{"user": "\xff\xfe"}', {}, True, {400}),
    ("empty-body", "POST", "/sandbox/home", "", {}, True, {400}),
    ("no-user", "POST", "/sandbox/message", {"text": "hi"}, {}, True, {400}),
    ("user-number", "POST", "/sandbox/message", {"user": 5, "text": "hi"}, {}, True, {400}),
    ("user-object", "POST", "/sandbox/home", {"user": {"id": OLIVER}}, {}, True, {400}),
    ("unknown-user", "POST", "/sandbox/message", {"user": "U0NOBODY", "text": "hi"}, {}, True, {404}),
    ("text-object", "POST", "/sandbox/message", {"user": OLIVER, "text": {"a": 1}}, {}, True, {400}),
    ("text-blank", "POST", "/sandbox/message", {"user": OLIVER, "text": "   "}, {}, True, {400}),
    ("text-too-long", "POST", "/sandbox/message", {"user": OLIVER, "text": "a" * 5000}, {}, True, {400}),
    ("thread-ts-object", "POST", "/sandbox/message", DM | {"thread_ts": {"a": 1}}, {}, True, {400}),
    ("thread-ts-number", "POST", "/sandbox/message", DM | {"thread_ts": 1.5}, {}, True, {400}),
    ("command-list", "POST", "/sandbox/command", {"user": OLIVER, "command": ["/leave"]}, {}, True, {400}),
    ("command-text-number", "POST", "/sandbox/command", {"user": OLIVER, "command": "/leave", "text": 5}, {}, True, {400}),
    ("click-no-channel", "POST", "/sandbox/click", {"user": EMMA, "action_id": "request_approve", "ts": "1.1"}, {}, True, {400}),
    ("click-no-action", "POST", "/sandbox/click", {"user": EMMA, "channel": "D0X", "ts": "1.1"}, {}, True, {400}),
    ("click-block-id-object", "POST", "/sandbox/click", "EMMA_CARD:block_id", {}, True, {400}),
    ("click-value-object", "POST", "/sandbox/click", "EMMA_CARD:value", {}, True, {400}),
    ("click-someone-elses-card", "POST", "/sandbox/click", "EMMA_CARD:as_oliver", {}, True, {404}),
    ("click-no-such-button", "POST", "/sandbox/click", "EMMA_CARD:action", {}, True, {404}),
    ("click-view-object", "POST", "/sandbox/click", {"user": EMMA, "action_id": "x", "view_id": {"a": 1}}, {}, True, {400, 404}),
    ("submit-no-view", "POST", "/sandbox/views/submit", {"user": OLIVER, "view_id": "V0NONE", "values": {}}, {}, True, {404}),
    ("submit-values-list", "POST", "/sandbox/views/submit", {"user": OLIVER, "view_id": "V0NONE", "values": []}, {}, True, {400, 404}),
    ("close-view-number", "POST", "/sandbox/views/close", {"user": OLIVER, "view_id": 7}, {}, True, {400, 404}),
    ("dismiss-ts-number", "POST", "/sandbox/ephemeral/dismiss", {"user": OLIVER, "ts": 1}, {}, True, {400}),
    ("snapshot-no-user", "GET", "/sandbox/snapshot", None, {}, True, {400}),
    ("snapshot-unknown", "GET", "/sandbox/snapshot?user=U0NOBODY", None, {}, True, {404}),
    ("feishu-no-open-id", "POST", "/sandbox/feishu/message", {"text": "你好"}, {}, True, {400}),
    ("feishu-unknown", "POST", "/sandbox/feishu/message", {"open_id": "ou_nobody", "text": "你好"}, {}, True, {404}),
    ("feishu-text-list", "POST", "/sandbox/feishu/message", {"open_id": ZHANG, "text": ["x"]}, {}, True, {400}),
    ("feishu-root-not-theirs", "POST", "/sandbox/feishu/message", {"open_id": ZHANG, "text": "x", "root_id": "om_none"}, {}, True, {404}),
    ("feishu-root-object", "POST", "/sandbox/feishu/message", {"open_id": ZHANG, "text": "x", "root_id": {"a": 1}}, {}, True, {400}),
    ("feishu-click-no-message", "POST", "/sandbox/feishu/click", {"open_id": ZHANG, "message_id": "om_none", "button": 0}, {}, True, {404}),
    ("feishu-click-button-bool", "POST", "/sandbox/feishu/click", {"open_id": ZHANG, "message_id": 5, "button": True}, {}, True, {400}),
    ("feishu-snapshot-unknown", "GET", "/sandbox/feishu/snapshot?open_id=ou_nobody", None, {}, True, {404}),
]  # fmt: skip


def _card_body(rig: Rig, variant: str) -> dict[str, Any]:
    """A click on Emma's approval card that must be refused (see HOSTILE's EMMA_CARD rows)."""
    card = rig.emma_card
    click = {
        "user": EMMA,
        "channel": card["channel"],
        "ts": card["ts"],
        "action_id": "request_approve",
    }
    match variant:
        case "block_id":
            return click | {"block_id": {"a": 1}}
        case "value":
            return click | {"value": {"step": 0}}
        case "as_oliver":
            return click | {"user": OLIVER}
        case "action":
            return click | {"action_id": "no_such_button"}
    raise AssertionError(variant)


async def _send(rig: Rig, method: str, path: str, body: Any, headers: dict[str, str], token: bool):
    sent = dict(headers)
    if token:
        sent.setdefault(TOKEN_HEADER, rig.sandbox.page_token)
    if isinstance(body, str) and body.startswith("EMMA_CARD:"):
        body = _card_body(rig, body.split(":", 1)[1])
    if isinstance(body, dict):
        data: Any = json.dumps(body)
    else:
        data = body
    if body is not None and "Content-Type" not in sent:
        sent["Content-Type"] = "application/json"
    async with rig.client.request(method, path, data=data, headers=sent) as resp:
        text = await resp.text()
        return resp.status, text


def test_hostile_page_requests_are_refused_and_change_nothing(
    loop: asyncio.AbstractEventLoop,
    rig: Rig,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    """Every row of the table answers its 4xx with `{"ok": false}`; nothing anywhere changes."""
    caplog.set_level(logging.INFO)
    before = _run(loop, state(rig))
    capsys.readouterr()
    answers = {}
    for name, method, path, body, headers, token, allowed in HOSTILE:
        status, text = _run(loop, _send(rig, method, path, body, headers, token))
        answers[name] = (status, allowed, text)
    _run(loop, quiet(rig))
    wrong = {n: got for n, (got, allowed, _) in answers.items() if got not in allowed}
    assert wrong == {}, {n: answers[n][2][:120] for n in wrong}
    for name, (_, _, text) in answers.items():
        answer = json.loads(text)
        assert answer["ok"] is False and answer["error"], name
    assert _run(loop, state(rig)) == before
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == []


# --- random requests -----------------------------------------------------------------------------

POSTS: dict[str, dict[str, Any]] = {
    "/sandbox/message": {"user": OLIVER, "text": "hello", "thread_ts": "1.1"},
    "/sandbox/command": {"user": OLIVER, "command": "/leave", "text": "who is out"},
    "/sandbox/click": {"user": EMMA, "action_id": "request_approve", "channel": "D0", "ts": "1.1",
                       "block_id": "b", "value": "v"},
    "/sandbox/views/submit": {"user": OLIVER, "view_id": "V0", "values": {"a": {"b": {"value": "c"}}}},
    "/sandbox/views/close": {"user": OLIVER, "view_id": "V0"},
    "/sandbox/home": {"user": OLIVER},
    "/sandbox/ephemeral/dismiss": {"user": OLIVER, "ts": "1.1"},
    "/sandbox/feishu/message": {"open_id": ZHANG, "text": "你好", "root_id": "om_1"},
    "/sandbox/feishu/click": {"open_id": ZHANG, "message_id": "om_1", "button": 0,
                              "value": {"a": 1}, "form_value": {"b": 2}},
}  # fmt: skip
GETS = ["/sandbox/info", "/sandbox/people", "/sandbox/snapshot", "/sandbox/feishu/snapshot"]
queries = st.dictionaries(st.sampled_from(["user", "open_id", "token"]), st.text(max_size=12))
bodies = st.one_of(
    st.sampled_from(sorted(POSTS)).flatmap(lambda p: st.tuples(st.just(p), mutated(POSTS[p]))),
    st.tuples(st.sampled_from(sorted(POSTS)), json_values),
    st.tuples(st.sampled_from(sorted(POSTS)), st.binary(max_size=200)),
)
spoiled = st.sampled_from(
    [{}, {TOKEN_HEADER: "x"}, EVIL, {"Sec-Fetch-Site": "same-site"}, TEXT_PLAIN,
     {"Content-Type": "application/x-www-form-urlencoded"}]
)  # fmt: skip


def test_random_requests_without_the_page_s_credentials_change_nothing(
    loop: asyncio.AbstractEventLoop,
    rig: Rig,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    """Random bodies with no token, another origin or not JSON: 403/415 each, nothing changes."""
    before = _run(loop, state(rig))

    @FUZZ
    @given(bodies, spoiled)
    def post(request: tuple[str, Any], headers: dict[str, str]) -> None:
        path, body = request
        token = headers in (EVIL, TEXT_PLAIN, {"Sec-Fetch-Site": "same-site"})
        data = body if isinstance(body, bytes) else json.dumps(body)
        status, _ = _run(loop, _send(rig, "POST", path, data, headers, token))
        assert status in (403, 415)

    post()
    _run(loop, quiet(rig))
    assert _run(loop, state(rig)) == before
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == []


def test_random_page_requests_never_crash_and_a_refusal_changes_nothing(
    loop: asyncio.AbstractEventLoop,
    rig: Rig,
    capsys: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
):
    """With the token, random bodies and queries: 2xx or 4xx, and every 4xx left all state as it was."""

    acted = [False]  # the last request was let through: its work may still be changing things

    @FUZZ
    @given(bodies)
    def post(request: tuple[str, Any]) -> None:
        path, body = request
        data = body if isinstance(body, bytes) else json.dumps(body)
        if acted[0]:
            _run(loop, quiet(rig))
        before = _run(loop, state(rig))
        status, text = _run(loop, _send(rig, "POST", path, data, {}, True))
        assert status < 500, text[:300]
        acted[0] = status < 400
        if status >= 400:
            assert json.loads(text)["ok"] is False
            assert _run(loop, state(rig)) == before, (path, body, status)

    @FUZZ
    @given(st.sampled_from(GETS), queries)
    def get(path: str, query: dict[str, str]) -> None:
        before = _run(loop, state(rig))

        async def send() -> int:
            async with rig.client.get(path, params=query, headers=rig.headers()) as resp:
                await resp.read()
                return resp.status

        assert _run(loop, send()) < 500
        assert _run(loop, state(rig)) == before  # reading changes nothing

    post()
    get()
    _run(loop, quiet(rig))
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == []
