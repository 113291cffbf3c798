"""Property-based tests: the parsers that read what models, people and platforms send.

For every parser the property is the same: on any input it returns its documented result or
raises its documented, typed error with a clear message — never a KeyError, TypeError,
IndexError or the like. Round trips and invariants check that what parses, parses right.

Known product bugs are pinned at the end as strict xfails with their minimal inputs; where a
property's input domain leaves out a trigger of one of them, the strategy says so. When a bug
is fixed, its xfail turns into a failure (XPASS, strict): remove the mark and widen the domain.

Runs are derandomized (the same examples every run, as CI needs); set HYPOTHESIS_EXPLORE=1 to
search with fresh random examples, ten times as many.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import os
import string
from collections.abc import Callable
from datetime import date, datetime, timedelta
from types import SimpleNamespace
from typing import Any

import fakeredis
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from agent.dates import DateParseError, DateRange, find_dates, find_range, parse_days, resolve_date
from agent.events import FinalAnswer, ToolFinished
from agent.llm.normalize import (
    CUT_OFF_ERROR,
    normalize_arguments,
    split_think,
    tool_calls_from_content,
    tool_calls_from_wire,
)
from agent.llm.react_format import ReactReply, parse_react_reply
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.messages import ToolSpec
from agent.testing import ScriptedModel, call, reply
from agent.tools import default_tools
from bot.feishu import crypto
from bot.feishu.app import Click as FeishuClick
from bot.feishu.app import FeishuBot, message_text
from bot.feishu.errors import CallbackRejected
from bot.slack.app import Click as SlackClick
from bot.slack.blocks_delegation import parse_delegation_form
from bot.slack.blocks_forms import parse_leave_form
from workflow.clock import FixedClock
from workflow.config import FieldType, Organisation, load_config
from workflow.directory import Directory
from workflow.engine import Engine
from workflow.errors import ValidationFailed
from workflow.fields import validate_fields

EXPLORE = os.environ.get("HYPOTHESIS_EXPLORE") == "1"


def props(n: int = 200) -> settings:
    """At most 200 examples a property (2000 when exploring), no deadline, no example database."""
    return settings(
        max_examples=n * 10 if EXPLORE else n,
        derandomize=not EXPLORE,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )


TODAY = date(2026, 12, 2)  # a Wednesday, as in the rest of the suite
CONFIG = load_config()
SPECS = default_tools().specs()
SCHEMAS = {s.name: s.parameters for s in SPECS}
TOOL_NAMES = [s.name for s in SPECS]

# Characters that match an ASCII letter only case-insensitively (U+017F ſ ~ s, U+0131 ı ~ i):
# they crash the date grammar (see KNOWN_BUGS), so the passing properties leave them out.
CASEFOLD_TRAPS = "\u017f\u0131"


def safe_text(**kw: Any) -> st.SearchStrategy[str]:
    return st.text(st.characters(exclude_characters=CASEFOLD_TRAPS), **kw)


# --- JSON-ish values ------------------------------------------------------------------------

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**15), max_value=10**15)  # > 4300 digits: KNOWN_BUGS
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
json_objects = st.dictionaries(st.text(max_size=8), json_values, max_size=5)
finite_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**15), max_value=10**15)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


# --- the text-ReAct parser ----------------------------------------------------------------

MARKERS = [
    "Thought:",
    "Action:",
    "Action Input:",
    "Final Answer:",
    "Observation:",
    "thought :",
    "ACTION:",
    "  Action Input :",
    "final answer:",
]
react_pieces = st.one_of(
    st.sampled_from(MARKERS),
    st.sampled_from([*TOOL_NAMES, "approve_request", "my_balances()", "`who_is_out`"]),
    finite_json.map(json.dumps),
    json_values.map(lambda v: json.dumps(v, ensure_ascii=False)),
    st.text(max_size=15),
    st.sampled_from(["\n", " ", "\t", "```json\n", "\n```", "{", "}", "[", '"', "'", "null"]),
)
react_texts = st.lists(react_pieces, max_size=14).map("".join) | st.text(max_size=200)


def _shape(r: ReactReply) -> tuple[Any, ...]:
    """A reply without its fresh call id."""
    c = r.tool_call
    return (
        r.thought,
        r.final_answer,
        None if c is None else (c.name, c.arguments, c.raw_arguments, c.error),
    )


@props()
@given(react_texts, st.booleans())
def test_react_parser_reads_any_text_as_one_answer_or_one_call(text: str, truncated: bool) -> None:
    """Any reply parses to exactly one of: a final answer, or a call (maybe carrying a repair message)."""
    r = parse_react_reply(text, SPECS, truncated=truncated)
    assert (r.final_answer is None) != (r.tool_call is None)
    if r.tool_call is not None:
        c = r.tool_call
        assert isinstance(c.arguments, dict) and isinstance(c.raw_arguments, str)
        assert c.error is None or (isinstance(c.error, str) and c.error.strip())
        if truncated and c.name:
            assert c.error == CUT_OFF_ERROR  # a cut-off action is never run
        if c.error is None:
            assert c.name  # a runnable call names a tool


LOOKUP = ToolSpec(
    "lookup",
    "test tool",
    {
        "type": "object",
        "properties": {k: {"type": "string"} for k in ("query", "note", "where")},
    },
)


@props()
@given(
    thought=safe_text(max_size=40).filter(lambda s: "\n" not in s and "\r" not in s),
    arguments=st.dictionaries(st.sampled_from(["query", "note", "where"]), st.text(max_size=30)),
    ascii_only=st.booleans(),
)
def test_react_parser_round_trips_a_well_formed_action(
    thought: str, arguments: dict[str, str], ascii_only: bool
) -> None:
    """Thought / Action / Action Input written by the book parse back to the same call."""
    text = (
        f"Thought: {thought}\nAction: lookup\n"
        f"Action Input: {json.dumps(arguments, ensure_ascii=ascii_only)}"
    )
    r = parse_react_reply(text, [LOOKUP])
    assert r.tool_call is not None and r.tool_call.error is None
    assert (r.tool_call.name, r.tool_call.arguments) == ("lookup", arguments)
    assert r.thought == (thought.strip() or None)


@props()
@given(react_texts, st.text(max_size=80))
def test_nothing_after_an_invented_observation_counts(text: str, invented: str) -> None:
    """What the model writes after its own 'Observation:' never changes the parse."""
    with_invention = f"{text}\nObservation: {invented}"
    assert _shape(parse_react_reply(with_invention, SPECS)) == _shape(
        parse_react_reply(text, SPECS)
    )


# --- the tool-argument normalizer ------------------------------------------------------------

raw_arguments = st.one_of(
    json_values,
    json_values.map(json.dumps),
    json_values.map(lambda v: json.dumps(json.dumps(v))),
    st.text(max_size=60),
    st.lists(react_pieces, max_size=6).map("".join),
)


@props()
@given(raw_arguments, st.sampled_from([None, *SCHEMAS.values()]))
def test_normalizer_never_raises_and_errors_carry_no_arguments(raw: Any, schema: Any) -> None:
    """Any raw arguments give (dict, str, error); an error is a sentence and comes with no arguments."""
    arguments, raw_text, error = normalize_arguments(raw, schema=schema)
    assert isinstance(arguments, dict) and isinstance(raw_text, str)
    if error is not None:
        assert arguments == {} and "so the tool was not run" in error


@props()
@given(st.dictionaries(st.text(max_size=8), finite_json, max_size=5))
def test_object_string_and_double_encoded_forms_agree(obj: dict[str, Any]) -> None:
    """A dict, its JSON text and its JSON text encoded twice give the same arguments."""
    as_dict, _, e1 = normalize_arguments(obj)
    as_text, _, e2 = normalize_arguments(json.dumps(obj))
    twice, _, e3 = normalize_arguments(json.dumps(json.dumps(obj)))
    assert e1 is e2 is e3 is None
    assert as_dict == as_text == twice


@props()
@given(
    st.one_of(
        st.lists(finite_json, max_size=3),
        st.integers(-(10**9), 10**9),
        st.floats(allow_nan=False, allow_infinity=False),
        st.booleans(),
    )
)
def test_a_json_value_that_is_not_an_object_is_a_clear_error(value: Any) -> None:
    """A list, number or boolean where an object belongs is refused with a message saying so."""
    arguments, _, error = normalize_arguments(json.dumps(value))
    assert arguments == {} and error is not None and "must be one JSON object" in error


@props()
@given(st.text(max_size=40))
def test_text_that_is_not_json_is_a_clear_error(text: str) -> None:
    """Arguments that do not decode are refused with the decoder's position."""
    assume(text.strip())
    try:
        json.loads(text)
    except ValueError:
        pass
    else:
        assume(False)
    arguments, raw_text, error = normalize_arguments(text)
    assert arguments == {} and raw_text == text
    assert error is not None and "not valid JSON" in error and "position" in error


