"""Counter-offers: an approver suggests other dates; the requester's Accept moves the request, Decline keeps it."""

from __future__ import annotations

import asyncio
import json
from datetime import date

import pytest

from tests.conftest import delete_org, open_real_redis
from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, TEAM_LUNCH, events, state, submitted
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.counter import Dates
from workflow.engine import Engine
from workflow.errors import (
    InsufficientBalance,
    InvalidState,
    NotAllowed,
    OverlappingLeave,
    ValidationFailed,
)
from workflow.models import CounterStatus, RequestStatus, StepStatus

WED_THU = Dates(date(2026, 12, 16), date(2026, 12, 17))  # two working days, like Mon–Tue asked


def _annual(balances):
    return next(b for b in balances if b.leave_type == "annual")


async def _countered(engine: Engine, dates: Dates = WED_THU):
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    return await engine.counter("wangfang", req.id, 0, dates, "we ship on Monday")


async def _calendar(engine: Engine) -> list[tuple[str, str, str]]:
    out = await engine.who_is_out("liuyang", date(2026, 12, 1), date(2026, 12, 31))
    return [(o.person, o.start.isoformat(), o.end.isoformat()) for o in out.entries]


async def test_a_suggestion_is_recorded_and_changes_nothing_else(engine: Engine):
    """The approver's dates wait on the request with who and when; the dates, days and ledger stay."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    before = await state(engine)
    after = await engine.counter("wangfang", req.id, 0, WED_THU, "we ship on Monday")
    c = after.counter
    assert c is not None and c.status is CounterStatus.OPEN
    assert (c.by, c.step, c.start, c.end, c.working_days) == (
        "wangfang",
        0,
        date(2026, 12, 16),
        date(2026, 12, 17),
        2,
    )
    assert c.at is not None and c.comment == "we ship on Monday"
    assert (after.fields["start"], after.fields["end"]) == ("2026-12-14", "2026-12-15")
    assert after.steps[0].status is StepStatus.PENDING and after.steps[0].assignee == "wangfang"
    assert [(h.actor, h.action, h.step) for h in after.history][-1] == ("wangfang", "countered", 0)
    now = await state(engine)
    assert now.pop("outbox") == before.pop("outbox") + 1
    assert now == before
    [(_, last)] = (await engine.store.redis.xrange(engine.keys.outbox))[-1:]
    assert last["type"] == "counter_proposed"
    data = json.loads(last["data"])
    assert (data["by"], data["start"], data["end"], data["working_days"]) == (
        "wangfang",
        "2026-12-16",
        "2026-12-17",
        2,
    )
    stored = await engine.get_request(req.id, "zhangsan")
    assert stored.counter == c


async def test_accept_moves_the_request_and_the_approver_decides_it_on_the_new_dates(
    engine: Engine,
):
    """Accept: new dates, days re-counted and re-reserved, calendar moved; one click approves them."""
    req = await _countered(engine)
    accepted = await engine.answer_counter("zhangsan", req.id, accept=True)
    assert (accepted.fields["start"], accepted.fields["end"]) == ("2026-12-16", "2026-12-17")
    assert accepted.derived["working_days"] == 2
    c = accepted.counter
    assert c is not None and c.status is CounterStatus.ACCEPTED
    assert c.was == {
        "start": "2026-12-14",
        "end": "2026-12-15",
        "start_half": False,
        "end_half": False,
    }
    assert accepted.status is RequestStatus.PENDING and accepted.current_step == 0
    assert accepted.steps[0].assignee == "wangfang"
    assert [(h.actor, h.action) for h in accepted.history][-2:] == [
        ("wangfang", "countered"),
        ("zhangsan", "counter_accepted"),
    ]
    annual = _annual(await engine.balances("zhangsan", 2026))
    assert (annual.reserved, annual.used) == (2, 0)
    assert await _calendar(engine) == [("zhangsan", "2026-12-16", "2026-12-17")]
    assert [t for t, _ in await events(engine)][-1] == "counter_answered"
    assert [r.id for r in (await engine.my_approvals("wangfang")).requests] == [req.id]
    done = await engine.decide(req.id, 0, "wangfang", "approve")
    assert done.status is RequestStatus.APPROVED
    annual = _annual(await engine.balances("zhangsan", 2026))
    assert (annual.reserved, annual.used) == (0, 2)
    assert await _calendar(engine) == [("zhangsan", "2026-12-16", "2026-12-17")]


async def test_accepting_a_shorter_leave_gives_the_difference_back(engine: Engine):
    """Three working days suggested as one: two days go back to the balance on Accept."""
    three = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-16"}
    req = await submitted(engine, fields=three)
    await engine.counter("wangfang", req.id, 0, Dates(date(2026, 12, 14), date(2026, 12, 14)))
    await engine.answer_counter("zhangsan", req.id, accept=True)
    annual = _annual(await engine.balances("zhangsan", 2026))
    assert annual.reserved == 1


async def test_decline_keeps_the_request_and_tells_the_approver(engine: Engine):
    """Decline: same dates, same days; the suggestion is marked declined and an event goes out."""
    req = await _countered(engine)
    before = await state(engine)
    declined = await engine.answer_counter("zhangsan", req.id, accept=False)
    assert (declined.fields["start"], declined.fields["end"]) == ("2026-12-14", "2026-12-15")
    assert declined.counter is not None and declined.counter.status is CounterStatus.DECLINED
    assert declined.history[-1].action == "counter_declined"
    now = await state(engine)
    assert now.pop("outbox") == before.pop("outbox") + 1
    assert now == before
    [(_, last)] = (await engine.store.redis.xrange(engine.keys.outbox))[-1:]
    assert last["type"] == "counter_answered"
    assert json.loads(last["data"])["accepted"] is False
    again = await engine.answer_counter("zhangsan", req.id, accept=False)  # a second click
    assert again.version == declined.version + 1 or again.counter == declined.counter
    with pytest.raises(InvalidState, match="you already declined them"):
        await engine.answer_counter("zhangsan", req.id, accept=True)


async def test_a_second_identical_suggestion_is_recorded_once(engine: Engine):
    """A double-clicked form submit leaves one history line and one event."""
    req = await _countered(engine)
    before = await state(engine)
    again = await engine.counter("wangfang", req.id, 0, WED_THU, "we ship on Monday")
    assert await state(engine) == before
    assert [h.action for h in again.history].count("countered") == 1


async def test_a_counter_offer_on_a_finished_request_is_refused(engine: Engine):
    """An approved request keeps its dates: a clear sentence, nothing changed."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(req.id, 0, "wangfang", "approve")
    before = await state(engine)
    with pytest.raises(InvalidState, match="already approved; its dates can no longer change"):
        await engine.counter("wangfang", req.id, 0, WED_THU)
    assert await state(engine) == before


