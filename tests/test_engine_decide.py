"""Decisions, withdrawals, reminders and routing: the engine authorizes, records once, and says why."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from tests.helpers import ANNUAL_2_DAYS, events, state, submitted
from workflow.engine import Engine
from workflow.errors import InvalidState, NotAllowed, TooSoon, ValidationFailed
from workflow.models import RequestStatus, StepStatus


def _balance(balances, leave_type):
    return next(b for b in balances if b.leave_type == leave_type)


async def test_a_two_step_leave_goes_from_manager_to_hr_to_approved(engine: Engine):
    """Manager then HR approve; days move from reserved to used; each person's task list follows."""
    req = await submitted(engine)
    assert [r.id for r in (await engine.my_approvals("wangfang")).requests] == [req.id]
    step1 = await engine.decide(req.id, 0, "wangfang", "approve", "get well")
    assert step1.current_step == 1 and step1.steps[1].assignee == "liuyang"
    assert (await engine.my_approvals("wangfang")).requests == []
    assert [r.id for r in (await engine.my_approvals("liuyang")).requests] == [req.id]
    done = await engine.decide(req.id, 1, "liuyang", "approve")
    assert done.status is RequestStatus.APPROVED and done.decided_at is not None
    sick = _balance(await engine.balances("zhangsan", 2026), "sick")
    assert (sick.used, sick.reserved, sick.available) == (6, 0, 4)
    assert (await engine.my_approvals("liuyang")).requests == []
    assert [(h.actor, h.action, h.step, h.comment) for h in done.history] == [
        ("zhangsan", "drafted", None, None),
        ("zhangsan", "submitted", None, None),
        ("wangfang", "approved", 0, "get well"),
        ("liuyang", "approved", 1, None),
        (None, "approved", None, None),
    ]
    assert [t for t, _ in await events(engine)] == [
        "request_submitted",
        "task_assigned",
        "step_approved",
        "task_assigned",
        "step_approved",
        "request_approved",
    ]


@pytest.mark.parametrize("actor", ["lisi", "liuyang", "david", "emma"])
async def test_only_the_assignee_decides_the_open_step(engine: Engine, actor: str):
    """A colleague, HR before their step, the manager's manager or another team's head are refused."""
    req = await submitted(engine)
    before = await state(engine)
    with pytest.raises(NotAllowed, match="assigned to 王芳"):
        await engine.decide(req.id, 0, actor, "approve")
    assert await state(engine) == before


async def test_nobody_approves_their_own_request(engine: Engine):
    """Even a manager cannot approve a request they made, whatever step it is at."""
    req = await submitted(engine, actor="wangfang", fields=ANNUAL_2_DAYS)
    with pytest.raises(NotAllowed, match="their own request"):
        await engine.decide(req.id, 0, "wangfang", "approve")
    with pytest.raises(NotAllowed, match="their own request"):
        await engine.prepare_decision("wangfang", req.id, "approve")


async def test_the_same_click_twice_is_recorded_once(engine: Engine):
    """Approve clicked twice: one decision, one set of events."""
    req = await submitted(engine)
    await engine.decide(req.id, 0, "wangfang", "approve")
    after = await state(engine)
    again = await engine.decide(req.id, 0, "wangfang", "approve")
    assert again.current_step == 1
    assert await state(engine) == after
    assert sum(1 for h in again.history if h.action == "approved") == 1


async def test_a_decided_step_cannot_be_decided_differently(engine: Engine):
    """A Reject on an approved step (a stale card) is refused and says who decided it."""
    req = await submitted(engine)
    await engine.decide(req.id, 0, "wangfang", "approve")
    before = await state(engine)
    with pytest.raises(InvalidState, match="already approved by 王芳"):
        await engine.decide(req.id, 0, "wangfang", "reject", "changed my mind")
    assert await state(engine) == before