@props()
@given(finite_json.map(json.dumps))
def test_a_string_argument_stays_a_string_even_when_it_looks_like_json(inner: str) -> None:
    """A value the schema declares a string is never decoded (a reason may look like JSON)."""
    schema = {"type": "object", "properties": {"reason": {"type": "string"}}}
    arguments, _, error = normalize_arguments({"reason": inner}, schema=schema)
    assert error is None and arguments == {"reason": inner}


content_pieces = st.one_of(
    react_pieces,
    st.sampled_from(
        [
            "<tool_call>",
            "</tool_call>",
            "<function=my_balances>",
            "<function=who_is_out>",
            "</function>",
            "<parameter=start>",
            "<parameter=year>",
            "</parameter>",
            "<think>",
            "</think>",
            "<｜tool▁calls▁begin｜>",
            "<｜tool▁call▁begin｜>",
            "<｜tool▁sep｜>",
            "<｜tool▁call▁end｜>",
            "<｜tool▁calls▁end｜>",
            "function",
            '{"name": "my_balances", "arguments": ',
            '{"name": "nope", "parameters": ',
        ]
    ),
)
content_texts = st.lists(content_pieces, max_size=14).map("".join) | st.text(max_size=150)


@props()
@given(content_texts, st.booleans())
def test_calls_written_in_text_are_found_only_for_offered_tools(text: str, truncated: bool) -> None:
    """Any reply text: the calls found name offered tools; with none found the text is untouched."""
    content, found = tool_calls_from_content(text, SCHEMAS, truncated=truncated)
    assert isinstance(content, str)
    assert all(c.name in SCHEMAS and isinstance(c.arguments, dict) and c.id for c in found)
    if not found:
        assert content == text
    if truncated:
        assert all(c.error == CUT_OFF_ERROR for c in found)
    split_think(text)  # and reasoning tags never trip it up