@pytest.mark.parametrize("actor", ["lisi", "liuyang", "zhangsan"])
async def test_only_the_approver_holding_the_step_may_suggest_dates(engine: Engine, actor: str):
    """A colleague, HR before their step, and the requester are refused; nothing changes."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    before = await state(engine)
    with pytest.raises(NotAllowed):
        await engine.counter(actor, req.id, 0, WED_THU)
    assert await state(engine) == before
    assert (await engine.get_request(req.id, "zhangsan")).counter is None


@pytest.mark.parametrize(
    ("dates", "error", "words"),
    [
        (Dates(date(2026, 12, 19), date(2026, 12, 20)), ValidationFailed, "no working day"),
        (Dates(date(2026, 12, 17), date(2026, 12, 16)), ValidationFailed, "before the first day"),
        (Dates(date(2026, 12, 14), date(2026, 12, 15)), ValidationFailed, "already asked for"),
        (Dates(date(2026, 12, 14), date(2026, 12, 31)), InsufficientBalance, "张三 has 10"),
        (Dates(date(2026, 12, 14), date(2026, 12, 17)), ValidationFailed, "who has to approve"),
        (Dates(date(2027, 12, 20), date(2027, 12, 21)), ValidationFailed, "at most 365 days"),
    ],
)
async def test_dates_that_fail_the_rules_are_refused(
    engine: Engine, dates: Dates, error: type[Exception], words: str
):
    """Weekend only, reversed, unchanged, beyond the balance, a different chain, too far ahead."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    before = await state(engine)
    with pytest.raises(error, match=words):
        await engine.counter("wangfang", req.id, 0, dates)
    assert await state(engine) == before


async def test_dates_over_the_requesters_other_leave_are_refused(engine: Engine):
    """Suggesting days the requester already has leave on names them, not 'you'."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    other = await submitted(
        engine, fields={"leave_type": "annual", "start": "2026-12-17", "end": "2026-12-17"}
    )
    with pytest.raises(OverlappingLeave, match=f"张三 already has leave.*{other.id}"):
        await engine.counter("wangfang", req.id, 0, WED_THU)


async def test_accept_rechecks_the_rules_at_the_time_of_the_click(engine: Engine):
    """Leave filed on the suggested days since: Accept is refused with the reason, nothing moves."""
    req = await _countered(engine)
    await submitted(
        engine, fields={"leave_type": "sick", "start": "2026-12-17", "end": "2026-12-17"}
    )
    before = await state(engine)
    with pytest.raises(OverlappingLeave, match="You already have"):
        await engine.answer_counter("zhangsan", req.id, accept=True)
    assert await state(engine) == before
    kept = await engine.get_request(req.id, "zhangsan")
    assert kept.counter is not None and kept.counter.status is CounterStatus.OPEN


async def test_a_suggestion_lapses_when_the_step_is_decided_first(engine: Engine):
    """The approver approves the original dates after all: Accept is refused, the dates stay."""
    req = await _countered(engine)
    approved = await engine.decide(req.id, 0, "wangfang", "approve")
    assert approved.counter is not None and approved.counter.status is CounterStatus.LAPSED
    before = await state(engine)
    with pytest.raises(InvalidState, match="no longer apply"):
        await engine.answer_counter("zhangsan", req.id, accept=True)
    assert await state(engine) == before


async def test_a_suggestion_lapses_when_the_request_is_withdrawn(engine: Engine):
    """Withdrawn before an answer: the suggestion cannot be accepted."""
    req = await _countered(engine)
    withdrawn = await engine.withdraw(req.id, "zhangsan")
    assert withdrawn.counter is not None and withdrawn.counter.status is CounterStatus.LAPSED
    with pytest.raises(InvalidState, match="no longer apply"):
        await engine.answer_counter("zhangsan", req.id, accept=True)


@pytest.mark.parametrize("actor", ["wangfang", "lisi", "liuyang"])
async def test_only_the_requester_answers_a_suggestion(engine: Engine, actor: str):
    """The approver, a colleague or HR cannot accept for the requester; nothing changes."""
    req = await _countered(engine)
    before = await state(engine)
    with pytest.raises(NotAllowed, match="Only 张三 can accept or decline"):
        await engine.answer_counter(actor, req.id, accept=True)
    assert await state(engine) == before


async def test_answering_with_no_suggestion_is_refused(engine: Engine):
    """Accept on a request nobody countered says so."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    with pytest.raises(InvalidState, match="Nobody has suggested other dates"):
        await engine.answer_counter("zhangsan", req.id, accept=True)


