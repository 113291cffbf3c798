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
from tests.helpers import submitted
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


@pytest.mark.parametrize(
    ("actor", "ask", "answer"),
    [
        (
            "zhangsan",
            "催一下",
            "这个申请刚催办过，下次最早可在 12月2日 周三 13:00（北京时间）发送（每 4 小时最多一次）。",
        ),
        (
            "oliver",
            "remind my approver",
            "A reminder for this request was already sent; the next one can go after "
            "Wed 2 Dec, 13:00 (London time) (at most one every 4 hours).",
        ),
    ],
)
async def test_a_reminder_too_soon_says_when_in_the_readers_words_and_zone(env, actor, ask, answer):
    """A second reminder within the hours allowed is refused with when the next may go, as
    cards write a moment: the day, the time and the zone named, no id, no ISO timestamp."""
    engine, agent = env
    fields = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    req = await submitted(engine, actor, fields)
    p = await engine.prepare_remind(actor, req.id)
    await engine.confirm(p.pending.id, actor)
    events = [e async for e in agent.run(f"{actor}:remind", actor, ask)]
    final = events[-1]
    assert isinstance(final, FinalAnswer)
    assert answer in final.text, final.text
    assert not ID_OR_ISO.search(final.text)
