"""Bulk decisions: each item is decided by the engine on its own; a refusal does not stop the rest."""

from __future__ import annotations

import pytest

from tests.helpers import ANNUAL_2_DAYS, state, submitted
from workflow.bulk import MAX_ITEMS, Item
from workflow.engine import Engine
from workflow.errors import InvalidState, NotAllowed, ValidationFailed
from workflow.models import RequestStatus

LISI_2_DAYS = {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"}
CHENJING_1_DAY = {"leave_type": "annual", "start": "2026-12-23", "end": "2026-12-23"}


async def _three(engine: Engine):
    return [
        await submitted(engine, "zhangsan", ANNUAL_2_DAYS),
        await submitted(engine, "lisi", LISI_2_DAYS),
        await submitted(engine, "chenjing", CHENJING_1_DAY),
    ]


async def test_approve_selected_decides_each_and_reports_each(engine: Engine):
    """Three open items approved in one go: three outcomes, three approved requests."""
    reqs = await _three(engine)
    outcomes = await engine.decide_many("wangfang", [Item(r.id, 0) for r in reqs])
    assert [o.ok for o in outcomes] == [True, True, True]
    assert [o.item.request_id for o in outcomes] == [r.id for r in reqs]
    for r in reqs:
        done = await engine.get_request(r.id, "wangfang")
        assert done.status is RequestStatus.APPROVED and done.steps[0].decided_by == "wangfang"
    assert (await engine.my_approvals("wangfang")).requests == []


async def test_an_item_no_longer_the_approvers_is_refused_and_the_rest_go_through(engine: Engine):
    """One withdrawn since the digest was sent: it is refused with a sentence and left as it is."""
    reqs = await _three(engine)
    await engine.withdraw(reqs[1].id, "lisi")
    outcomes = await engine.decide_many("wangfang", [Item(r.id, 0) for r in reqs])
    assert [o.ok for o in outcomes] == [True, False, True]
    refused = outcomes[1].error
    assert isinstance(refused, InvalidState) and "withdrawn" in refused.message
    assert outcomes[1].request is None
    withdrawn = await engine.get_request(reqs[1].id, "lisi")
    assert withdrawn.status is RequestStatus.WITHDRAWN and withdrawn.steps[0].decided_by is None
    assert (await engine.get_request(reqs[2].id, "chenjing")).status is RequestStatus.APPROVED


async def test_an_item_of_someone_elses_team_is_refused(engine: Engine):
    """Emma cannot approve 王芳's items by listing them; her own goes through."""
    mine = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )
    theirs = await submitted(engine, "zhangsan", ANNUAL_2_DAYS)
    outcomes = await engine.decide_many("emma", [Item(theirs.id, 0), Item(mine.id, 0)])
    assert isinstance(outcomes[0].error, NotAllowed) and outcomes[1].ok
    assert (await engine.get_request(theirs.id, "zhangsan")).status is RequestStatus.PENDING


async def test_an_item_decided_by_someone_else_in_the_meantime_is_refused(engine: Engine):
    """Rejected from its card in the meantime: approving it is refused, saying so; the rest go through."""
    reqs = await _three(engine)
    await engine.decide(reqs[0].id, 0, "wangfang", "reject", "no cover that week")
    outcomes = await engine.decide_many("wangfang", [Item(r.id, 0) for r in reqs])
    assert isinstance(outcomes[0].error, InvalidState)
    assert "already rejected by 王芳" in outcomes[0].error.message
    assert [o.ok for o in outcomes[1:]] == [True, True]


async def test_a_repeated_bulk_click_records_each_decision_once(engine: Engine):
    """The same batch twice (a double click): the second finds them decided by the same person."""
    reqs = await _three(engine)
    items = [Item(r.id, 0) for r in reqs]
    await engine.decide_many("wangfang", items)
    before = await state(engine, "zhangsan", "lisi", "chenjing", "wangfang")
    again = await engine.decide_many("wangfang", items)
    assert [o.ok for o in again] == [True, True, True]
    assert await state(engine, "zhangsan", "lisi", "chenjing", "wangfang") == before


async def test_bulk_reject_needs_a_reason_for_each(engine: Engine):
    """Rejecting selected items without a reason is refused per item; nothing changes."""
    reqs = await _three(engine)
    before = await state(engine)
    outcomes = await engine.decide_many("wangfang", [Item(r.id, 0) for r in reqs], "reject")
    assert all(isinstance(o.error, ValidationFailed) for o in outcomes)
    assert await state(engine) == before


async def test_an_empty_or_oversized_batch_is_refused(engine: Engine):
    """Nothing selected, or more than a confirm may cover: a sentence, nothing decided."""
    with pytest.raises(ValidationFailed, match="Select at least one"):
        await engine.decide_many("wangfang", [])
    with pytest.raises(ValidationFailed, match=f"At most {MAX_ITEMS}"):
        await engine.decide_many("wangfang", [Item(f"R-{i}", 0) for i in range(MAX_ITEMS + 1)])


async def test_the_same_item_twice_in_a_batch_is_decided_once(engine: Engine):
    """Duplicates collapse: one outcome per item."""
    [req, *_] = await _three(engine)
    outcomes = await engine.decide_many("wangfang", [Item(req.id, 0), Item(req.id, 0)])
    assert len(outcomes) == 1 and outcomes[0].ok