@props()
@given(
    st.dictionaries(st.sampled_from(["query", "note", "where"]), st.text(max_size=30)),
    st.text(alphabet=string.ascii_letters + " .,", max_size=30),
    st.sampled_from(["hermes", "bare", "fenced"]),
)
def test_a_hermes_or_bare_json_call_round_trips(
    arguments: dict[str, str], before: str, form: str
) -> None:
    """`<tool_call>{"name", "arguments"}</tool_call>`, a bare JSON call or a fenced one parse back exactly."""
    body = json.dumps({"name": "lookup", "arguments": arguments}, ensure_ascii=False)
    text = {
        "hermes": f"{before}<tool_call>{body}</tool_call>",
        "bare": body,
        "fenced": f"```json\n{body}\n```",
    }[form]
    content, found = tool_calls_from_content(text, {"lookup": LOOKUP.parameters})
    [c] = found
    assert (c.name, c.arguments, c.error) == ("lookup", arguments, None)
    assert content == (before.strip() if form == "hermes" else "")


wire_calls = st.lists(
    st.fixed_dictionaries(
        {},
        optional={
            "id": json_scalars,
            "type": st.just("function"),
            "function": json_values
            | st.fixed_dictionaries(
                {},
                optional={
                    "name": json_scalars | st.sampled_from(TOOL_NAMES),
                    "arguments": raw_arguments,
                },
            ),
        },
    ),
    max_size=4,
)


@props()
@given(wire_calls, st.booleans())
def test_wire_tool_calls_of_any_shape_normalize(
    raw_calls: list[dict[str, Any]], truncated: bool
) -> None:
    """`message.tool_calls` entries of any content become calls with an id, a name and a dict."""
    for c in tool_calls_from_wire(raw_calls, SCHEMAS, truncated=truncated):
        assert c.id and isinstance(c.name, str) and isinstance(c.arguments, dict)
        assert c.error is None or c.error.strip()


# --- dates -----------------------------------------------------------------------------------

# fmt: off
DATE_WORDS = [
    "today", "tomorrow", "tmr", "yesterday", "tonight", "the day after tomorrow", "next",
    "this", "last", "coming", "week", "next week", "week after next", "Monday", "tue",
    "Wednesday", "Thurs", "friday", "Sat", "SUNDAY", "Jan", "February", "mar", "Sept", "Dec",
    "December", "1st", "2nd", "3rd", "21st", "31st", "the", "of", "morning", "afternoon", "am",
    "p.m.", "to", "until", "through", "and", "from", "on", "days", "day", "weeks", "half", "a",
    "working", "今天", "明天", "后天", "大后天", "昨天", "前天", "下周", "这周", "本周", "上周", "下下周", "周一", "周五",
    "星期五", "礼拜天", "周日", "下周三", "月", "日", "号", "年", "到", "至", "和", "、", "上午", "下午", "半", "天",
    "个", "工作日", "十", "二十", "三", "两", "十二月", "下个月", "本月",
]
# fmt: on
date_pieces = st.one_of(
    st.sampled_from(DATE_WORDS),
    st.integers(0, 40).map(str),
    st.sampled_from(["1999", "2026", "2027", "2100", "0000", "9999", "１２", "２０２６"]),
    st.dates(min_value=date(1900, 1, 1), max_value=date(2200, 12, 31)).map(date.isoformat),
    st.sampled_from([" ", " ", "-", "/", ".", ",", "~", "–", "  ", "\n"]),
    safe_text(max_size=4),
)
# The year-9999 trigger of the find_range overflow is in KNOWN_BUGS; the grammar stays below it.
date_texts = st.lists(date_pieces, max_size=8).map("".join) | safe_text(max_size=30)


@props()
@given(date_texts)
def test_resolve_date_returns_a_date_or_says_how_to_write_one(text: str) -> None:
    """Any text is one date, or a DateParseError whose message is a sentence."""
    try:
        day = resolve_date(text, TODAY)
    except DateParseError as e:
        assert str(e).strip()
    else:
        assert isinstance(day, date)


@props()
@given(st.dates(), st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)))
def test_iso_dates_resolve_to_themselves(day: date, today: date) -> None:
    """YYYY-MM-DD names that day, whatever today is."""
    assert resolve_date(day.isoformat(), today) == day
    assert resolve_date(f" {day.isoformat()}. ", today) == day


WEEKDAYS = [
    ("Monday", "周一"),
    ("Tuesday", "周二"),
    ("Wednesday", "星期三"),
    ("Thursday", "周四"),
    ("Friday", "礼拜五"),
    ("Saturday", "周六"),
    ("Sunday", "周日"),
]


@props(100)
@given(
    st.dates(min_value=date(2000, 1, 1), max_value=date(2100, 12, 31)),
    st.integers(0, 6),
    st.booleans(),
)
def test_a_bare_weekday_is_the_coming_one(today: date, weekday: int, chinese: bool) -> None:
    """'Friday' / '周五' is within the next seven days, today included, and is that weekday."""
    day = resolve_date(WEEKDAYS[weekday][chinese], today)
    assert day.weekday() == weekday and today <= day <= today + timedelta(days=6)


