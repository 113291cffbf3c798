"""A correction typed as a new top-level DM ("actually make it Thursday", "改成周四") applies to
the person's live draft in that DM: the corrected card comes under the message just typed and
the old card is superseded (its Submit refused). With the offline planner and with a model."""

from __future__ import annotations

from datetime import datetime

import fakeredis
import pytest

from agent.events import FinalAnswer, ProposalReady
from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.planner import OfflinePlanner
from agent.testing import ScriptedModel, call
from workflow.clock import FixedClock
from workflow.config import load_config
from workflow.engine import Engine
from workflow.errors import WorkflowError
from workflow.models import PendingStatus

NOW = datetime(2026, 12, 2, 9, 0)  # Wednesday


@pytest.fixture
async def redis():
    r = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield r
    await r.aclose()


def agent_with(model, redis) -> tuple[Engine, Agent]:
    engine = Engine(load_config(), redis, FixedClock(NOW))
    return engine, Agent(model, engine, ThreadMemory(redis))


async def turn(agent: Agent, thread: str, actor: str, text: str) -> list:
    return [e async for e in agent.run(thread, actor, text)]


def proposal_of(events: list) -> ProposalReady:
    return next(e for e in events if isinstance(e, ProposalReady))


@pytest.mark.parametrize(
    ("actor", "first", "correction"),
    [
        ("oliver", "annual leave next Monday", "actually make it Thursday"),
        ("zhangsan", "下周一请一天年假", "改成周四"),
    ],
)
async def test_a_correction_in_a_new_message_replaces_the_live_draft(
    redis, actor, first, correction
):
    engine, agent = agent_with(OfflinePlanner(), redis)
    old = proposal_of(await turn(agent, f"slack:T1:D{actor}:100.1", actor, first))
    assert old.fields["start"] == "2026-12-07"

    events = await turn(agent, f"slack:T1:D{actor}:200.2", actor, correction)
    new = proposal_of(events)
    assert (new.fields["start"], new.fields["end"]) == ("2026-12-10", "2026-12-10")
    assert new.replaces == old.pending_id  # the platform edits the old card
    assert (await engine.pending_action(old.pending_id, actor)).status is not PendingStatus.OPEN
    with pytest.raises(WorkflowError):
        await engine.confirm(old.pending_id, actor)
    await engine.confirm(new.pending_id, actor)
    assert len(await engine.my_requests(actor)) == 1


@pytest.mark.parametrize(
    ("actor", "first", "correction", "says"),
    [
        ("oliver", "annual leave next Monday", "actually make it Thursday", "don't see a request"),
        ("zhangsan", "下周一请一天年假", "改成周四", "没有可以修改的申请"),
    ],
)
async def test_no_live_draft_in_that_dm_means_nothing_to_change(
    redis, actor, first, correction, says
):
    """A submitted draft is not live, and another DM's draft is not this one's."""
    engine, agent = agent_with(OfflinePlanner(), redis)
    submitted = proposal_of(await turn(agent, f"slack:T1:D{actor}:1.0", actor, first))
    await engine.confirm(submitted.pending_id, actor)
    events = await turn(agent, f"slack:T1:D{actor}:2.0", actor, correction)
    assert not any(isinstance(e, ProposalReady) for e in events)
    assert says in events[-1].text

    await turn(agent, "slack:T1:Dother:3.0", actor, first)  # a live draft elsewhere
    events = await turn(agent, f"slack:T1:D{actor}:4.0", actor, correction)
    assert not any(isinstance(e, ProposalReady) for e in events)


async def test_the_model_sees_the_draft_and_its_proposal_supersedes_it(redis):
    """The LLM path: the new thread starts with the draft's conversation, and a proposal that
    names nothing to replace still replaces the live draft."""
    model = ScriptedModel(
        [
            call("propose_leave", leave_type="annual", start="2026-12-07", end="2026-12-07"),
            call("propose_leave", leave_type="annual", start="2026-12-10", end="2026-12-10"),
        ]
    )
    _, agent = agent_with(model, redis)
    old = proposal_of(await turn(agent, "slack:T1:Doliver:1.0", "oliver", "annual leave Monday"))
    events = await turn(agent, "slack:T1:Doliver:2.0", "oliver", "actually make it Thursday")
    seen = model.calls[1].messages
    assert any(m.role == "user" and m.content == "annual leave Monday" for m in seen)
    new = proposal_of(events)
    assert new.replaces == old.pending_id and new.fields["start"] == "2026-12-10"
    assert isinstance(events[-1], FinalAnswer)
    model.assert_complete()


@pytest.mark.parametrize(
    ("actor", "first", "correction", "named"),
    [
        (
            "oliver",
            "annual leave 21-23 Dec",
            "actually move it to the 22nd",
            "annual leave, Mon 21",
        ),
        ("zhangsan", "12月21日到23日请年假", "改成22号", "年假，2026年12月21日"),
    ],
)
async def test_a_correction_after_submitting_names_the_request_by_its_facts(
    redis, actor, first, correction, named
):
    """Nothing is changed, and the person reads which request is meant, not only its id."""
    engine, agent = agent_with(OfflinePlanner(), redis)
    thread = f"slack:T1:D{actor}:300.3"
    proposal = proposal_of(await turn(agent, thread, actor, first))
    await engine.confirm(proposal.pending_id, actor)
    await agent.memory.note(thread, "(Confirmed: submitted)")

    events = await turn(agent, thread, actor, correction)
    assert not [e for e in events if isinstance(e, ProposalReady)]
    answer = next(e for e in events if isinstance(e, FinalAnswer)).text
    assert named in answer
    assert proposal.request_id in answer  # still there, to say "withdraw R-…"
