"""An expense named in one line reads in the reader's language: its category by its label
('报销：88.00 CNY（餐饮）'), never the stored key ('(meals)'), on cards, in lists and in answers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date, datetime

import fakeredis
import pytest

from agent.events import FinalAnswer
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from agent.tools.base import ToolContext
from agent.tools.read import NoArgs, my_pending_approvals
from bot.conversation.lifecycle import summary_of
from bot.wording import request_facts
from tests.helpers import submitted
from workflow.clock import FixedClock
from workflow.config import load_config
from workflow.engine import Engine

LUNCH = {"amount": 88, "currency": "CNY", "category": "meals", "spent_on": "2026-12-01"}


@pytest.fixture
async def engine() -> AsyncIterator[Engine]:
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(load_config(), redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    await redis.aclose()


async def test_the_chinese_answer_names_the_category_by_its_label(engine: Engine):
    agent = Agent(
        OfflinePlanner(), engine, ThreadMemory(fakeredis.FakeAsyncRedis(decode_responses=True))
    )
    events = [e async for e in agent.run("zhangsan:t", "zhangsan", "报销 88 元 午饭 12月1日")]
    answer = events[-1]
    assert isinstance(answer, FinalAnswer)
    assert "报销：88.00 CNY（餐饮）" in answer.text and "meals" not in answer.text


@pytest.mark.parametrize(
    ("locale", "named"),
    [("zh", "张三：报销：88.00 CNY（餐饮）"), ("en", "张三: Expense claim: 88.00 CNY (Meals)")],
)
async def test_the_card_and_the_approvers_list_say_the_category_as_a_person_reads_it(
    engine: Engine, locale: str, named: str
):
    req = await submitted(engine, "zhangsan", {**LUNCH, "description": "午饭"}, "expense")
    approver = req.steps[0].approver
    assert summary_of(req, engine, locale, approver) == named
    person = engine.directory.get(approver).model_copy(update={"locale": locale})
    listed = await my_pending_approvals(
        ToolContext(engine, person, date(2026, 12, 2), locale, "t"), NoArgs()
    )
    what = named.split("：" if locale == "zh" else ": ", 1)[1]
    assert listed.data["approvals"][0]["what"] == what and what in listed.summary


async def test_the_approvers_card_writes_the_currency_as_it_is_written(engine: Engine):
    """'CNY', not 'Cny': only a lower-case key is capitalised for reading."""
    req = await submitted(engine, "zhangsan", {**LUNCH, "description": "午饭"}, "expense")
    facts = dict(request_facts(req, engine, "zh"))
    assert facts["币种"] == "CNY" and facts["类别"] == "餐饮"
