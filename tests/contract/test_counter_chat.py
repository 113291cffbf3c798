"""Counter-offers and acting for someone in chat, through the offline planner, on every surface.

王芳 writes "让他改到周二到周四再批": her card asks her to confirm the suggestion; her click sends
张三 his [Accept] [Decline] card. Emma does the same in English. HR writes "file 3 days of sick
leave for 张三 from Monday" and gets 张三's draft; a colleague is refused and nothing is drafted.
"""

from __future__ import annotations

import pytest

from tests.contract.conftest import SURFACES
from tests.contract.surfaces import CONFIRM, Surface, live
from tests.contract.test_counter_offer import answer, offer_seen
from tests.helpers import state
from workflow.models import CounterStatus, RequestStatus

ZS_ASKED = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}  # Mon–Tue
PR_ASKED = {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"}  # Mon–Tue


async def _submitted(s: Surface, person: str, fields: dict) -> str:
    proposal = await s.engine.prepare_submit(person, "leave", fields)
    req = (await s.engine.confirm(proposal.pending.id, person)).request
    await s.settle()
    return req.id


async def _countered_by_chat(s: Surface, approver: str, said: str, request_id: str) -> str:
    """The approver writes `said`; returns their confirm card's text, after clicking it."""
    thread = await s.say(approver, said)
    [card] = live(s.cards(approver), CONFIRM, thread)
    assert (
        await s.engine.get_request(request_id, approver)
    ).counter is None  # not before the click
    await s.click(approver, card, CONFIRM)
    await s.settle()
    return card.text


@pytest.mark.parametrize("name", SURFACES)
async def test_an_approver_counters_in_chinese_chat(surfaces, name):
    """王芳: 让他改到周二到周四再批 → her confirm card; her click; 张三 sees and accepts Tue–Thu."""
    s = await surfaces(name)
    rid = await _submitted(s, "zhangsan", ZS_ASKED)
    shown = await _countered_by_chat(s, "wangfang", "让他改到周二到周四再批", rid)
    assert "张三" in shown and "12月17日" in shown
    req = await s.engine.get_request(rid, "zhangsan")
    c = req.counter
    assert c is not None and c.status is CounterStatus.OPEN and c.by == "wangfang"
    assert (str(c.start), str(c.end), c.working_days) == ("2026-12-15", "2026-12-17", 3)
    assert (req.fields["start"], req.fields["end"]) == ("2026-12-14", "2026-12-15")
    assert [h.action for h in req.history][-1] == "countered"
    seen = offer_seen(s) or await answer(s, rid, accept=True)  # the terminal shows it on /offers
    for words in ("12月15日", "12月17日", "剩余 7 天"):
        assert words in seen, words
    if name != "terminal":
        assert "王芳 建议你的申请改期" in seen
        await answer(s, rid, accept=True)
    moved = await s.engine.get_request(rid, "zhangsan")
    assert (moved.fields["start"], moved.fields["end"], moved.status) == (
        "2026-12-15",
        "2026-12-17",
        RequestStatus.PENDING,
    )
    assert moved.steps[0].assignee == "wangfang"  # she decides the new dates in one click


@pytest.mark.parametrize("name", ["slack", "feishu"])
async def test_an_approver_counters_in_english_chat(surfaces, name):
    """Emma: 'approve it if she moves it to Tue–Thu' → Priya's card shows Tue 22 – Thu 24 Dec."""
    s = await surfaces(name)
    rid = await _submitted(s, "priya", PR_ASKED)
    shown = await _countered_by_chat(s, "emma", "approve it if she moves it to Tue–Thu", rid)
    assert "Priya Patel" in shown and "Send suggestion" in shown
    c = (await s.engine.get_request(rid, "priya")).counter
    assert c is not None and (str(c.start), str(c.end)) == ("2026-12-22", "2026-12-24")
    seen = s.transcript("priya")
    assert "Emma Clarke suggests other dates for your request." in seen
    assert "Balance after" in seen and "24 Dec" in seen


@pytest.mark.parametrize("name", SURFACES)
async def test_a_counter_on_a_finished_request_changes_nothing(surfaces, name):
    """Once 王芳 has approved, "让他改到周二到周四再批" gets a sentence, no card, no change."""
    s = await surfaces(name)
    rid = await _submitted(s, "zhangsan", ZS_ASKED)
    await s.engine.decide(rid, 0, "wangfang", "approve")
    await s.settle()
    before = await state(s.engine)
    thread = await s.say("wangfang", "让他改到周二到周四再批")
    assert live(s.cards("wangfang"), CONFIRM, thread) == []
    assert "没有" in s.transcript("wangfang")  # nothing waits for her decision
    assert await state(s.engine) == before
    assert (await s.engine.get_request(rid, "zhangsan")).counter is None


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(
    ("said", "lang"),
    [("file 3 days of sick leave for 张三 from Monday", "en"), ("帮张三请下周一起三天病假", "zh")],
)
async def test_hr_files_for_someone_through_the_planner(surfaces, name, said, lang):
    """刘洋 (HR) asks the offline planner; the draft is 张三's; the click files it for him."""
    s = await surfaces(name)
    thread = await s.say("liuyang", said)
    [card] = live(s.cards("liuyang"), CONFIRM, thread)
    assert "张三" in card.text
    await s.click("liuyang", card, CONFIRM)
    await s.settle()
    [req] = await s.engine.my_requests("zhangsan")
    assert (req.requester, req.filed_by, req.status) == (
        "zhangsan",
        "liuyang",
        RequestStatus.PENDING,
    )
    assert (req.fields["leave_type"], req.fields["start"], req.fields["end"]) == (
        "sick",
        "2026-12-07",
        "2026-12-09",
    )
    assert await s.engine.my_requests("liuyang") == []
    if name != "terminal":
        assert "人事（刘洋）已代你提交此申请" in s.transcript("zhangsan")


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(
    ("person", "said", "who"),
    [
        ("lisi", "帮张三请下周一起三天病假", "人事"),
        ("emma", "file 3 days of sick leave for Oliver from Monday", "HR"),
    ],
)
async def test_nobody_but_hr_files_for_someone_through_the_planner(
    surfaces, name, person, said, who
):
    """A colleague or a manager is told only HR can; no card, nothing stored."""
    s = await surfaces(name)
    before = await state(s.engine, "zhangsan", "oliver", person)
    thread = await s.say(person, said)
    assert live(s.cards(person), CONFIRM, thread) == []
    assert who in s.transcript(person)
    assert await state(s.engine, "zhangsan", "oliver", person) == before


@pytest.mark.parametrize("name", SURFACES)
async def test_hr_cannot_file_what_only_hr_would_approve(surfaces, name):
    """Five days for 张三 need an HR step, and 刘洋 is the only HR: the engine's sentence, no card."""
    s = await surfaces(name)
    before = await state(s.engine)
    thread = await s.say("liuyang", "帮张三请下周一到周五病假")
    assert live(s.cards("liuyang"), CONFIRM, thread) == []
    assert "不能再审批" in s.transcript("liuyang")
    assert await state(s.engine) == before