@props()
@given(date_texts)
def test_find_range_returns_a_range_inside_the_text_or_none(text: str) -> None:
    """Any text: no date, or a range whose span lies in the text."""
    found = find_range(text, TODAY)
    assert found is None or isinstance(found, DateRange)
    if found is not None:
        assert 0 <= found.span[0] < found.span[1] <= len(text)
        assert isinstance(found.start, date) and isinstance(found.end, date)
    previous = 0
    for mention in find_dates(text, TODAY):
        assert previous <= mention.span[0] < mention.span[1] <= len(text)
        previous = mention.span[1]


@props()
@given(
    st.dates(min_value=date(2020, 1, 1), max_value=date(2100, 1, 1)),
    st.integers(0, 400),
    st.sampled_from([" to ", " - ", " until ", " 到 ", "至", " and "]),
)
def test_two_iso_dates_joined_make_that_range(start: date, length: int, joiner: str) -> None:
    """'A to B' / 'A 到 B' with two written dates is exactly A..B."""
    end = start + timedelta(days=length)
    found = find_range(f"{start.isoformat()}{joiner}{end.isoformat()}", TODAY)
    assert found is not None and (found.start, found.end) == (start, end)


@props()
@given(date_texts)
def test_parse_days_is_none_or_a_positive_number(text: str) -> None:
    """Any text: no duration, or a positive number of days."""
    days = parse_days(text)
    assert days is None or (isinstance(days, float) and days > 0)


@props(100)
@given(
    st.integers(1, 260),
    st.sampled_from(["{n} days", "{n} working days", "{n}天", "{n} 个工作日", "{n}-day"]),
)
def test_n_days_reads_n(n: int, form: str) -> None:
    """'N days' in English or Chinese is N."""
    assert parse_days(form.format(n=n)) == n


# --- the Slack payload parsers ------------------------------------------------------------------

maybe_text = st.none() | st.text(max_size=12)


