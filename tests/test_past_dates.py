"""The day money was spent is a day already gone: "1 Dec" written on 2 Dec 2026 is this 1 December.

The direction is a property of the form field (`past = true` on the expense's `spent_on` in the
organisation file); the tools, the offline planner and the engine's validation all read it there.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date

import fakeredis
import pytest

from agent.dates import find_range, resolve_date
from agent.planner import OfflinePlanner
from agent.planner._forms import form_value
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


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_an_expense_dated_in_the_future_is_refused_with_a_sentence_to_act_on(
    engine: Engine, locale: str
):
    with pytest.raises(ValidationFailed) as refused:
        await engine.prepare_submit("oliver", "expense", {**EXPENSE, "spent_on": "2026-12-05"})
    assert "spent_on" in refused.value.field_errors
    said = refused.value.localized(locale)
    if locale == "zh":
        assert "消费日期 2026-12-05 还没到" in said and "今天 2026-12-02" in said
    else:
        assert "Date spent 2026-12-05 is still to come" in said and "today (2026-12-02)" in said
    today = await engine.prepare_submit("oliver", "expense", {**EXPENSE, "spent_on": "2026-12-02"})
    assert today.request.fields["spent_on"] == "2026-12-02"


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