async def test_a_step_that_is_not_open_cannot_be_decided(engine: Engine):
    """HR cannot decide step 2 before the manager has decided step 1; a missing step is named."""
    req = await submitted(engine)
    with pytest.raises(InvalidState, match=r"Step 2 .* is not open"):
        await engine.decide(req.id, 1, "liuyang", "approve")
    with pytest.raises(ValidationFailed, match="no step 5"):
        await engine.decide(req.id, 4, "wangfang", "approve")
    with pytest.raises(ValidationFailed, match="'approve' or 'reject'"):
        await engine.decide(req.id, 0, "wangfang", "maybe")


async def test_rejection_needs_a_reason_and_releases_the_days(engine: Engine):
    """Reject without a reason is refused; with one, the request ends and its days come back."""
    req = await submitted(engine)
    with pytest.raises(ValidationFailed, match="reason"):
        await engine.decide(req.id, 0, "wangfang", "reject", "  ")
    done = await engine.decide(req.id, 0, "wangfang", "reject", "Release week: please move it")
    assert done.status is RequestStatus.REJECTED
    assert done.steps[0].comment == "Release week: please move it"
    assert done.steps[1].status is StepStatus.CANCELLED
    sick = _balance(await engine.balances("zhangsan", 2026), "sick")
    assert (sick.used, sick.reserved) == (0, 0)
    assert (await engine.who_is_out("lisi", date(2026, 12, 1), date(2026, 12, 31))).total == 0
    assert (await events(engine))[-1] == ("request_rejected", req.id)


async def test_a_proposed_decision_runs_on_the_approvers_click(engine: Engine):
    """prepare_decision is only for the assignee; its confirm records the decision once."""
    req = await submitted(engine)
    with pytest.raises(NotAllowed):
        await engine.prepare_decision("lisi", req.id, "approve")
    p = await engine.prepare_decision("wangfang", req.id, "approve", "ok")
    with pytest.raises(NotAllowed):
        await engine.confirm(p.pending.id, "zhangsan")
    outcome = await engine.confirm(p.pending.id, "wangfang")
    assert outcome.request.current_step == 1
    assert (await engine.confirm(p.pending.id, "wangfang")).repeated


async def test_withdraw_is_the_requesters_until_the_decision(engine: Engine):
    """The requester withdraws a pending request; others cannot; a decided one cannot be withdrawn."""
    req = await submitted(engine)
    with pytest.raises(NotAllowed, match="Only 张三"):
        await engine.withdraw(req.id, "wangfang")
    done = await engine.withdraw(req.id, "zhangsan", "feeling better")
    assert done.status is RequestStatus.WITHDRAWN
    assert (
        await engine.withdraw(req.id, "zhangsan")
    ).status is RequestStatus.WITHDRAWN  # idempotent
    assert (await engine.my_approvals("wangfang")).requests == []
    sick = _balance(await engine.balances("zhangsan", 2026), "sick")
    assert sick.reserved == 0
    with pytest.raises(InvalidState, match="withdrawn"):
        await engine.decide(req.id, 0, "wangfang", "approve")
    withdrawn_events = [
        e
        for e in await engine.store.redis.xrange(engine.keys.outbox)
        if e[1]["type"] == "request_withdrawn"
    ]
    assert len(withdrawn_events) == 1 and '"assignee":"wangfang"' in withdrawn_events[0][1]["data"]

    approved = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(approved.id, 0, "wangfang", "approve")
    with pytest.raises(InvalidState, match="approved; it can no longer be withdrawn"):
        await engine.prepare_withdraw("zhangsan", approved.id)


async def test_withdraw_through_a_confirm_card(engine: Engine):
    """prepare_withdraw stores the action; the requester's click withdraws."""
    req = await submitted(engine)
    p = await engine.prepare_withdraw("zhangsan", req.id, "plans changed")
    outcome = await engine.confirm(p.pending.id, "zhangsan")
    assert outcome.request.status is RequestStatus.WITHDRAWN


