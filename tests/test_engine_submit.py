"""Drafts, pending actions and submission: validated like the real thing, run once, by one person."""

from __future__ import annotations

from datetime import timedelta

import pytest

from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, events, state, submitted
from workflow import engine as engine_module
from workflow.engine import Engine
from workflow.errors import (
    InsufficientBalance,
    InvalidState,
    NotAllowed,
    NotFound,
    OverlappingLeave,
    ValidationFailed,
)
from workflow.models import PendingStatus, RequestStatus, StepStatus


async def test_prepare_stores_a_draft_with_days_chain_and_balance(engine: Engine):
    """A proposal holds the computed working days, the chain from the engine and the balance after it."""
    before = await state(engine)
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    assert p.request.status is RequestStatus.DRAFT
    assert p.request.derived["working_days"] == 6  # Thu 3 – Thu 10 Dec, weekend excluded
    assert [s.approver for s in p.request.steps] == ["wangfang", "liuyang"]  # > 3 days adds HR
    assert p.pending.actor == "zhangsan" and p.pending.status is PendingStatus.OPEN
    assert p.balance_after is not None and p.balance_after.available == 4
    assert await state(engine) == before  # a draft reserves nothing and tells nobody


async def test_confirm_submits_once_and_a_second_confirm_returns_the_first_result(engine: Engine):
    """The Submit click runs once; clicking again returns the same request without a second change."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    first = await engine.confirm(p.pending.id, "zhangsan")
    assert first.request.status is RequestStatus.PENDING and not first.repeated
    assert first.request.steps[0].assignee == "wangfang"
    after_first = await state(engine)
    second = await engine.confirm(p.pending.id, "zhangsan")
    assert second.repeated and second.request.id == first.request.id
    assert await state(engine) == after_first
    assert await events(engine) == [
        ("request_submitted", p.request.id),
        ("task_assigned", p.request.id),
    ]


async def test_submit_by_draft_id_is_idempotent(engine: Engine):
    """Submitting the same draft id twice leaves one pending request and reserves the days once."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    await engine.submit(p.request.id, "zhangsan")
    await engine.submit(p.request.id, "zhangsan")
    [sick] = [b for b in await engine.balances("zhangsan", 2026) if b.leave_type == "sick"]
    assert sick.reserved == 6 and sick.available == 4
    assert len(await events(engine)) == 2


async def test_only_the_requester_can_confirm_or_cancel_their_draft(engine: Engine):
    """Someone else's click on Submit or Cancel is refused and changes nothing."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    before = await state(engine)
    with pytest.raises(NotAllowed, match="Only 张三"):
        await engine.confirm(p.pending.id, "lisi")
    with pytest.raises(NotAllowed):
        await engine.cancel(p.pending.id, "wangfang")
    with pytest.raises(NotAllowed):
        await engine.submit(p.request.id, "lisi")
    assert await state(engine) == before


async def test_cancel_drops_the_action_and_a_later_confirm_is_refused(engine: Engine):
    """After Cancel, Submit on the same card says it was cancelled and does nothing."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    cancelled = await engine.cancel(p.pending.id, "zhangsan")
    assert cancelled.status is PendingStatus.CANCELLED
    assert (await engine.cancel(p.pending.id, "zhangsan")).status is PendingStatus.CANCELLED
    before = await state(engine)
    with pytest.raises(InvalidState, match="cancelled"):
        await engine.confirm(p.pending.id, "zhangsan")
    assert await state(engine) == before


async def test_a_confirmed_action_cannot_be_cancelled(engine: Engine):
    """Cancel after Submit points to withdrawal instead."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    await engine.confirm(p.pending.id, "zhangsan")
    with pytest.raises(InvalidState, match="withdraw"):
        await engine.cancel(p.pending.id, "zhangsan")


async def test_an_expired_confirmation_does_nothing(engine: Engine, clock):
    """A Submit click after the pending action's expiry is refused with 'expired'."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    clock.advance(timedelta(hours=25))
    before = await state(engine)
    with pytest.raises(InvalidState, match="expired"):
        await engine.confirm(p.pending.id, "zhangsan")
    assert await state(engine) == before


