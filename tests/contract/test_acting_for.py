"""Acting for someone on every surface: HR files 张三's sick leave; everyone sees who acted.

HR's confirm card says whose leave it is; 张三 is told by DM, in Chinese, that HR filed it;
王芳's approver card says it was filed by HR on 张三's behalf; a colleague who tries the same
is refused with the engine's sentence and nothing is drafted.
"""

from __future__ import annotations

import pytest

from agent.testing import ScriptedModel, call, reply
from tests.contract.conftest import SURFACES
from tests.contract.surfaces import APPROVE, CONFIRM, live
from tests.contract.test_contract import approver_card
from workflow.models import RequestStatus

SICK_FOR_ZHANGSAN = call(
    "propose_leave",
    leave_type="sick",
    start="2026-12-07",
    end="2026-12-09",
    reason="flu",
    for_person="zhangsan",
)


@pytest.mark.parametrize("name", SURFACES)
async def test_hr_files_leave_for_someone_and_every_participant_sees_who_acted(surfaces, name):
    """刘洋 (HR) files three days for 张三; 张三's chain decides; the record names 刘洋."""
    model = ScriptedModel([SICK_FOR_ZHANGSAN, reply("已代张三准备好病假申请。")])
    s = await surfaces(name, model)
    thread = await s.say("liuyang", "帮张三请下周一起三天病假")
    [card] = live(s.cards("liuyang"), CONFIRM, thread)
    assert "张三" in card.text
    if name != "terminal":  # the terminal shows the draft's summary line
        assert "代办对象" in card.text
    else:
        assert "代张三提交" in card.text
    await s.click("liuyang", card, CONFIRM)
    [req] = await s.engine.my_requests("zhangsan")
    assert (req.requester, req.filed_by, req.status) == (
        "zhangsan",
        "liuyang",
        RequestStatus.PENDING,
    )
    assert [(h.actor, h.action) for h in req.history] == [
        ("liuyang", "drafted"),
        ("liuyang", "submitted"),
    ]
    assert await s.engine.my_requests("liuyang") == []
    if name == "terminal":  # no DMs or approver cards in the terminal: /pending lists it
        return
    told = s.transcript("zhangsan")
    assert "人事（刘洋）已代你提交此申请" in told
    approver = await approver_card(s, "wangfang", req.id)
    assert "刘洋（人事）代张三提交" in approver.text
    await s.click("wangfang", approver, APPROVE)
    assert (await s.engine.get_request(req.id, "zhangsan")).status is RequestStatus.APPROVED


@pytest.mark.parametrize("name", SURFACES)
async def test_a_colleague_cannot_file_for_someone(surfaces, name):
    """李四 tries the same: the engine's sentence, no card to click, nothing stored."""
    model = ScriptedModel([SICK_FOR_ZHANGSAN, reply("只有人事可以代他人请假。")])
    s = await surfaces(name, model)
    thread = await s.say("lisi", "帮张三请下周一起三天病假")
    assert live(s.cards("lisi"), CONFIRM, thread) == []
    assert await s.engine.my_requests("zhangsan") == []
    assert "只有人事可以" in s.transcript("lisi")


@pytest.mark.parametrize("name", ["slack", "feishu"])
async def test_hr_withdraws_for_someone_and_they_are_told(surfaces, name):
    """刘洋 withdraws 张三's request; 张三 hears it from the bot, in Chinese."""
    s = await surfaces(name)
    proposal = await s.engine.prepare_submit(
        "zhangsan", "leave", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )
    req = (await s.engine.confirm(proposal.pending.id, "zhangsan")).request
    await s.settle()
    await s.engine.withdraw(req.id, "liuyang")
    await s.settle()
    assert "人事（刘洋）已代你撤回此申请" in s.transcript("zhangsan")
