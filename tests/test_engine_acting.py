"""Acting for someone: HR files and withdraws a person's leave; the record says who acted; nobody else can."""

from __future__ import annotations

import json

import pytest

from tests.helpers import ANNUAL_2_DAYS, TEAM_LUNCH, state, submitted
from workflow.engine import Engine
from workflow.errors import ActingNotAllowed, NotAllowed
from workflow.models import RequestStatus

SICK_3_DAYS = {"leave_type": "sick", "start": "2026-12-07", "end": "2026-12-09", "reason": "flu"}


async def _filed_by_hr(engine: Engine, fields=None):
    proposal = await engine.prepare_submit(
        "liuyang", "leave", fields or SICK_3_DAYS, on_behalf_of="zhangsan"
    )
    outcome = await engine.confirm(proposal.pending.id, "liuyang")
    assert outcome.request is not None
    return proposal, outcome.request


async def _outbox(engine: Engine) -> list[tuple[str, dict]]:
    entries = await engine.store.redis.xrange(engine.keys.outbox)
    return [(f["type"], json.loads(f["data"])) for _, f in entries]


async def test_hr_files_leave_that_is_the_persons_own(engine: Engine):
    """Their chain, their balance, their list; HR confirms; history and events name HR."""
    proposal, req = await _filed_by_hr(engine)
    assert proposal.pending.actor == "liuyang"
    assert proposal.request.requester == "zhangsan" and proposal.request.filed_by == "liuyang"
    assert req.status is RequestStatus.PENDING
    assert (req.requester, req.filed_by) == ("zhangsan", "liuyang")
    assert [s.approver for s in req.steps] == ["wangfang"]  # 张三's manager, not HR's
    assert [(h.actor, h.action) for h in req.history] == [
        ("liuyang", "drafted"),
        ("liuyang", "submitted"),
    ]
    sick = next(b for b in await engine.balances("zhangsan", 2026) if b.leave_type == "sick")
    assert sick.reserved == 3
    hr_sick = next(b for b in await engine.balances("liuyang", 2026) if b.leave_type == "sick")
    assert hr_sick.reserved == 0
    assert [r.id for r in await engine.my_requests("zhangsan")] == [req.id]
    assert await engine.my_requests("liuyang") == []
    assert [r.id for r in (await engine.my_approvals("wangfang")).requests] == [req.id]
    told = [d for t, d in await _outbox(engine) if t == "acted_for"]
    assert told == [{"by": "liuyang", "person": "zhangsan", "action": "submitted"}]


async def test_the_balance_checked_is_the_persons(engine: Engine):
    """HR cannot file more than the person has left (their numbers in the refusal)."""
    eleven = {"leave_type": "sick", "start": "2026-12-07", "end": "2026-12-21", "reason": "x"}
    with pytest.raises(Exception, match="only 10 are left"):
        await engine.prepare_submit("liuyang", "leave", eleven, on_behalf_of="zhangsan")


@pytest.mark.parametrize("actor", ["lisi", "wangfang", "david"])
async def test_nobody_but_hr_files_for_someone(engine: Engine, actor: str):
    """A colleague, the manager and the CEO are refused with a sentence; nothing is stored."""
    before = await state(engine)
    with pytest.raises(ActingNotAllowed, match="Only HR can file or withdraw leave") as e:
        await engine.prepare_submit(actor, "leave", SICK_3_DAYS, on_behalf_of="zhangsan")
    assert "只有人事" in e.value.localized("zh")
    assert await state(engine) == before


async def test_hr_files_leave_only(engine: Engine):
    """An expense claim stays the person's own to file."""
    with pytest.raises(ActingNotAllowed, match="other requests are 张三's to file"):
        await engine.prepare_submit("liuyang", "expense", TEAM_LUNCH, on_behalf_of="zhangsan")


async def test_the_person_cannot_confirm_hrs_draft(engine: Engine):
    """The draft waits for the click of HR, who filed it."""
    proposal = await engine.prepare_submit("liuyang", "leave", SICK_3_DAYS, on_behalf_of="zhangsan")
    with pytest.raises(NotAllowed):
        await engine.confirm(proposal.pending.id, "zhangsan")
    assert await engine.my_requests("zhangsan") == []


async def test_hr_withdraws_for_the_person_and_they_are_told(engine: Engine):
    """The history says HR withdrew it; the days go back; an acted_for event tells the person."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    proposal = await engine.prepare_withdraw("liuyang", req.id, "filed twice")
    outcome = await engine.confirm(proposal.pending.id, "liuyang")
    done = outcome.request
    assert done is not None and done.status is RequestStatus.WITHDRAWN
    assert (done.history[-1].actor, done.history[-1].action) == ("liuyang", "withdrawn")
    annual = next(b for b in await engine.balances("zhangsan", 2026) if b.leave_type == "annual")
    assert annual.reserved == 0
    told = [d for t, d in await _outbox(engine) if t == "acted_for"]
    assert told == [{"by": "liuyang", "person": "zhangsan", "action": "withdrawn"}]


@pytest.mark.parametrize("actor", ["lisi", "wangfang"])
async def test_nobody_but_the_person_or_hr_withdraws(engine: Engine, actor: str):
    """A colleague or the approver cannot withdraw it; nothing changes."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    before = await state(engine)
    with pytest.raises(NotAllowed, match=r"Only 张三 \(or HR on their behalf\) can withdraw"):
        await engine.withdraw(req.id, actor)
    assert await state(engine) == before


async def test_the_person_may_withdraw_what_hr_filed(engine: Engine):
    """It is their request: they withdraw it themselves, and no acted_for notice is sent."""
    _, req = await _filed_by_hr(engine)
    done = await engine.withdraw(req.id, "zhangsan")
    assert done.status is RequestStatus.WITHDRAWN
    told = [d["action"] for t, d in await _outbox(engine) if t == "acted_for"]
    assert told == ["submitted"]


async def test_hr_cannot_approve_by_filing(engine: Engine):
    """Filing for someone gives no say in the decision: the manager still decides."""
    _, req = await _filed_by_hr(engine)
    with pytest.raises(NotAllowed, match=r"You filed request .* for 张三, so someone else"):
        await engine.decide(req.id, 0, "liuyang", "approve")