async def test_an_unknown_confirmation_is_not_found(engine: Engine):
    """A made-up pending id gets a clear 'expired or does not exist'."""
    with pytest.raises(NotFound, match="expired or does not exist"):
        await engine.confirm("P-NOPE", "zhangsan")


async def test_a_change_makes_a_new_draft_and_cancels_the_old_card(engine: Engine):
    """Drafts never change once shown: a correction is a new draft, and the old one can no longer be submitted."""
    old = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    new = await engine.prepare_submit(
        "zhangsan", "leave", {**SICK_6_DAYS, "end": "2026-12-04"}, replaces=old.pending.id
    )
    assert new.request.id != old.request.id and new.request.derived["working_days"] == 2
    with pytest.raises(InvalidState, match="cancelled"):
        await engine.confirm(old.pending.id, "zhangsan")
    outcome = await engine.confirm(new.pending.id, "zhangsan")
    assert outcome.request.fields["end"] == "2026-12-04"
    assert [s.approver for s in outcome.request.steps] == ["wangfang"]  # 2 days: no HR step


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({**SICK_6_DAYS, "end": "2026-12-01"}, "end", "before the first day"),
        ({**SICK_6_DAYS, "start": "2026-12-05", "end": "2026-12-06"}, "start", "no working day"),
        ({**SICK_6_DAYS, "start": "2028-01-03", "end": "2028-01-04"}, "start", "365 days ahead"),
        ({**SICK_6_DAYS, "start": "2026-10-01", "end": "2026-10-09"}, "start", "after the fact"),
        ({**SICK_6_DAYS, "leave_type": "holiday"}, "leave_type", "must be one of"),
        ({**SICK_6_DAYS, "start": "next week"}, "start", "YYYY-MM-DD"),
        ({k: v for k, v in SICK_6_DAYS.items() if k != "start"}, "start", "is required"),
        ({**SICK_6_DAYS, "approver": "lisi"}, "approver", "is not a field"),
        (
            {
                **SICK_6_DAYS,
                "start": "2026-12-03",
                "end": "2026-12-03",
                "start_half": True,
                "end_half": True,
            },
            "start_half",
            "no time off",
        ),
        (
            {"leave_type": "personal", "start": "2026-12-03", "end": "2026-12-03"},
            "reason",
            "needs a reason",
        ),
        ({**SICK_6_DAYS, "reason": "x" * 501}, "reason", "too long"),
    ],
)
async def test_bad_leave_fields_are_refused_with_the_field_named(
    engine: Engine, fields, field, message
):
    """Each bad field gets a ValidationFailed naming that field, and nothing is stored."""
    before = await state(engine)
    with pytest.raises(ValidationFailed) as e:
        await engine.prepare_submit("zhangsan", "leave", fields)
    assert field in e.value.field_errors
    assert message in str(e.value)
    assert await state(engine) == before


async def test_china_make_up_working_day_and_national_day_are_counted(engine: Engine, clock):
    """In China, 1–7 October are off and Saturday 10 October 2026 is a working day (调休)."""
    clock.at = clock.at.replace(year=2026, month=9, day=20)
    p = await engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "annual", "start": "2026-09-28", "end": "2026-10-10"}
    )
    # Mon 28 – Wed 30 Sep (3) + Thu 8, Fri 9 Oct (2) + Sat 10 Oct make-up day (1)
    assert p.request.derived["working_days"] == 6


async def test_english_bank_holidays_do_not_count_and_a_leave_over_new_year_uses_both_years(
    engine: Engine,
):
    """Oliver in London: Christmas, Boxing Day (observed) and New Year's Day are not working days."""
    p = await engine.prepare_submit(
        "oliver", "leave", {"leave_type": "annual", "start": "2026-12-21", "end": "2027-01-04"}
    )
    assert p.request.derived["days_by_year"] == {"2026": 7.0, "2027": 1.0}