def _optional(**fields: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({}, optional=fields)


block_actions = st.fixed_dictionaries(
    {
        "type": st.just("block_actions"),
        "user": st.fixed_dictionaries(
            {"id": st.text(min_size=1, max_size=12)},
            optional={"team_id": st.text(max_size=12), "username": st.text(max_size=8)},
        ),
        "actions": st.lists(
            _optional(value=st.text(max_size=40), action_id=st.text(max_size=12)),
            min_size=1,
            max_size=3,
        ),
    },
    optional={
        "team": st.none() | _optional(id=st.text(max_size=12)),
        "container": st.none()
        | _optional(channel_id=maybe_text, message_ts=maybe_text, type=st.text(max_size=8)),
        "channel": st.none() | _optional(id=maybe_text),
        "message": st.none() | _optional(ts=maybe_text, thread_ts=maybe_text),
        "trigger_id": st.text(max_size=12),
    },
)


@props()
@given(block_actions)
def test_slack_click_reads_any_block_actions_body(body: dict[str, Any]) -> None:
    """Every block_actions body Slack can send (optional parts present, empty or missing) reads."""
    click = SlackClick.of(body)
    container = body.get("container") or {}
    message = body.get("message") or {}
    assert click.user == body["user"]["id"]
    assert click.value == body["actions"][0].get("value", "")
    assert click.team == ((body.get("team") or {}).get("id") or body["user"].get("team_id", ""))
    assert click.channel == (container.get("channel_id") or (body.get("channel") or {}).get("id"))
    assert click.ts == (container.get("message_ts") or message.get("ts"))
    assert click.thread_ts == message.get("thread_ts")


def _slack_block(block_id: str, element: st.SearchStrategy[dict[str, Any]]):
    return st.fixed_dictionaries({block_id: element})


option = st.none() | st.fixed_dictionaries({"value": st.text(max_size=12)})
date_value = st.none() | st.dates().map(date.isoformat) | st.text(max_size=12)
leave_state = _optional(
    leave_type=_slack_block(
        "leave_type",
        _optional(
            type=st.just("static_select"),
            selected_option=option | st.sampled_from([{"value": "sick"}, {"value": "annual"}]),
        ),
    ),
    start=_slack_block("start", _optional(selected_date=date_value)),
    end=_slack_block("end", _optional(selected_date=date_value)),
    halves=_slack_block(
        "halves",
        _optional(
            selected_options=st.lists(
                st.fixed_dictionaries(
                    {"value": st.sampled_from(["start_half", "end_half"]) | st.text(max_size=8)}
                ),
                max_size=3,
            )
        ),
    ),
    reason=_slack_block("reason", _optional(value=maybe_text)),
)


@props()
@given(leave_state)
def test_leave_form_reads_any_state_slack_can_send(values: dict[str, Any]) -> None:
    """The /leave modal's state: every field read or None, half days always booleans, and the engine's validation decides."""
    fields = parse_leave_form(values)
    assert set(fields) == {"leave_type", "start", "end", "start_half", "end_half", "reason"}
    assert isinstance(fields["start_half"], bool) and isinstance(fields["end_half"], bool)
    assert fields["reason"] is None or (fields["reason"] == fields["reason"].strip() != "")
    try:
        clean = validate_fields(CONFIG.processes_by_key["leave"], fields, CONFIG)
    except ValidationFailed as e:
        assert e.field_errors and set(e.field_errors) <= set(fields)
    else:
        assert clean["leave_type"] in CONFIG.leave_types_by_key


delegation_state = _optional(
    delegate=_slack_block(
        "delegate", _optional(selected_option=option | st.just({"value": "lisi"}))
    ),
    start=_slack_block("start", _optional(selected_date=date_value)),
    end=_slack_block("end", _optional(selected_date=date_value)),
    reason=_slack_block("reason", _optional(value=maybe_text)),
)


@props()
@given(delegation_state)
def test_delegation_form_reads_any_state_slack_can_send(values: dict[str, Any]) -> None:
    """The delegation modal's state: the four values, each read or None."""
    got = parse_delegation_form(values)
    assert set(got) == {"delegate", "start", "end", "reason"}
    block = values.get("delegate", {}).get("delegate", {})
    assert got["delegate"] == (block.get("selected_option") or {}).get("value")


# --- Feishu: crypto, callbacks, messages, card clicks ------------------------------------------

KEY = "encrypt-key-for-tests"
TOKEN = "verification-token"


def feishu_bot(encrypt_key: str | None) -> FeishuBot:
    runtime = SimpleNamespace(engine=SimpleNamespace(directory=Directory(CONFIG)), redis=None)
    return FeishuBot(
        runtime,  # type: ignore[arg-type]
        None,  # type: ignore[arg-type]
        verification_token=TOKEN,
        encrypt_key=encrypt_key,
        clock=lambda: 1_700_000_000.0,
    )


PLAIN_BOT = feishu_bot(None)
KEYED_BOT = feishu_bot(KEY)


@props()
@given(st.binary(max_size=200), st.text(max_size=20))
def test_decrypt_of_any_bytes_is_text_or_a_400(blob: bytes, key: str) -> None:
    """Any base64 blob under any key: its plaintext, or CallbackRejected(400) saying why."""
    try:
        text = crypto.decrypt(base64.b64encode(blob).decode(), key)
    except CallbackRejected as e:
        assert e.status == 400 and e.reason
    else:
        assert isinstance(text, str)


@props()
@given(st.text(max_size=60))
def test_decrypt_of_any_text_is_text_or_a_400(text: str) -> None:
    """Any `encrypt` string at all (not base64, not ASCII): plaintext or a 400."""
    try:
        crypto.decrypt(text, KEY)
    except CallbackRejected as e:
        assert e.status == 400


@props()
@given(st.text(max_size=200), st.text(max_size=30), st.binary(min_size=16, max_size=16))
def test_encrypt_then_decrypt_is_the_identity(plaintext: str, key: str, iv: bytes) -> None:
    """What Feishu encrypts with the key, we decrypt to the same text."""
    assert crypto.decrypt(crypto.encrypt(plaintext, key, iv), key) == plaintext


header_names = st.sampled_from(
    [crypto.TIMESTAMP_HEADER, crypto.NONCE_HEADER, crypto.SIGNATURE_HEADER, "X-Other"]
)
header_values = st.text(max_size=20) | st.integers(1_699_999_000, 1_700_001_000).map(str)


@props()
@given(st.dictionaries(header_names, header_values), st.binary(max_size=60))
def test_any_headers_are_accepted_only_with_the_right_signature(
    headers: dict[str, str], body: bytes
) -> None:
    """Arbitrary (decoded) headers: a 401 unless they carry the true signature of the body."""
    try:
        crypto.verify_signature(headers, body, KEY, 1_700_000_000.0)
    except CallbackRejected as e:
        assert e.status == 401
    else:
        ts, nonce = headers[crypto.TIMESTAMP_HEADER], headers[crypto.NONCE_HEADER]
        assert headers[crypto.SIGNATURE_HEADER].strip().lower() == crypto.signature(
            ts, nonce, KEY, body
        )


@props(100)
@given(st.text(max_size=12), st.binary(max_size=60), st.integers(-299, 299))
def test_a_correctly_signed_request_passes_and_a_changed_body_does_not(
    nonce: str, body: bytes, skew: int
) -> None:
    """The true signature within five minutes passes; one changed byte of the body is a 401."""
    ts = str(1_700_000_000 + skew)
    headers = {
        crypto.TIMESTAMP_HEADER: ts,
        crypto.NONCE_HEADER: nonce,
        crypto.SIGNATURE_HEADER: crypto.signature(ts, nonce, KEY, body).upper(),
    }
    crypto.verify_signature(headers, body, KEY, 1_700_000_000.0)
    with pytest.raises(CallbackRejected):
        crypto.verify_signature(headers, body + b"x", KEY, 1_700_000_000.0)


@props()
@given(st.binary(max_size=120) | json_values.map(lambda v: json.dumps(v).encode()))
def test_feishu_callback_of_any_bytes_is_refused_clearly(raw: bytes) -> None:
    """Unauthenticated bytes of any kind: CallbackRejected with 400 or 401, never anything else."""
    for bot in (PLAIN_BOT, KEYED_BOT):
        with pytest.raises(CallbackRejected) as refused:
            bot.open(raw, {})
        assert refused.value.status in (400, 401) and refused.value.reason


@props()
@given(json_objects)
def test_feishu_callback_with_the_token_opens_to_its_body(body: dict[str, Any]) -> None:
    """A body carrying our verification token opens to itself; encrypted and signed, too."""
    body = {**body, "header": {"token": TOKEN, "event_type": "x"}}
    body.pop("encrypt", None)
    raw = json.dumps(body).encode()
    assert PLAIN_BOT.open(raw, {}) == json.loads(raw)
    wrapped = json.dumps({"encrypt": crypto.encrypt(raw.decode(), KEY)}).encode()
    ts, nonce = "1700000000", "n"
    headers = {
        crypto.TIMESTAMP_HEADER: ts,
        crypto.NONCE_HEADER: nonce,
        crypto.SIGNATURE_HEADER: crypto.signature(ts, nonce, KEY, wrapped),
    }
    assert KEYED_BOT.open(wrapped, headers) == json.loads(raw)


text_elements = st.fixed_dictionaries(
    {"tag": st.sampled_from(["text", "a", "at", "img"])},
    optional={"text": st.text(max_size=10), "href": st.text(max_size=5)},
)
post_body = _optional(
    title=st.text(max_size=10),
    content=st.lists(st.lists(text_elements, max_size=3), max_size=3),
)
feishu_content = st.one_of(
    _optional(text=st.text(max_size=30)).map(json.dumps),
    post_body.map(json.dumps),
    st.dictionaries(st.sampled_from(["zh_cn", "en_us"]), post_body, max_size=2).map(json.dumps),
    st.text(max_size=20),
)
feishu_messages = _optional(
    message_type=st.sampled_from(["text", "post", "image", "file"]),
    content=feishu_content | st.none(),
    mentions=st.lists(
        _optional(key=st.sampled_from(["@_user_1", "@_user_2"]), name=st.text(max_size=5)),
        max_size=2,
    ),
)


@props()
@given(feishu_messages)
def test_feishu_message_text_reads_any_message_feishu_sends(message: dict[str, Any]) -> None:
    """Text and post messages give their words (mentions removed, stripped); other kinds None."""
    text = message_text(message)
    assert text is None or (isinstance(text, str) and text == text.strip())
    if message.get("message_type") not in ("text", "post"):
        assert text is None
    if text is not None:
        for m in message.get("mentions") or []:
            if m.get("key"):
                assert m["key"] not in text


feishu_actions = _optional(
    action=_optional(
        value=json_objects | json_objects.map(json.dumps) | st.text(max_size=12) | st.none(),
        form_value=json_objects | st.none(),
        tag=st.just("button"),
    ),
    operator=_optional(open_id=maybe_text, user_id=maybe_text),
    context=_optional(open_message_id=maybe_text, open_chat_id=maybe_text),
    token=st.text(max_size=5),
)


@props()
@given(feishu_actions)
def test_feishu_card_click_reads_any_card_action(event: dict[str, Any]) -> None:
    """A card.action.trigger event: who clicked, and the button's value and form as dicts."""
    click = FeishuClick.of(event)
    assert isinstance(click.open_id, str)
    assert isinstance(click.value, dict) and isinstance(click.form, dict)
    value = (event.get("action") or {}).get("value")
    if isinstance(value, dict):
        assert click.value == value


# --- the engine's field validation ----------------------------------------------------------

PROCESSES = list(CONFIG.processes_by_key.values())
field_values = st.one_of(
    json_scalars,
    st.lists(json_scalars, max_size=2),
    st.dictionaries(st.text(max_size=4), json_scalars, max_size=2),
    st.dates().map(date.isoformat),
    st.datetimes().map(lambda d: d.isoformat()),
    st.sampled_from(["CNY", "gbp", " travel ", "SICK", "annual", "yes", "no", "1,234.50", "1e400"]),
    st.floats(min_value=-1e7, max_value=1e7).map(str),
    st.dates(),
)


def _raw_fields(process) -> st.SearchStrategy[dict[str, Any]]:
    names = [f.name for f in process.fields]
    return st.dictionaries(st.sampled_from(names) | st.text(max_size=8), field_values, max_size=7)


@props()
@given(st.sampled_from(PROCESSES).flatmap(lambda p: st.tuples(st.just(p), _raw_fields(p))))
def test_validate_fields_cleans_or_names_every_problem(case: tuple[Any, dict[str, Any]]) -> None:
    """Any JSON-ish fields: clean values of the declared types, or ValidationFailed naming the fields."""
    process, raw = case
    try:
        clean = validate_fields(process, raw, CONFIG)
    except ValidationFailed as e:
        assert e.field_errors
        assert set(e.field_errors) <= {f.name for f in process.fields} | set(raw)
        for name, problem in e.field_errors.items():
            assert isinstance(problem, str) and problem and str(name) in e.message
        return
    assert set(clean) <= {f.name for f in process.fields}
    for f in process.fields:
        if f.name not in clean:
            assert not f.required
            continue
        value = clean[f.name]
        if f.type is FieldType.DATE:
            assert date.fromisoformat(value).isoformat() == value
        elif f.type in (FieldType.MONEY, FieldType.NUMBER):
            assert isinstance(value, float) and math.isfinite(value)
            assert (f.min is None or value >= f.min) and (f.max is None or value <= f.max)
        elif f.type is FieldType.CHOICE:
            assert value in f.choices
        elif f.type is FieldType.LEAVE_TYPE:
            assert value in CONFIG.leave_types_by_key
        elif f.type is FieldType.BOOL:
            assert isinstance(value, bool)
        else:
            assert isinstance(value, str) and len(value) <= f.max_length


# --- the agent: any date words in a tool call end the turn clearly ------------------------------


def _agent_turn(tool: str, arguments: dict[str, Any]) -> list[Any]:
    async def go() -> list[Any]:
        redis = fakeredis.FakeAsyncRedis(decode_responses=True)
        config = CONFIG.model_copy(update={"organisation": Organisation(id="prop", name="Acme")})
        engine = Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
        model = ScriptedModel([call(tool, **arguments), reply("done")])
        agent = Agent(model, engine, ThreadMemory(redis))
        events = [e async for e in agent.run("prop:thread", "zhangsan", "x")]
        await redis.aclose()
        return events

    return asyncio.run(go())


@props(60)
@given(
    date_texts.filter(lambda s: len(s.strip()) <= 60),
    st.sampled_from(["propose_leave", "who_is_out", "working_days"]),
)
def test_any_date_words_in_a_tool_call_end_the_turn_clearly(words: str, tool: str) -> None:
    """Whatever dates the model passes, the tool answers (ok or a typed refusal) and the turn ends."""
    arguments: dict[str, Any] = {"start": words}
    if tool == "propose_leave":
        arguments["leave_type"] = "annual"
    events = _agent_turn(tool, arguments)
    [finished] = [e for e in events if isinstance(e, ToolFinished)]
    assert finished.ok or finished.error in (
        "validation_failed",
        "invalid_arguments",
        "overlapping_leave",
        "insufficient_balance",
    )
    assert isinstance(events[-1], FinalAnswer) and events[-1].text == "done"


# --- product bugs these properties found (fixed), kept with their minimal inputs ----------------------------------------

BIG_INT = "1" + "0" * 4300  # 4301 digits: over Python's int-parsing limit
DEEP = "[" * 10_000  # deeper than the JSON decoder's recursion limit
EXPENSE = CONFIG.processes_by_key["expense"]
EXPENSE_OK = {
    "amount": 10,
    "currency": "CNY",
    "category": "meals",
    "spent_on": "2026-12-01",
    "description": "lunch",
}


def bug(name: str, fn: Callable[[], Any], raises: type[BaseException], reason: str) -> Any:
    """A product bug found by these properties, fixed; kept as a regression test (`raises` was the escape)."""
    return pytest.param(fn, id=name)


def _refused_click(body: Any) -> None:
    """Click.of documents a ValueError for a payload that is not a button click."""
    with pytest.raises(ValueError, match="not a button click"):
        SlackClick.of(body)


KNOWN_BUGS = [
    # agent/dates.py: re.IGNORECASE lets 'ſ' match 's' and 'ı' match 'i', then a dict lookup on
    # the lower-cased text fails. Reaches users: the offline planner and every date argument.
    bug(
        "dates-long-s-relative",
        lambda: resolve_date("yeſterday", TODAY),
        KeyError,
        "agent/dates.py _relative: _RELATIVE['yeſterday'] KeyError (U+017F matches 's' under IGNORECASE)",
    ),
    bug(
        "dates-long-s-month",
        lambda: resolve_date("ſep 3", TODAY),
        KeyError,
        "agent/dates.py _month_of: _MONTHS['ſep'] KeyError",
    ),
    bug(
        "dates-dotless-i-weekday",
        lambda: find_range("frıday", TODAY),
        KeyError,
        "agent/dates.py _en_weekday: _WEEKDAYS_EN['frı'] KeyError (U+0131 matches 'i')",
    ),
    bug(
        "agent-turn-crashes-on-long-s",
        lambda: _agent_turn("propose_leave", {"leave_type": "annual", "start": "ſaturday"}),
        KeyError,
        "the KeyError from resolve_date escapes the tool and Agent.run: the turn never ends with a message",
    ),
    # find_range anchors a floating end on a start at the end of the calendar.
    bug(
        "dates-range-overflow",
        lambda: find_range("9999-12-31 to Saturday", TODAY),
        OverflowError,
        "agent/dates.py _coming: date(9999,12,31)+timedelta overflows (OverflowError)",
    ),
    bug(
        "dates-range-year-10000",
        lambda: find_range("9999-12-31 到 5号", TODAY),
        ValueError,
        "agent/dates.py _next_day_of_month: calendar.monthrange(10000, 1) raises a plain ValueError, not DateParseError",
    ),
    # agent/llm: only json.JSONDecodeError is caught; a number over 4300 digits raises a plain
    # ValueError and deep nesting a RecursionError, out of the model client and the turn.
    bug(
        "normalize-big-int",
        lambda: normalize_arguments('{"days": ' + BIG_INT + "}"),
        ValueError,
        "agent/llm/normalize.py normalize_arguments: int-digits ValueError escapes (only JSONDecodeError caught)",
    ),
    bug(
        "normalize-deep-nesting",
        lambda: normalize_arguments(DEEP),
        RecursionError,
        "agent/llm/normalize.py normalize_arguments: RecursionError from json.loads escapes",
    ),
    bug(
        "react-big-int",
        lambda: parse_react_reply("Action: my_balances\nAction Input: " + BIG_INT, SPECS),
        ValueError,
        "agent/llm/react_format.py _decode_json: int-digits ValueError escapes",
    ),
    bug(
        "react-deep-nesting",
        lambda: parse_react_reply("Action: my_balances\nAction Input: " + DEEP, SPECS),
        RecursionError,
        "agent/llm/react_format.py _decode_json: RecursionError escapes",
    ),
    bug(
        "content-call-big-int",
        lambda: tool_calls_from_content(
            '<tool_call>{"name": "my_balances", "arguments": {"year": '
            + BIG_INT
            + "}}</tool_call>",
            SCHEMAS,
        ),
        ValueError,
        "agent/llm/normalize.py _json_call: int-digits ValueError escapes",
    ),
    bug(
        "wire-call-not-an-object",
        lambda: tool_calls_from_wire(["x"], SCHEMAS),  # type: ignore[list-item]
        AttributeError,
        "agent/llm/normalize.py tool_calls_from_wire: raw.get on a non-object entry of message.tool_calls",
    ),
    # workflow/fields.py: float() of a huge int raises OverflowError, which is not caught.
    bug(
        "fields-huge-int-amount",
        lambda: validate_fields(EXPENSE, {**EXPENSE_OK, "amount": 10**400}, CONFIG),
        OverflowError,
        "workflow/fields.py _as_number: float(10**400) OverflowError is not turned into ValidationFailed; via propose_request it crashes the turn",
    ),
    # bot/feishu: reachable without authentication.
    bug(
        "feishu-open-surrogate-token",
        lambda: PLAIN_BOT.open(b'{"token": "\\ud800"}', {}),
        UnicodeEncodeError,
        "bot/feishu/crypto.py check_token: token.encode() on a lone surrogate; unauthenticated request gets a 500",
    ),
    bug(
        "feishu-open-deep-nesting",
        lambda: PLAIN_BOT.open(DEEP.encode(), {}),
        RecursionError,
        "bot/feishu/app.py FeishuBot.open: json.loads RecursionError is not a CallbackRejected; unauthenticated 500",
    ),
    bug(
        "feishu-signature-surrogate-header",
        lambda: crypto.verify_signature(
            {
                crypto.TIMESTAMP_HEADER: "1700000000",
                crypto.NONCE_HEADER: "\udc80",
                crypto.SIGNATURE_HEADER: "ab",
            },
            b"{}",
            KEY,
            1_700_000_000.0,
        ),
        UnicodeEncodeError,
        "bot/feishu/crypto.py verify_signature: aiohttp decodes a non-UTF-8 header byte to a surrogate; .encode() raises; unauthenticated 500",
    ),
    # bot/feishu: authenticated bodies of an unexpected shape.
    bug(
        "feishu-message-content-not-a-string",
        lambda: message_text({"message_type": "text", "content": 5}),
        TypeError,
        "bot/feishu/app.py message_text: json.loads(5) TypeError (only ValueError caught)",
    ),
    bug(
        "feishu-post-title-not-a-string",
        lambda: message_text({"message_type": "post", "content": '{"title": 5, "content": []}'}),
        TypeError,
        "bot/feishu/app.py message_text: '\\n'.join over a non-string title",
    ),
    bug(
        "feishu-mention-key-not-a-string",
        lambda: message_text(
            {"message_type": "text", "content": '{"text": "hi"}', "mentions": [{"key": 5}]}
        ),
        TypeError,
        "bot/feishu/app.py message_text: text.replace(5, '')",
    ),
    bug(
        "feishu-click-action-not-an-object",
        lambda: FeishuClick.of({"action": "x"}),
        AttributeError,
        "bot/feishu/app.py Click.of: 'x'.get",
    ),
    # bot/slack: signed payloads of an unexpected shape.
    bug(
        "slack-click-no-user",
        lambda: _refused_click({}),
        KeyError,
        "bot/slack/app.py Click.of: body['user'] KeyError",
    ),
    bug(
        "slack-click-no-actions",
        lambda: _refused_click({"user": {"id": "U1"}, "actions": []}),
        IndexError,
        "bot/slack/app.py Click.of: body['actions'][0] IndexError",
    ),
    bug(
        "slack-click-team-not-an-object",
        lambda: SlackClick.of({"team": "T1", "user": {"id": "U1"}, "actions": [{}]}),
        AttributeError,
        "bot/slack/app.py Click.of: 'T1'.get",
    ),
    bug(
        "slack-leave-form-unhashable-option",
        lambda: parse_leave_form({"halves": {"halves": {"selected_options": [{"value": []}]}}}),
        TypeError,
        "bot/slack/blocks_forms.py parse_leave_form: a list value put in a set",
    ),
    bug(
        "slack-leave-form-options-not-a-list",
        lambda: parse_leave_form({"halves": {"halves": {"selected_options": 5}}}),
        TypeError,
        "bot/slack/blocks_forms.py parse_leave_form: iterating an int",
    ),
    bug(
        "slack-delegation-form-block-not-an-object",
        lambda: parse_delegation_form({"delegate": "x"}),
        AttributeError,
        "bot/slack/blocks_delegation.py parse_delegation_form: 'x'.get (no isinstance check, unlike parse_leave_form)",
    ),
    bug(
        "slack-delegation-form-option-not-an-object",
        lambda: parse_delegation_form({"delegate": {"delegate": {"selected_option": "x"}}}),
        AttributeError,
        "bot/slack/blocks_delegation.py parse_delegation_form: 'x'.get",
    ),
]


@pytest.mark.parametrize("parse", KNOWN_BUGS)
def test_known_bug_raises_no_untyped_exception(parse: Callable[[], Any]) -> None:
    """Each input that once escaped untyped is now answered by a result or a typed error."""
    with contextlib.suppress(DateParseError, ValidationFailed, CallbackRejected):
        parse()
