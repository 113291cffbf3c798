"""Hostile and broken requests to POST /slack/events: never a 500, never a traceback, nothing changes.

The table holds what an attacker or a clumsy client sent in issue 13 (18 of 73 answered 500);
the hypothesis part mutates valid requests at random. Each case is posted to the real bot
(Bolt over aiohttp) with a pending request on the approver's card, so a click that slipped
through would show in the full Redis dump compared before and after.
"""

from __future__ import annotations

import json
import logging
import urllib.parse
from typing import Any

import pytest

from tests.fuzz.snapshot import SLACK_READS, redis_dump, tracebacks
from tests.slack.harness import SlackHarness

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
OLIVER, EMMA = "U0OLIVER", "U0EMMA"


def _event(event: dict[str, Any]) -> str:
    return json.dumps(
        {
            "type": "event_callback",
            "team_id": "T0ACME",
            "api_app_id": "A0APP",
            "event_id": "EvHOSTILE",
            "event_time": 1796000000,
            "event": event,
        }
    )


def _dm(**fields: Any) -> str:
    event = {
        "type": "message",
        "channel_type": "im",
        "channel": "D0OLIVER",
        "user": OLIVER,
        "ts": "1796000000.000100",
        "text": "I'm sick tomorrow",
    }
    event.update(fields)
    return _event({k: v for k, v in event.items() if v is not ...})


def _command(**fields: Any) -> str:
    form = {
        "team_id": "T0ACME",
        "user_id": OLIVER,
        "command": "/leave",
        "text": "off tomorrow",
        "trigger_id": "1.2.trig",
    }
    form.update(fields)
    return urllib.parse.urlencode({k: v for k, v in form.items() if v is not ...})


def _payload(payload: Any) -> str:
    return urllib.parse.urlencode({"payload": json.dumps(payload)})


def _click(value: str, action_id: str = "request_approve", **extra: Any) -> str:
    return _payload(
        {
            "type": "block_actions",
            "user": {"id": EMMA},
            "team": {"id": "T0ACME"},
            "trigger_id": "1.2.trig",
            "container": {"channel_id": "D0EMMA", "message_ts": "1.1"},
            "actions": [{"action_id": action_id, "value": value}],
            **extra,
        }
    )


def _view(callback_id: str, values: dict[str, Any], meta: str = "", **extra: Any) -> str:
    return _payload(
        {
            "type": "view_submission",
            "user": {"id": EMMA},
            "team": {"id": "T0ACME"},
            "view": {
                "id": "V0HOSTILE",
                "hash": "h1",
                "callback_id": callback_id,
                "private_metadata": meta,
                "state": {"values": values},
            },
            **extra,
        }
    )


def _dates(start: Any, end: Any) -> dict[str, Any]:
    return {
        "delegate": {"delegate": {"selected_option": {"value": "lisi"}}},
        "start": {"start": {"selected_date": start}},
        "end": {"end": {"selected_date": end}},
    }


