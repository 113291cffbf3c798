"""Separation of duties: HR who files a request for someone never decides it.

The chain routes a step that would be the filer's to another holder of the role (or the next
manager up), else to someone with the `admin` role; with nobody else the draft is refused with
a sentence and nothing is stored. The engine refuses the filer's decision whatever the routing.
"""

from __future__ import annotations

from datetime import date

import pytest
import redis.asyncio as aioredis

from tests.helpers import state
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.errors import SeparationOfDuties
from workflow.models import RequestStatus

# five working days: the leave chain adds the HR step past three
SICK_5_DAYS = {"leave_type": "sick", "start": "2026-12-07", "end": "2026-12-11", "reason": "flu"}
SICK_3_DAYS = {"leave_type": "sick", "start": "2026-12-07", "end": "2026-12-09", "reason": "flu"}


def _with_roles(config: OrgConfig, **roles: tuple[str, ...]) -> OrgConfig:
    people = tuple(
        p.model_copy(update={"roles": roles[p.id]}) if p.id in roles else p for p in config.people
    )
    return config.model_copy(update={"people": people})


async def _filed(engine: Engine, fields: dict) -> object:
    proposal = await engine.prepare_submit("liuyang", "leave", fields, on_behalf_of="zhangsan")
    return (await engine.confirm(proposal.pending.id, "liuyang")).request


async def test_the_only_hr_cannot_file_what_only_they_would_approve(engine: Engine):
    """刘洋 is the only HR and there is no admin: the draft is refused plainly, nothing stored."""
    before = await state(engine)
    with pytest.raises(SeparationOfDuties) as e:
        await engine.prepare_submit("liuyang", "leave", SICK_5_DAYS, on_behalf_of="zhangsan")
    assert "刘洋 filed this leave for 张三, so 刘洋 cannot also approve its HR step" in str(e.value)
    assert "nothing changed" in str(e.value) and "'admin'" in str(e.value)
    zh = e.value.localized("zh")
    assert "刘洋代张三提交此请假，不能再审批其「人事」步骤" in zh
    assert "未做任何更改" in zh
    assert await state(engine) == before


async def test_a_second_hr_holds_the_step_hr_filed(
    config: OrgConfig, redis: aioredis.Redis, clock: FixedClock
):
    """With Emma also HR, the HR step of 刘洋's filing goes to Emma, and Emma decides it."""
    engine = Engine(_with_roles(config, emma=("hr",)), redis, clock)
    req = await _filed(engine, SICK_5_DAYS)
    assert [s.approver for s in req.steps] == ["wangfang", "emma"]
    req = await engine.decide(req.id, 0, "wangfang", "approve")
    with pytest.raises(SeparationOfDuties, match="You filed request"):
        await engine.decide(req.id, 1, "liuyang", "approve")
    req = await engine.decide(req.id, 1, "emma", "approve")
    assert req.status is RequestStatus.APPROVED


async def test_an_admin_holds_the_step_when_no_other_hr(
    config: OrgConfig, redis: aioredis.Redis, clock: FixedClock
):
    """With Sarah an admin and 刘洋 the only HR, the HR step goes to Sarah."""
    engine = Engine(_with_roles(config, sarah=("finance", "admin")), redis, clock)
    req = await _filed(engine, SICK_5_DAYS)
    assert [s.approver for s in req.steps] == ["wangfang", "sarah"]


async def test_a_delegation_to_the_filer_does_not_route_the_step_to_them(engine: Engine):
    """王芳 delegates to 刘洋, who files 张三's leave: the step stays 王芳's; 刘洋 is refused."""
    await engine.set_delegation("wangfang", "liuyang", date(2026, 12, 1), date(2026, 12, 9))
    req = await _filed(engine, SICK_3_DAYS)
    assert req.steps[0].assignee == "wangfang"
    before = await state(engine)
    with pytest.raises(SeparationOfDuties) as e:
        await engine.decide(req.id, 0, "liuyang", "approve")
    assert f"You filed request {req.id} for 张三" in str(e.value)
    assert "未做任何更改" in e.value.localized("zh")
    with pytest.raises(SeparationOfDuties):
        await engine.prepare_decision("liuyang", req.id, "approve")
    assert await state(engine) == before
    assert (await engine.get_request(req.id, "zhangsan")).status is RequestStatus.PENDING