async def test_half_days_count_half(engine: Engine):
    """Friday afternoon to Monday morning is one working day."""
    p = await engine.prepare_submit(
        "zhangsan",
        "leave",
        {
            "leave_type": "annual",
            "start": "2026-12-04",
            "end": "2026-12-07",
            "start_half": True,
            "end_half": True,
        },
    )
    assert p.request.derived["working_days"] == 1.0


async def test_half_a_day_of_sick_leave_is_approved_automatically(engine: Engine):
    """The leave process auto-approves half a day of sick leave: no task, the days are used at once."""
    req = await submitted(
        engine,
        fields={"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-03", "end_half": True},
    )
    assert req.status is RequestStatus.APPROVED
    assert req.steps[0].status is StepStatus.AUTO_APPROVED
    assert (await engine.my_approvals("wangfang")).requests == []
    [sick] = [b for b in await engine.balances("zhangsan", 2026) if b.leave_type == "sick"]
    assert (sick.used, sick.reserved) == (0.5, 0)
    assert [t for t, _ in await events(engine)] == ["request_submitted", "request_approved"]


async def test_over_balance_is_refused_with_the_numbers(engine: Engine):
    """Asking for more than is left says how much was asked, how much is left and why."""
    await submitted(
        engine, fields={"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-18"}
    )
    before = await state(engine)
    with pytest.raises(InsufficientBalance) as e:
        await engine.prepare_submit(
            "zhangsan",
            "leave",
            {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-28"},
        )
    assert (
        "6 working days of annual leave in 2026, but only 5 are left (10 a year, 0 taken, 5 awaiting approval)"
        in str(e.value)
    )
    assert await state(engine) == before


async def test_unpaid_leave_has_no_balance(engine: Engine):
    """Unpaid leave is never refused for lack of balance."""
    p = await engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "unpaid", "start": "2027-01-04", "end": "2027-03-31"}
    )
    assert p.request.derived["working_days"] > 50


async def test_overlap_with_own_pending_or_approved_leave_is_refused(engine: Engine):
    """A second leave on days already requested names the existing request."""
    first = await submitted(engine, fields=ANNUAL_2_DAYS)
    with pytest.raises(OverlappingLeave, match=first.id):
        await engine.prepare_submit(
            "zhangsan", "leave", {**SICK_6_DAYS, "start": "2026-12-15", "end": "2026-12-16"}
        )
    # morning of the 15th taken by a new request, afternoon of the 15th free → no overlap when halves fit
    p = await engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "sick", "start": "2026-12-16", "end": "2026-12-16"}
    )
    assert p.request.derived["working_days"] == 1


async def test_half_days_on_the_same_date_do_not_overlap(engine: Engine):
    """Morning off in one request and afternoon off in another is allowed."""
    await submitted(
        engine,
        fields={
            "leave_type": "annual",
            "start": "2026-12-14",
            "end": "2026-12-14",
            "end_half": True,
        },
    )
    p = await engine.prepare_submit(
        "zhangsan",
        "leave",
        {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14", "start_half": True},
    )
    assert p.request.derived["working_days"] == 0.5


async def test_a_withdrawn_leave_frees_its_days_for_a_new_request(engine: Engine):
    """After withdrawal the same days can be requested again and the balance is whole."""
    first = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.withdraw(first.id, "zhangsan")
    again = await submitted(engine, fields=ANNUAL_2_DAYS)
    assert again.status is RequestStatus.PENDING
    [annual] = [b for b in await engine.balances("zhangsan", 2026) if b.leave_type == "annual"]
    assert annual.reserved == 2


async def test_the_balance_is_checked_again_at_submit(engine: Engine):
    """Two drafts that each fit but not together: the second Submit is refused."""
    a = await engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "annual", "start": "2026-12-07", "end": "2026-12-11"}
    )
    b = await engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-21"}
    )
    await engine.confirm(a.pending.id, "zhangsan")
    with pytest.raises(InsufficientBalance):
        await engine.confirm(b.pending.id, "zhangsan")
    assert (await engine.pending_action(b.pending.id, "zhangsan")).status is PendingStatus.OPEN