async def test_a_generic_request_has_no_dates_to_counter(engine: Engine):
    """An expense claim cannot be countered with dates."""
    req = await submitted(engine, fields=TEAM_LUNCH, process="expense")
    with pytest.raises(InvalidState, match="no dates to suggest"):
        await engine.counter("wangfang", req.id, 0, WED_THU)


async def test_the_chat_path_prepares_a_suggestion_for_the_approvers_click(engine: Engine):
    """prepare_counter checks everything first; confirm records it once."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    with pytest.raises(InsufficientBalance):
        await engine.prepare_counter(
            "wangfang", req.id, Dates(date(2026, 12, 14), date(2026, 12, 31))
        )
    with pytest.raises(NotAllowed):
        await engine.prepare_counter("lisi", req.id, WED_THU)
    proposal = await engine.prepare_counter("wangfang", req.id, WED_THU, "Wed–Thu?")
    assert (await engine.get_request(req.id, "zhangsan")).counter is None
    outcome = await engine.confirm(proposal.pending.id, "wangfang")
    assert outcome.request is not None and outcome.request.counter is not None
    assert outcome.request.counter.comment == "Wed–Thu?"
    again = await engine.confirm(proposal.pending.id, "wangfang")
    assert again.repeated
    assert [h.action for h in again.request.history].count("countered") == 1


async def test_a_six_day_sick_leave_can_be_countered_at_the_hr_step(engine: Engine):
    """HR, holding the second step, moves a six-day leave by a week; the chain stays the same."""
    req = await submitted(engine, fields=SICK_6_DAYS)
    await engine.decide(req.id, 0, "wangfang", "approve")
    later = Dates(date(2026, 12, 10), date(2026, 12, 17))
    countered = await engine.counter("liuyang", req.id, 1, later)
    assert countered.counter is not None and countered.counter.working_days == 6
    accepted = await engine.answer_counter("zhangsan", req.id, accept=True)
    assert accepted.current_step == 1 and accepted.steps[1].assignee == "liuyang"
    done = await engine.decide(req.id, 1, "liuyang", "approve")
    assert done.status is RequestStatus.APPROVED
    assert (done.fields["start"], done.fields["end"]) == ("2026-12-10", "2026-12-17")


@pytest.mark.redis
async def test_accept_and_approve_racing_on_real_redis_leave_one_consistent_outcome(
    config: OrgConfig, clock: FixedClock
):
    """Replicas: the requester's Accept and the approver's Approve of the old dates race; one wins whole."""
    clients = [await open_real_redis() for _ in range(4)]
    try:
        engines = [Engine(config, c, clock) for c in clients]
        for _ in range(3):
            req = await _countered(engines[0])
            calls = [
                engines[1].answer_counter("zhangsan", req.id, accept=True),
                engines[2].decide(req.id, 0, "wangfang", "approve"),
                engines[3].answer_counter("zhangsan", req.id, accept=True),
            ]
            results = await asyncio.gather(*calls, return_exceptions=True)
            unexpected = [
                r
                for r in results
                if isinstance(r, BaseException) and not isinstance(r, InvalidState)
            ]
            assert unexpected == []
            final = await engines[0].get_request(req.id, "zhangsan")
            assert final.status is RequestStatus.APPROVED and final.counter is not None
            if final.counter.status is CounterStatus.LAPSED:  # the approval came first
                assert final.fields["start"] == "2026-12-14"
            else:  # accepted first, then approved on the new dates
                assert final.counter.status is CounterStatus.ACCEPTED
                assert final.fields["start"] == "2026-12-16"
            actions = [h.action for h in final.history]
            assert actions.count("counter_accepted") <= 1 and actions.count("approved") == 2
            annual = _annual(await engines[0].balances("zhangsan", 2026))
            assert (annual.reserved, annual.used) == (0, 2)
            assert len(await _calendar(engines[0])) == 1
            await delete_org(clients[0], config.organisation.id)  # the next round starts afresh
    finally:
        await delete_org(clients[0], config.organisation.id)
        for c in clients:
            await c.aclose()
