"""Say each thing once: a refusal is one sentence in the answer, a few words on the step line,
with names and dates a person reads and no internal ids or ISO dates."""

from __future__ import annotations

import re
from datetime import datetime

import fakeredis
import pytest

from agent.events import FinalAnswer, ProposalReady, ToolFinished
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from bot.presentation.steps import step_output
from workflow.clock import FixedClock
from workflow.config import load_config
from workflow.engine import Engine

ID_OR_ISO = re.compile(r"R-[A-Z0-9]{6,}|\d{4}-\d{2}-\d{2}")


@pytest.fixture
async def env():
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    engine = Engine(load_config(), redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    yield engine, Agent(OfflinePlanner(), engine, ThreadMemory(redis))
    await redis.aclose()


@pytest.mark.parametrize(
    ("actor", "first", "again", "answer", "step"),
    [
        (
            "oliver",
            "annual leave on Thursday",
            "annual leave on 3 December",
            "You already have leave awaiting approval on Thu 3 Dec 2026; "
            "withdraw it or choose other days.",
            "Overlaps leave you already have",
        ),
        (
            "zhangsan",
            "周四请一天年假",
            "12月3日请一天年假",
            "你在2026年12月3日 周四已有待审批的请假，请先撤回或换其他日期。",
            "与已有的请假重叠",
        ),
    ],
)
async def test_an_overlap_is_said_once_with_dates_and_no_id(env, actor, first, again, answer, step):
    engine, agent = env
    events = [e async for e in agent.run(f"{actor}:one", actor, first)]
    proposal = next(e for e in events if isinstance(e, ProposalReady))
    await engine.confirm(proposal.pending_id, actor)

    events = [e async for e in agent.run(f"{actor}:two", actor, again)]
    finished = [e for e in events if isinstance(e, ToolFinished) and not e.ok]
    final = events[-1]
    assert isinstance(final, FinalAnswer)
    assert [step_output(e) for e in finished] == [step]
    assert final.text.splitlines()[0] == answer
    assert final.text.count(answer) == 1 and answer not in step
    assert not ID_OR_ISO.search(final.text) and not ID_OR_ISO.search(step)