async def test_expense_over_1000_adds_finance_and_small_ones_do_not(engine: Engine):
    """The expense chain's condition is data: amount > 1000 adds the finance step."""
    base = {
        "currency": "CNY",
        "category": "equipment",
        "spent_on": "2026-11-30",
        "description": "monitor",
    }
    small = await engine.prepare_submit("zhangsan", "expense", {**base, "amount": "999.99"})
    big = await engine.prepare_submit("zhangsan", "expense", {**base, "amount": 1500})
    assert [s.approver for s in small.request.steps] == ["wangfang"]
    assert [s.approver for s in big.request.steps] == ["wangfang", "sarah"]
    with pytest.raises(ValidationFailed, match="amount must be at least"):
        await engine.prepare_submit("zhangsan", "expense", {**base, "amount": -5})
    with pytest.raises(ValidationFailed, match="currency must be one of"):
        await engine.prepare_submit("zhangsan", "expense", {**base, "amount": 5, "currency": "BTC"})


async def test_a_long_expensive_trip_goes_up_two_levels_and_to_finance(engine: Engine):
    """Business trips over 5 calendar days add the manager's manager; over 3000 adds finance."""
    p = await engine.prepare_submit(
        "oliver",
        "business_trip",
        {
            "destination": "Shanghai",
            "start": "2027-01-11",
            "end": "2027-01-22",
            "purpose": "customer visits",
            "estimated_cost": 4200,
        },
    )
    assert [s.approver for s in p.request.steps] == ["emma", "david", "sarah"]


async def test_the_ceo_s_leave_goes_to_hr(engine: Engine):
    """Someone with no manager still gets an approver, never themselves."""
    p = await engine.prepare_submit(
        "david", "leave", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )
    assert [s.approver for s in p.request.steps] == ["liuyang"]


async def test_a_manager_who_is_also_hr_approves_once(engine: Engine):
    """Liu Yang's report would meet Liu Yang twice; the chain keeps one step per person."""
    p = await engine.prepare_submit("liuyang", "leave", {**SICK_6_DAYS})
    approvers = [s.approver for s in p.request.steps]
    assert "liuyang" not in approvers and len(approvers) == len(set(approvers))


async def test_unknown_person_and_process_are_named(engine: Engine):
    """A person or process that does not exist gets NotFound naming it."""
    with pytest.raises(NotFound, match="no person 'ghost'"):
        await engine.prepare_submit("ghost", "leave", SICK_6_DAYS)
    with pytest.raises(NotFound, match="the processes are: leave, expense, business_trip"):
        await engine.prepare_submit("zhangsan", "holiday", SICK_6_DAYS)


async def test_a_random_request_id_already_taken_draws_a_new_one(engine: Engine, monkeypatch):
    """An id collision (rare at a million requests) still gives the person their draft."""
    first = await engine.prepare_submit("zhangsan", "leave", ANNUAL_2_DAYS)
    real, drawn = engine_module.new_id, []

    def colliding(prefix: str, length: int) -> str:
        drawn.append(prefix)
        # the first request id drawn is the one already taken; later draws are random again
        return (
            first.request.id if drawn.count("R-") == 1 and prefix == "R-" else real(prefix, length)
        )

    monkeypatch.setattr(engine_module, "new_id", colliding)
    second = await engine.prepare_submit("lisi", "leave", ANNUAL_2_DAYS)
    assert second.request.id != first.request.id
    assert drawn.count("R-") == 2
    kept = await engine.get_request(first.request.id, "zhangsan")
    assert kept.requester == "zhangsan"  # the taken id's request is untouched
    assert (await engine.pending_action(second.pending.id, "lisi")).request_id == second.request.id
