"""The day money was spent is a day already gone: "1 Dec" written on 2 Dec 2026 is this 1 December.

The direction is a property of the form field (`past = true` on the expense's `spent_on` in the
organisation file); the tools, the offline planner and the engine's validation all read it there.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date

import fakeredis
import pytest

from agent.dates import find_range, resolve_date
from agent.events import FinalAnswer
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from agent.planner._forms import form_value
from agent.refusals import refusal_text, refused_fields
from agent.tools import default_tools
from agent.tools.propose import ProposeRequestArgs, propose_request
from tests.agent.test_planner import SYSTEM_EN, SYSTEM_ZH, chat
from tests.test_new_field import _with_fields
from tests.test_presentation import EXPENSE, proposal
from workflow.clock import FixedClock
from workflow.config import FieldDef, OrgConfig
from workflow.engine import Engine
from workflow.errors import ConfigError, ValidationFailed

TODAY = date(2026, 12, 2)  # a Wednesday


@pytest.fixture
async def engine(config: OrgConfig, clock: FixedClock) -> AsyncIterator[Engine]:
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, client, clock)
    await client.aclose()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 Dec", date(2026, 12, 1)),
        ("12月1日", date(2026, 12, 1)),
        ("1号", date(2026, 12, 1)),
        ("the 3rd", date(2026, 11, 3)),
        ("Friday", date(2026, 11, 27)),
        ("周三", TODAY),
        ("Dec 5", date(2025, 12, 5)),
        ("yesterday", date(2026, 12, 1)),
    ],
)
def test_a_past_date_is_the_nearest_day_on_or_before_today(text: str, expected: date):
    assert resolve_date(text, TODAY, past=True) == expected


def test_leave_dates_still_look_forward_and_a_past_range_stays_in_order():
    assert resolve_date("1 Dec", TODAY) == date(2027, 12, 1)
    rng = find_range("Nov 28 - Dec 1", TODAY, past=True)
    assert rng is not None and (rng.start, rng.end) == (date(2026, 11, 28), date(2026, 12, 1))


async def test_an_expense_spent_on_1_dec_written_on_2_dec_is_this_1_december(engine: Engine):
    """The model passes the words; the tool reads them by the field's direction, not forward."""
    args = ProposeRequestArgs(process="expense", fields={**EXPENSE, "spent_on": "1 Dec"})
    draft = await proposal(engine, "oliver", propose_request, args)
    request = await engine.get_request(draft.request_id, "oliver")
    assert request.fields["spent_on"] == "2026-12-01"


@pytest.mark.parametrize(
    ("actor", "locale", "said"),
    [
        (
            "oliver",
            "en",
            "The date spent, Sat 5 Dec 2026, is still to come: give the day it happened, "
            "today (Wed 2 Dec 2026) or earlier.",
        ),
        (
            "zhangsan",
            "zh",
            "消费日期2026年12月5日 周六还没到：请填写实际发生的日期（今天2026年12月2日 周三或更早）。",
        ),
    ],
)
async def test_an_expense_dated_in_the_future_is_refused_with_a_sentence_to_act_on(
    engine: Engine, actor: str, locale: str, said: str
):
    """The field by its label and the days as the cards write them, in the reader's language."""
    with pytest.raises(ValidationFailed) as refused:
        await engine.prepare_submit(actor, "expense", {**EXPENSE, "spent_on": "2026-12-05"})
    assert "spent_on" in refused.value.field_errors
    assert refusal_text(refused.value, locale) == said
    assert refused_fields(refused.value, locale) == {"spent_on": said}
    today = await engine.prepare_submit(actor, "expense", {**EXPENSE, "spent_on": "2026-12-02"})
    assert today.request.fields["spent_on"] == "2026-12-02"


@pytest.mark.parametrize(
    ("actor", "text", "said", "ask"),
    [
        (
            "oliver",
            "expense 50 GBP team lunch on 2026-12-05",
            "The date spent, Sat 5 Dec 2026, is still to come",
            "What should I change?",
        ),
        (
            "zhangsan",
            "报销 88 元 午饭 2026-12-05",
            "消费日期2026年12月5日 周六还没到",
            "需要怎么调整？",
        ),
    ],
)
async def test_the_planner_says_a_refused_day_once_in_the_readers_words(
    engine: Engine, actor: str, text: str, said: str, ask: str
):
    """No 'spent_on: must be today (2026-12-02) or earlier' under it, in English, in a Chinese chat."""
    agent = Agent(
        OfflinePlanner(), engine, ThreadMemory(fakeredis.FakeAsyncRedis(decode_responses=True))
    )
    events = [e async for e in agent.run(f"{actor}:t", actor, text)]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer)
    lines = answer.text.split("\n")
    assert lines[0].startswith(said) and lines[-1] == ask and len(lines) == 3
    assert "spent_on" not in answer.text and not re.search(r"\d{4}-\d{2}-\d{2}", answer.text)


async def test_every_field_refused_is_named_by_its_label_in_chinese(engine: Engine):
    fields = {**EXPENSE, "amount": None, "currency": "JPY", "spent_on": "next week"}
    with pytest.raises(ValidationFailed) as refused:
        await engine.prepare_submit("zhangsan", "expense", fields)
    assert refusal_text(refused.value, "zh").splitlines() == [
        "请填写金额。",
        "币种须为以下之一：CNY、GBP、USD、EUR。",
        "“next week”不是可识别的日期。",
    ]
    assert refusal_text(refused.value, "en").splitlines()[0] == "The amount is required."


def test_past_is_only_for_date_fields():
    with pytest.raises(ConfigError, match="`past` applies only to a field of type date"):
        _with_fields(
            '\n[[processes.fields]]\nname = "po"\ntype = "text"\nlabel = "PO"\nlabel_zh = "订单"\npast = true\n'
        )


def test_the_model_is_told_which_dates_are_already_gone(engine: Engine):
    [spec] = [s for s in default_tools().specs(engine.config) if s.name == "propose_request"]
    forms = spec.parameters["properties"]["fields"]["description"]
    assert "spent_on (today or earlier)" in forms
    assert "business_trip: destination, start, end," in forms


@pytest.mark.parametrize(
    ("system", "text"),
    [(SYSTEM_EN, "expense 50 GBP team lunch on the 1st"), (SYSTEM_ZH, "报销 88 元 午饭 1号")],
)
async def test_the_offline_planner_reads_the_day_spent_backwards(
    engine: Engine, system: str, text: str
):
    """Its tools' schema marks spent_on as a past date; "the 1st" was 1 January 2026 before."""
    tools = default_tools().specs(engine.config)
    response = await OfflinePlanner().complete(chat(system, text), tools)
    [call] = response.tool_calls
    assert call.arguments["fields"]["spent_on"] == "2026-12-01"


def test_a_form_date_marked_past_is_read_backwards_when_the_planner_asks_for_it():
    """A field an organisation adds (`past = true`) is read by its direction from the answer."""
    field = FieldDef(
        name="receipt_on", type="date", label="Receipt date", label_zh="收据日期", past=True
    )
    assert form_value(field, "1 Dec", TODAY) == "2026-12-01"
