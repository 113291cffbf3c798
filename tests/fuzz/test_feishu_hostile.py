"""Hostile and broken callbacks to POST /feishu/events: never a 500, never a traceback, nothing changes.

Posted to the real handler with an Encrypt Key (encrypted, signed callbacks) while a request
waits on the approver's card, so a click that slipped through would show in the Redis dump.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from bot.feishu import cards
from tests.feishu.harness import FeishuHarness
from tests.fuzz.snapshot import FEISHU_READS, redis_dump, tracebacks

ZHANG, WANG = "ou_zhangsan", "ou_wangfang"
DEEP = "[" * 100_000 + "]" * 100_000


def _message(**fields: Any) -> dict[str, Any]:
    message = {
        "message_id": "om_hostile",
        "chat_id": "oc_1",
        "chat_type": "p2p",
        "message_type": "text",
        "content": json.dumps({"text": "明天请假"}),
    }
    message.update(fields)
    return {
        "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "user"},
        "message": {k: v for k, v in message.items() if v is not ...},
    }


def _click(value: Any, operator: Any = None) -> dict[str, Any]:
    return {
        "operator": {"open_id": WANG} if operator is None else operator,
        "action": {"value": value, "tag": "button"},
        "context": {"open_message_id": "om_card"},
    }


APPROVE = {"action": cards.REQUEST_APPROVE, "request_id": "R-1"}
# (name, what to post) where what is ("raw", body, signed?) or ("event", type, event) or ("payload", dict)
HOSTILE: list[tuple[str, tuple[Any, ...], set[int]]] = [
    ("not-json", ("raw", "{nope", False), {400}),
    ("json-list", ("raw", "[1]", False), {400}),
    ("deeply-nested", ("raw", '{"a":' + DEEP + "}", False), {400}),
    ("encrypt-not-string", ("raw", '{"encrypt": 5}', True), {401}),
    (
        "encrypt-garbage",
        ("raw", '{"encrypt": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}', True),
        {401},
    ),
    ("plain-unsigned-event", ("raw", '{"header": {"token": "x"}, "event": {}}', False), {401}),
    ("header-list", ("payload", {"schema": "2.0", "header": [], "event": {}}), {200}),
    ("message-list", ("event", "im.message.receive_v1", {"sender": {}, "message": []}), {200}),
    ("message-without-id", ("event", "im.message.receive_v1", _message(message_id=...)), {200}),
    ("content-object", ("event", "im.message.receive_v1", _message(content={"text": 1})), {200}),
    ("sender-string", ("event", "im.message.receive_v1", {**_message(), "sender": "me"}), {200}),
    ("mentions-string", ("event", "im.message.receive_v1", _message(mentions="x")), {200}),
    (
        "click-operator-null",
        ("event", "card.action.trigger", _click(APPROVE | {"step": 0}, [])),
        {200},
    ),
    ("click-value-not-json", ("event", "card.action.trigger", _click("{nope")), {200}),
    ("click-step-abc", ("event", "card.action.trigger", _click(APPROVE | {"step": "abc"})), {200}),
    (
        "click-step-5000-digits",
        ("event", "card.action.trigger", _click(APPROVE | {"step": "9" * 5000})),
        {200},
    ),
    (
        "click-no-request",
        ("event", "card.action.trigger", _click({"action": cards.REQUEST_APPROVE})),
        {200},
    ),
    ("click-no-action", ("event", "card.action.trigger", _click({"step": 0})), {200}),
    ("unknown-type", ("event", "im.chat.disbanded_v1", {"chat_id": 1}), {200}),
]


async def _post(h: FeishuHarness, what: tuple[Any, ...]) -> int:
    match what:
        case ("raw", body, signed):
            headers = h.sim.signed_headers(body) if signed else {"Content-Type": "application/json"}
            return (await h.sim.post(body, headers)).status
        case ("payload", payload):
            payload.setdefault("token", h.sim.verification_token)
            return (await h.sim.deliver(payload)).status
        case ("event", kind, event):
            return (await h.sim.deliver(h.sim.envelope(kind, event))).status
    raise AssertionError(what)


async def test_hostile_callbacks_get_4xx_or_a_harmless_200_and_change_nothing(
    feishu: FeishuHarness, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
):
    from tests.feishu.test_feishu_flow import ask_and_submit

    h = feishu
    caplog.set_level(logging.INFO)
    await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    await h.settle()
    before = await redis_dump(h.engine.store.redis)
    writes_before = len([r for r in h.standin.requests if r.kind not in FEISHU_READS])
    capsys.readouterr()
    answers = {name: (await _post(h, what), allowed) for name, what, allowed in HOSTILE}
    await h.settle()
    assert {n: got for n, (got, allowed) in answers.items() if got not in allowed} == {}
    assert await redis_dump(h.engine.store.redis) == before
    assert len([r for r in h.standin.requests if r.kind not in FEISHU_READS]) == writes_before
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == []
