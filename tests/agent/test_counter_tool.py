"""propose_counter on its own: the dates it reads, and the engine's refusals (nothing stored)."""

from __future__ import annotations

import pytest

from agent.tools.base import ToolContext
from agent.tools.counter import ProposeCounterArgs, propose_counter
from tests.helpers import TEAM_LUNCH, state, submitted
from workflow.engine import Engine
from workflow.errors import InvalidState, NotAllowed, NotFound

ASKED = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}  # Mon–Tue


def _ctx(engine: Engine, actor: str) -> ToolContext:
    person = engine.person(actor)
    return ToolContext(engine, person, engine.today_for(actor), person.locale, "T1:1")


async def test_weekdays_are_read_in_the_requests_week(engine: Engine):
    """'周二' to '周四' for a leave on Mon 14 Dec is 15–17 Dec, not the coming week's days."""
    req = await submitted(engine, "zhangsan", ASKED)
    args = ProposeCounterArgs(request_id=req.id, start="周二", end="周四", comment="上线周")
    obs = await propose_counter(_ctx(engine, "wangfang"), args)
    assert obs.proposal is not None and obs.proposal.kind == "counter"
    f = obs.proposal.fields
    assert (f["start"], f["end"], f["working_days"]) == ("2026-12-15", "2026-12-17", 3)
    assert (f["asked_start"], f["requester"]) == ("2026-12-14", "张三")
    assert "12月15日" in obs.proposal.summary
    pending = await engine.pending_action(obs.proposal.pending_id, "wangfang")
    assert pending.payload["comment"] == "上线周"
    assert (await engine.get_request(req.id, "zhangsan")).counter is None  # only on the click


@pytest.mark.parametrize(
    ("actor", "error"),
    [("lisi", (NotAllowed, NotFound)), ("zhangsan", NotAllowed)],
)
async def test_only_the_approver_may_counter(engine: Engine, actor: str, error):
    """A colleague and the requester are refused; nothing is stored."""
    req = await submitted(engine, "zhangsan", ASKED)
    before = await state(engine)
    with pytest.raises(error):
        await propose_counter(
            _ctx(engine, actor), ProposeCounterArgs(request_id=req.id, start="周三")
        )
    assert await state(engine) == before


async def test_a_finished_request_or_an_expense_has_no_dates_to_counter(engine: Engine):
    """Approved leave and an expense claim: the engine's sentence, nothing stored."""
    leave = await submitted(engine, "zhangsan", ASKED)
    await engine.decide(leave.id, 0, "wangfang", "approve")
    claim = await submitted(engine, "zhangsan", TEAM_LUNCH, process="expense")
    before = await state(engine)
    for req, words in ((leave, "already approved"), (claim, "no dates to suggest")):
        with pytest.raises(InvalidState, match=words):
            await propose_counter(
                _ctx(engine, "wangfang"), ProposeCounterArgs(request_id=req.id, start="周三")
            )
    assert await state(engine) == before
