"""Bulk decisions on every surface: the morning digest's ticks and [Approve selected].

王芳 has three requests waiting; 李四 withdraws his after the digest went out. She ticks all
three and approves them with one confirm: two are approved, the withdrawn one is refused with
its sentence and left as it was, and she gets one summary. The Slack Home tab does the same.
"""

from __future__ import annotations

import json

import pytest

from bot.conversation import buttons
from tests.contract.conftest import SURFACES
from tests.contract.surfaces import FeishuSurface, SlackSurface, Surface, TerminalSurface
from workflow.models import RequestStatus

ASKED = {
    "zhangsan": {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"},
    "lisi": {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"},
    "chenjing": {"leave_type": "annual", "start": "2026-12-23", "end": "2026-12-23"},
}


async def _three_waiting(s: Surface) -> dict[str, str]:
    ids = {}
    for person, fields in ASKED.items():
        proposal = await s.engine.prepare_submit(person, "leave", fields)
        ids[person] = (await s.engine.confirm(proposal.pending.id, person)).request.id
    # the scheduler's morning digest, as it queues it
    await s.engine.store.redis.xadd(
        s.engine.keys.outbox,
        {
            "type": "daily_digest",
            "request_id": "",
            "org": s.engine.keys.org,
            "at": "2026-12-02T09:00:00+08:00",
            "data": json.dumps(
                {"person": "wangfang", "count": 3, "request_ids": list(ids.values())}
            ),
        },
    )
    await s.settle()
    return ids


async def approve_ticked(s: Surface, ids: list[str]) -> str:
    """王芳 ticks these on her digest and clicks [Approve selected]; returns what she is told."""
    values = [f"{i}:0" for i in ids]
    if isinstance(s, SlackSurface):
        user = s.engine.person("wangfang").slack_user_id or ""
        [digest] = [
            m
            for m in s.h.dm_messages(user)
            if buttons.BULK_APPROVE in json.dumps(m.get("blocks") or [])
        ]
        ticked = {"type": "checkboxes", "selected_options": [{"value": v} for v in values]}
        state = {buttons.BULK_ITEMS: {buttons.BULK_ITEMS: ticked}}
        resp = await s.h.sim.click(user, digest, buttons.BULK_APPROVE, state=state)
        assert resp.status == 200
        await s.settle()
        now = s.h.standin.workspace.message(digest["channel"], digest["ts"])
        return json.dumps(now.get("blocks"), ensure_ascii=False) + s.transcript("wangfang")
    if isinstance(s, FeishuSurface):
        open_id = s.engine.person("wangfang").feishu_open_id or ""
        [*_, digest] = s.h.with_button(open_id, buttons.BULK_APPROVE)
        _, answer = await s.h.sim.click(
            open_id,
            digest.message_id,
            buttons.BULK_APPROVE,
            form_value={buttons.BULK_ITEMS: values},
        )
        await s.settle()
        return (answer.get("toast") or {}).get("content", "") + json.dumps(
            answer.get("card"), ensure_ascii=False
        )
    assert isinstance(s, TerminalSurface)
    me = s._person("wangfang")
    mark = len(me.out.getvalue())
    me.answers.append("y")
    await me.session.handle("/approve " + " ".join(ids))
    return me.out.getvalue()[mark:]


@pytest.mark.parametrize("name", SURFACES)
async def test_approve_selected_decides_each_and_says_what_happened(surfaces, name):
    """Two approved, the withdrawn one refused with its sentence; one summary in Chinese."""
    s = await surfaces(name)
    ids = await _three_waiting(s)
    if name != "terminal":
        digest = s.transcript("wangfang")
        assert "批准所选" in digest and "张三" in digest and "李四" in digest
        # what to do next is true where she reads it: Feishu has no Home tab ("主页")
        assert "可在各自的审批卡片上处理，或直接问我。" in digest and "主页" not in digest
        assert "张三：年假，" in digest and "张三: " not in digest  # a Chinese colon
    await s.engine.withdraw(ids["lisi"], "lisi")
    await s.settle()
    said = await approve_ticked(s, list(ids.values()))
    assert "已批准 2/3 项" in said, said
    # the refused one named as 王芳 knows it — whose, what, when — not by its id
    assert "未批准：李四：年假，" in said and "12月21日" in said and "撤回" in said, said
    assert f"未批准：{ids['lisi']}" not in said
    for person in ("zhangsan", "chenjing"):
        req = await s.engine.get_request(ids[person], person)
        assert req.status is RequestStatus.APPROVED and req.steps[0].decided_by == "wangfang"
    withdrawn = await s.engine.get_request(ids["lisi"], "lisi")
    assert withdrawn.status is RequestStatus.WITHDRAWN and withdrawn.steps[0].decided_by is None
    assert (await s.engine.my_approvals("wangfang")).requests == []


@pytest.mark.parametrize("name", SURFACES)
async def test_nothing_ticked_decides_nothing(surfaces, name):
    """[Approve selected] with no tick: the sentence, nothing decided."""
    s = await surfaces(name)
    ids = await _three_waiting(s)
    said = await approve_ticked(s, [])
    if name != "terminal":
        assert "请至少选择一个申请" in said
    assert len((await s.engine.my_approvals("wangfang")).requests) == len(ids)


async def test_the_slack_home_tab_approves_selected_items(surfaces):
    """The Home tab lists the items with ticks; [Approve selected] approves the ticked ones."""
    s = await surfaces("slack")
    ids = await _three_waiting(s)
    user = s.engine.person("wangfang").slack_user_id or ""
    person = s.engine.person("wangfang")
    await s.h.bot.publish_home(user, person)
    [*_, published] = s.h.standin.calls("views.publish")
    view = published["view"]
    assert buttons.BULK_APPROVE in json.dumps(view)
    chosen = [f"{ids['zhangsan']}:0", f"{ids['chenjing']}:0"]
    ticked = {"type": "checkboxes", "selected_options": [{"value": v} for v in chosen]}
    values = {buttons.BULK_ITEMS: {buttons.BULK_ITEMS: ticked}}
    resp = await s.h.sim.click_in_view(
        user, {**view, "type": "home"}, buttons.BULK_APPROVE, values=values
    )
    assert resp.status == 200
    await s.settle()
    assert "已批准 2/2 项" in s.transcript("wangfang")
    assert [r.id for r in (await s.engine.my_approvals("wangfang")).requests] == [ids["lisi"]]