async def test_reminders_are_rate_limited(engine: Engine, clock):
    """One reminder per 4 hours per request; the refusal says when the next one may go."""
    req = await submitted(engine)
    with pytest.raises(NotAllowed):
        await engine.prepare_remind("lisi", req.id)
    p = await engine.prepare_remind("zhangsan", req.id, "flight on Friday")
    await engine.confirm(p.pending.id, "zhangsan")
    reminder = [
        e
        for e in await engine.store.redis.xrange(engine.keys.outbox)
        if e[1]["type"] == "reminder_sent"
    ]
    assert len(reminder) == 1 and '"assignee":"wangfang"' in reminder[0][1]["data"]
    with pytest.raises(TooSoon, match="2026-12-02 13:00"):
        await engine.prepare_remind("zhangsan", req.id)
    clock.advance(timedelta(hours=4, minutes=1))
    p2 = await engine.prepare_remind("zhangsan", req.id)
    await engine.confirm(p2.pending.id, "zhangsan")


async def test_an_approver_on_leave_today_is_routed_to_their_manager(engine: Engine, clock):
    """While 王芳 is on approved leave, new steps go to her manager and the history says why."""
    own = await submitted(
        engine,
        actor="wangfang",
        fields={"leave_type": "annual", "start": "2026-12-02", "end": "2026-12-04"},
    )
    await engine.decide(own.id, 0, "david", "approve")
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    step = req.steps[0]
    assert (step.approver, step.assignee) == ("wangfang", "david")
    [routed] = [h.reason for h in req.history if h.action == "routed"]
    assert routed.model_dump(mode="json", exclude_none=True) == {
        "code": "on_leave",
        "from": "wangfang",
        "to": "david",
        "until": "2026-12-04",
    }
    task = [
        e
        for e in await engine.store.redis.xrange(engine.keys.outbox)
        if e[1]["type"] == "task_assigned" and e[1]["request_id"] == req.id
    ]
    assert '"routed_reason":"on_leave"' in task[0][1]["data"]
    decided = await engine.decide(req.id, 0, "david", "approve")
    assert decided.status is RequestStatus.APPROVED


async def test_a_delegation_in_force_moves_open_steps_and_routes_new_ones(engine: Engine):
    """Delegating now hands 王芳's open step to 陈静 (history says why); new steps go to 陈静; 王芳 may still decide."""
    open_before = await submitted(engine, actor="lisi", fields=ANNUAL_2_DAYS)
    await engine.set_delegation("wangfang", "chenjing", date(2026, 12, 1), date(2026, 12, 9))
    assert [r.id for r in (await engine.my_approvals("chenjing")).requests] == [open_before.id]
    assert (await engine.my_approvals("wangfang")).requests == []
    decided = await engine.decide(open_before.id, 0, "chenjing", "approve")
    assert decided.steps[0].decided_by == "chenjing"
    assert any(
        h.reason is not None
        and (h.reason.code, h.reason.from_, h.reason.to) == ("delegated", "wangfang", "chenjing")
        for h in decided.history
    )
    new = await submitted(engine, fields=ANNUAL_2_DAYS)
    assert new.steps[0].assignee == "chenjing"
    assert any(h.reason is not None and h.reason.to == "chenjing" for h in new.history)
    by_approver = await engine.decide(new.id, 0, "wangfang", "approve")
    assert by_approver.status is RequestStatus.APPROVED
    assigned = [
        e
        for e in await engine.store.redis.xrange(engine.keys.outbox)
        if e[1]["type"] == "task_assigned"
    ]
    assert any(
        e[1]["request_id"] == open_before.id and '"assignee":"chenjing"' in e[1]["data"]
        for e in assigned
    )


async def test_a_delegation_outside_its_dates_does_nothing(engine: Engine):
    """A delegation for next month neither routes today's steps nor lets the delegate decide."""
    await engine.set_delegation("wangfang", "chenjing", date(2027, 1, 4), date(2027, 1, 8))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    assert req.steps[0].assignee == "wangfang"
    with pytest.raises(NotAllowed):
        await engine.decide(req.id, 0, "chenjing", "approve")


async def test_delegation_input_is_checked(engine: Engine):
    """Delegating to oneself or with the dates reversed is refused."""
    with pytest.raises(ValidationFailed, match="yourself"):
        await engine.set_delegation("wangfang", "wangfang", date(2026, 12, 1), date(2026, 12, 2))
    with pytest.raises(ValidationFailed, match="before"):
        await engine.set_delegation("wangfang", "lisi", date(2026, 12, 5), date(2026, 12, 2))