REASON = {"reason": {"reason": {"value": "no"}}}
DEEP = "[" * 100_000 + "]" * 100_000
# (name, body, content type, headers: "signed" | a dict, the statuses allowed)
HOSTILE: list[tuple[str, str, str, Any, set[int]]] = [
    ("timestamp-not-a-number", _dm(), JSON, {"X-Slack-Request-Timestamp": "abc"}, {400}),
    ("timestamp-fullwidth", _dm(), JSON, {"X-Slack-Request-Timestamp": "１７９６"}, {400}),
    ("timestamp-huge", _dm(), JSON, {"X-Slack-Request-Timestamp": "9" * 400}, {400}),
    ("no-signature", _dm(), JSON, {}, {401}),
    (
        "forged",
        _dm(),
        JSON,
        {"X-Slack-Request-Timestamp": "NOW", "X-Slack-Signature": "v0=0"},
        {401},
    ),
    ("malformed-json", "{not json", JSON, "signed", {400}),
    ("json-list", "[1, 2]", JSON, "signed", {400}),
    ("deeply-nested", '{"a": ' + DEEP + "}", JSON, "signed", {400}),
    (
        "nested-200",
        '{"type": "event_callback", "event": ' + "[" * 200 + "]" * 200 + "}",
        JSON,
        "signed",
        {400},
    ),
    ("payload-broken-json", "payload=%7Bbroken", FORM, "signed", {400}),
    ("payload-not-object", "payload=%5B1%5D", FORM, "signed", {400}),
    ("message-without-user", _dm(user=...), JSON, "signed", {200}),
    ("message-without-ts", _dm(ts=...), JSON, "signed", {200}),
    ("message-without-channel", _dm(channel=...), JSON, "signed", {200}),
    ("message-text-object", _dm(text={"a": 1}), JSON, "signed", {200}),
    ("message-user-list", _dm(user=["U0OLIVER"]), JSON, "signed", {200}),
    ("message-thread-ts-int", _dm(thread_ts=5), JSON, "signed", {200}),
    ("event-not-object", _event("nope"), JSON, "signed", {200}),  # type: ignore[arg-type]
    # what Bolt reads of every body before our listeners, found by the random fuzz
    (
        "event-channel-number",
        _event({"type": "reaction_added", "channel": 5}),
        JSON,
        "signed",
        {200},
    ),
    (
        "event-item-channel-list",
        _event({"type": "reaction_added", "item": {"channel": ["C1"]}}),
        JSON,
        "signed",
        {200},
    ),
    ("event-team-number", _event({"type": "team_join", "team": 7}), JSON, "signed", {200}),
    (
        "response-urls-not-list",
        _view("reject_reason", REASON, '{"request_id": "R-1", "step": 0}', response_urls=5),
        FORM,
        "signed",
        {200},
    ),
    (
        "home-without-user",
        _event({"type": "app_home_opened", "tab": "home"}),
        JSON,
        "signed",
        {200},
    ),
    ("leave-without-user", _command(user_id=...), FORM, "signed", {200}),
    ("leave-without-trigger", _command(trigger_id=...), FORM, "signed", {200}),
    ("approve-abc", _click("R-1:abc"), FORM, "signed", {200}),
    ("approve-5000-digits", _click("R-1:" + "9" * 5000), FORM, "signed", {200}),
    ("reject-no-step", _click("R-1", "request_reject"), FORM, "signed", {200}),
    (
        "click-no-actions",
        _payload({"type": "block_actions", "user": {"id": EMMA}, "actions": []}),
        FORM,
        "signed",
        {200},
    ),
    (
        "click-user-null",
        _payload({"type": "block_actions", "user": None, "actions": [{"action_id": "x"}]}),
        FORM,
        "signed",
        {200},
    ),
    ("click-team-string", _click("R-1:0", team="T0ACME"), FORM, "signed", {200}),
    ("view-bad-metadata", _view("reject_reason", REASON, "{"), FORM, "signed", {200}),
    ("view-metadata-list", _view("reject_reason", REASON, "[]"), FORM, "signed", {200}),
    (
        "view-metadata-step-text",
        _view("reject_reason", REASON, '{"request_id": "R-1", "step": "x"}'),
        FORM,
        "signed",
        {200},
    ),
    (
        "view-metadata-huge-step",
        _view("reject_reason", REASON, '{"request_id": "R-1", "step": ' + "9" * 5000 + "}"),
        FORM,
        "signed",
        {200, 400},
    ),
    (
        "delegation-bad-date",
        _view("delegation_form", _dates("2026-13-45", "2026-12-20")),
        FORM,
        "signed",
        {200},
    ),
    (
        "delegation-date-object",
        _view("delegation_form", _dates({"d": 1}, "2026-12-20")),
        FORM,
        "signed",
        {200},
    ),
    ("view-state-not-object", _view("leave_form", {"start": "x"}), FORM, "signed", {200}),
    (
        "view-without-id",
        _payload({"type": "view_submission", "user": {"id": EMMA}, "view": {}}),
        FORM,
        "signed",
        {200},
    ),
]


async def _post(h: SlackHarness, body: str, content_type: str, headers: Any) -> int:
    if headers == "signed":
        resp = await h.post(body, content_type)
    else:
        sent = {k: (str(int(h.sim.clock())) if v == "NOW" else v) for k, v in headers.items()}
        resp = await h.post(body, content_type, sent)
    return resp.status


@pytest.fixture
async def armed(slack: SlackHarness) -> SlackHarness:
    """A pending request with its approver's card, so a click that got through would change it."""
    from tests.slack.test_slack_flow import ask_and_submit

    await ask_and_submit(slack, OLIVER, "annual leave next Monday to Wednesday")
    await slack.settle()
    return slack


async def test_hostile_requests_get_4xx_or_a_harmless_200_and_change_nothing(
    armed: SlackHarness, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
):
    h = armed
    caplog.set_level(logging.INFO)
    before = await redis_dump(h.engine.store.redis)
    writes_before = [r.method for r in h.standin.requests if r.method not in SLACK_READS]
    capsys.readouterr()
    answers = {}
    for name, body, content_type, headers, allowed in HOSTILE:
        answers[name] = (await _post(h, body, content_type, headers), allowed)
    await h.settle()
    wrong = {name: got for name, (got, allowed) in answers.items() if got not in allowed}
    assert wrong == {}
    assert await redis_dump(h.engine.store.redis) == before
    writes = [r.method for r in h.standin.requests if r.method not in SLACK_READS]
    assert writes == writes_before, "a hostile request made the bot write to Slack"
    out = capsys.readouterr()
    assert tracebacks(out.out + out.err, caplog.records) == []
    # one line each, with the reason
    assert out.out.count("slack_request_refused") == len(HOSTILE)
