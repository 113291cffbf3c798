"""One contract, every surface: the same scenarios on Slack, Feishu and the terminal chat.

Each scenario ends by asserting what every participant sees: each card in its final state,
no live button on a request that can no longer take that action, the outcome in words.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from agent.testing import ScriptedModel, call, reply
from tests.contract.checks import other_language, typed_by_people, unzoned_times, zone_names
from tests.contract.conftest import SURFACES
from tests.contract.surfaces import APPROVE, CANCEL, CONFIRM, REJECT, Seen, Surface, live
from workflow.models import RequestStatus
from workflow.scheduler import Scheduler

REPLACED = {"en": "Replaced by the card below", "zh": "已被下方的新卡片取代"}
WAITING = (
    "waiting",
    "pending",
    "Submitted —",
    "审批中",
    "等待",
    "待 ",
    "still decide",
    "仍可以审批",
)


def reads_right(s: Surface, people: tuple[str, ...], typed: tuple[str, ...] = ()) -> None:
    """Every message each person reads is in their language, and its clock times name their zone.

    `typed`: what people wrote that a card shows as written (reasons, comments, notes).
    """
    literals, zones = typed_by_people(s.engine, typed), zone_names(s.engine)
    wrong = []
    for person in people:
        locale = s.engine.person(person).locale
        for message in s.messages(person):
            if found := other_language(message, locale, literals):
                wrong.append((person, locale, "language", found, message))
            if found := unzoned_times(message, zones):
                wrong.append((person, locale, "time", found, message))
    assert not wrong, "\n\n".join(map(repr, wrong))


def says_waiting(card: Seen) -> list[str]:
    """The words on a card that say the request still waits for someone (or for its reader)."""
    return [w for w in WAITING if w in card.text]


def none_waits(s: Surface, *people: str) -> None:
    """On a finished request, no card of anyone's says it still waits: notices included."""
    for person in people:
        for card in s.cards(person):
            assert not says_waiting(card), (person, says_waiting(card), card.text)


async def approver_card(s: Surface, person: str, request_id: str) -> Seen:
    if s.name == "terminal":
        return s.approver_card(request_id)  # type: ignore[attr-defined]
    [card] = [c for c in live(s.cards(person), APPROVE) if c.about == request_id]
    return card


async def submit(s: Surface, person: str, text: str) -> str:
    """The person asks, and clicks Submit on the one live card of that thread."""
    thread = await s.say(person, text)
    said = [m for m in s.messages(person) if "Prepared" in m or "已准备" in m]
    assert len(said) == 1, said  # the answer says it; the steps and the card do not repeat it
    [card] = live(s.cards(person), CONFIRM, thread)
    await s.click(person, card, CONFIRM)
    [req] = await s.engine.my_requests(person, limit=1)
    assert req.status is RequestStatus.PENDING
    return req.id


async def confirm_with(s: Surface, person: str, text: str, button: str) -> None:
    """The person asks; the card names its own button (never Submit); they click it."""
    seen = s.messages(person)
    thread = await s.say(person, text)
    said = "\n".join(m for m in s.messages(person) if m not in seen)
    assert f"click {button}." in said and not re.search(r"\bSubmit\b", said), said
    [card] = live(s.cards(person), CONFIRM, thread)
    await s.click(person, card, CONFIRM)
    nothing_says_to_click(s, person)


def nothing_says_to_click(s: Surface, person: str) -> None:
    """Once every card is clicked, nothing the person reads still tells them to click one.

    The terminal's printed card is scrollback, with its prompt answered right under it: there,
    the bot's answers (every line but the card's box) are what must not ask for a click.
    """
    if s.name == "terminal":
        read = [m for m in s.messages(person) if not m.lstrip().startswith(("┌", "│", "└"))]
    else:
        read = s.messages(person)
    stale = [m for m in read if re.search(r"(?i)\bclick\b|点击", m)]
    assert not stale, stale


def no_live_buttons(s: Surface, *people: str) -> None:
    """Nothing anyone can still click about a finished request."""
    for person in people:
        stale = [c for c in s.cards(person) if c.actions & {CONFIRM, APPROVE, REJECT, CANCEL}]
        assert not stale, (person, [c.text for c in stale])


@pytest.mark.parametrize("name", SURFACES)
async def test_a_two_step_approval_leaves_every_card_true(surfaces, name):
    """Priya's five days go to Emma, then to 刘洋 (HR); at the end every card says approved."""
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 7 Dec to 11 Dec")
    await s.click("emma", await approver_card(s, "emma", rid), APPROVE)
    await s.click("liuyang", await approver_card(s, "liuyang", rid), APPROVE)
    req = await s.engine.get_request(rid, "priya")
    assert req.status is RequestStatus.APPROVED
    no_live_buttons(s, "priya", "emma", "liuyang")
    reads_right(s, ("priya", "emma", "liuyang"))
    if name == "terminal":
        assert "已批准" in s.transcript("liuyang")
        return
    none_waits(s, "priya", "emma", "liuyang")
    [thread_card] = [
        c for c in s.cards("priya") if "Approved by 刘洋" in c.text and "Confirmed" in c.text
    ]
    assert "Approved by Emma Clarke" in thread_card.text
    # one instant, one zone per reader: not "submitted 07:57" beside "approved 15:58"
    for person, at in (("priya", "09:00 (London time)"), ("liuyang", "17:00（北京时间）")):
        for card in s.cards(person):
            assert set(re.findall(r"\d\d:\d\d ?[(（][^)）]+[)）]", card.text)) <= {at}, card.text
    # the first notices ("went to Emma Clarke", "Emma approved step 1… Next: 刘洋"), redrawn,
    # head with where the request is now: none still claims it waits for someone
    notices = [c.text for c in s.cards("priya") if "Leave request · Priya Patel" in c.text]
    assert len(notices) == 3, notices
    assert not [t for t in notices if "went to" in t or "Next:" in t], notices
    assert sum("Your request is approved." in t for t in notices) == 1, notices
    assert sum("Approved by Emma Clarke" in t and "刘洋" in t for t in notices) == 2, notices


@pytest.mark.parametrize("name", SURFACES)
async def test_a_rejection_with_a_reason(surfaces, name):
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 7 Dec to 9 Dec")
    await s.click("emma", await approver_card(s, "emma", rid), REJECT, reason="Quarter-end demos")
    req = await s.engine.get_request(rid, "priya")
    assert req.status is RequestStatus.REJECTED and req.steps[0].comment == "Quarter-end demos"
    no_live_buttons(s, "priya", "emma")
    reads_right(s, ("priya", "emma"), typed=("Quarter-end demos",))
    if name == "terminal":
        return
    assert "Quarter-end demos" in s.transcript("priya")
    assert any("Rejected by Emma Clarke" in c.text for c in s.cards("priya"))
    none_waits(s, "priya", "emma")


@pytest.mark.parametrize("name", SURFACES)
async def test_a_withdrawal(surfaces, name):
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 7 Dec to 9 Dec")
    await confirm_with(s, "priya", f"please withdraw {rid}", "Withdraw")
    assert (await s.engine.get_request(rid, "priya")).status is RequestStatus.WITHDRAWN
    no_live_buttons(s, "priya", "emma")
    reads_right(s, ("priya", "emma"))
    if name == "terminal":
        return
    none_waits(s, "priya", "emma")
    assert any("Withdrawn" in c.text for c in s.cards("emma"))


@pytest.mark.parametrize("name", SURFACES)
async def test_a_delegation_confirm(surfaces, name):
    """The regression: Feishu answered HTTP 500 and the terminal crashed on a delegation's confirm."""
    model = ScriptedModel(
        [
            call(
                "propose_delegation", delegate="Emma Clarke", start="2026-12-07", end="2026-12-11"
            ),
            reply("Prepared: Emma decides your approvals next week."),
        ]
    )
    s = await surfaces(name, model)
    thread = await s.say("david", "let Emma decide my approvals next week")
    [card] = live(s.cards("david"), CONFIRM, thread)
    answer = await s.click("david", card, CONFIRM)
    assert "Emma Clarke" in answer and "Delegated" in answer
    [d] = await s.engine.delegations()
    assert (d.person, d.delegate, str(d.start), str(d.end)) == (
        "david",
        "emma",
        "2026-12-07",
        "2026-12-11",
    )
    no_live_buttons(s, "david")
    reads_right(s, ("david",))


@pytest.mark.parametrize("name", SURFACES)
async def test_a_correction_supersedes_the_draft(surfaces, name):
    """A second draft in the thread replaces the first: its card says so, its Submit is refused."""
    s = await surfaces(name)
    thread = await s.say("priya", "annual leave from 7 Dec to 9 Dec")
    [first] = live(s.cards("priya"), CONFIRM, thread)
    await s.say("priya", "sorry, make it annual leave from 14 Dec to 16 Dec", thread)
    [second] = live(s.cards("priya"), CONFIRM, thread)
    assert "14 Dec" in second.text
    if name != "terminal":
        [old] = [c for c in s.cards("priya") if REPLACED["en"] in c.text]
        assert not old.actions
        assert "Replaced" in old.text and "Cancelled" not in old.text, old.text  # not cancelled
        # what it was, as a confirmed card says it; not the answer above it again, whose
        # "you will have N days left" the replacement made untrue
        assert "Annual leave, Mon 7 Dec 2026 – Wed 9 Dec 2026 (3 working days)" in old.text
        assert "Prepared" not in old.text and "days left" not in old.text, old.text
    else:  # the terminal prints the old card again as the core redrew it, with no buttons,
        # above the new card, which "Replaced by the card below" then truly points at
        after = s.transcript("priya").split("┌─ Replaced\n", 1)[1]
        redrawn, _, below = after.partition("┌─")
        assert "7 Dec" in redrawn and REPLACED["en"] in redrawn, redrawn
        assert "[" not in redrawn and "Cancelled" not in redrawn, redrawn
        assert "Annual leave, Mon 7 Dec 2026 – Wed 9 Dec 2026 (3 working days)" in redrawn
        assert "Prepared" not in redrawn and "days left" not in redrawn, redrawn
        assert "14 Dec" in below.split("bot> ", 1)[0], below
    answer = await s.click("priya", first, CONFIRM)
    assert REPLACED["en"] in answer
    assert await s.engine.my_requests("priya") == []
    await s.click("priya", second, CONFIRM)
    [req] = await s.engine.my_requests("priya")
    assert req.fields["start"] == "2026-12-14"
    no_live_buttons(s, "priya")
    reads_right(s, ("priya",))


@pytest.mark.parametrize("name", SURFACES)
async def test_a_replaced_chinese_draft_names_what_it_was(surfaces, name):
    """张三's corrected draft: the old card names the leave it was, in Chinese, and no longer
    repeats the answer above it (with a balance that no longer holds)."""
    s = await surfaces(name)
    thread = await s.say("zhangsan", "12月7日到9日请年假")
    await s.say("zhangsan", "改成12月14日到16日", thread)
    if name != "terminal":
        [old] = [c.text for c in s.cards("zhangsan") if REPLACED["zh"] in c.text]
    else:  # the terminal prints the old card again, redrawn, above the new one
        after = s.transcript("zhangsan").split("┌─ 已被取代\n", 1)[1]
        old = after.partition("┌─")[0]
    assert "年假，2026年12月7日 周一 至 12月9日 周三（3 个工作日）" in old, old
    assert "已准备" not in old and "剩余" not in old, old


@pytest.mark.parametrize("name", SURFACES)
async def test_an_expense_with_all_its_fields(surfaces, name):
    """Every field of the expense form, labelled, on the requester's card and the approver's."""
    s = await surfaces(name)
    thread = await s.say(
        "priya", "expense claim of 800 GBP for travel spent on 1 Dec: train tickets to the client"
    )
    [card] = live(s.cards("priya"), CONFIRM, thread)
    if name != "terminal":
        for label in ("Amount", "Category", "Date spent", "What for"):
            assert label in card.text, (label, card.text)
        assert "GBP" in card.text
        assert "Spent on" not in card.text and "spent_on" not in card.text
    await s.click("priya", card, CONFIRM)
    [req] = await s.engine.my_requests("priya")
    assert (req.process, req.fields["amount"], req.fields["currency"]) == ("expense", 800, "GBP")
    assert (req.fields["category"], req.fields["spent_on"]) == ("travel", "2026-12-01")
    if name != "terminal":
        [approver] = [c for c in live(s.cards("emma"), APPROVE) if c.about == req.id]
        for label in ("Amount", "Category", "Date spent", "What for"):
            assert label in approver.text, (label, approver.text)
        assert "800" in approver.text and "GBP" in approver.text
    await s.click("emma", await approver_card(s, "emma", req.id), APPROVE)
    assert (await s.engine.get_request(req.id, "priya")).status is RequestStatus.APPROVED
    no_live_buttons(s, "priya", "emma")
    reads_right(s, ("priya", "emma"), typed=("train tickets to the client",))


@pytest.mark.parametrize("name", SURFACES)
async def test_an_escalation_rendered_in_chinese(surfaces, name):
    """王芳 lets 张三's leave sit past the SLA: it moves to David; 王芳's card says so in Chinese."""
    s = await surfaces(name)
    rid = await submit(s, "zhangsan", "我想请年假，12月14日到12月15日")
    scheduler = Scheduler(s.engine)
    for _ in range(8):  # a day at a time, to Thursday 10 Dec: past 48 working hours
        s.engine.clock.advance(timedelta(days=1))  # type: ignore[attr-defined]
        await scheduler.run_due()
        await s.settle()
    req = await s.engine.get_request(rid, "zhangsan")
    assert req.steps[0].assignee == "david" and req.steps[0].escalations == 1
    no_live_buttons(s, "wangfang")
    if name != "terminal":
        closed = [c for c in s.cards("wangfang") if "David Chen" in c.text]
        # who has it now, once: not "已转交 David Chen：…已上报 David Chen 审批" + "待 David Chen 审批"
        assert closed and all(c.text.count("David Chen") == 1 for c in closed), closed
        assert all("已转交 David Chen" in c.text or "已上报 David Chen" in c.text for c in closed)
        assert all("Reassigned" not in c.text for c in s.cards("wangfang"))
        # escalated, not on leave: the reason is stored as a code, not guessed from English prose
        assert all("休假" not in c.text for c in s.cards("wangfang") + s.cards("zhangsan"))
    await s.click("david", await approver_card(s, "david", rid), APPROVE)
    assert (await s.engine.get_request(rid, "zhangsan")).status is RequestStatus.APPROVED
    no_live_buttons(s, "zhangsan", "wangfang", "david")
    reads_right(s, ("zhangsan", "wangfang", "david"))
    if name != "terminal":  # 王芳's "已转交 David，你仍可以审批" is redrawn once David decided
        none_waits(s, "zhangsan", "wangfang", "david")
        assert any("David Chen 已于" in c.text for c in s.cards("wangfang"))


@pytest.mark.parametrize("name", SURFACES)
async def test_the_requesters_notice_and_card_follow_the_approval(surfaces, name):
    """The sandbox walk: 张三 asks in Chinese, 王芳 approves; nothing of 张三's still says 审批中.

    The regression: the "你的申请已提交给 王芳" notice kept "审批中：第 1/1 步，待 王芳 审批"
    under the new 已批准 notice, on Slack and on Feishu.
    """
    s = await surfaces(name)
    rid = await submit(s, "zhangsan", "明天请假两天，家里有事")
    await s.click("wangfang", await approver_card(s, "wangfang", rid), APPROVE)
    assert (await s.engine.get_request(rid, "zhangsan")).status is RequestStatus.APPROVED
    no_live_buttons(s, "zhangsan", "wangfang")
    reads_right(s, ("zhangsan", "wangfang"), typed=("家里有事",))
    if name == "terminal":  # printed lines are history; the approver's last line is the outcome
        assert s.transcript("wangfang").rstrip().endswith("→ 已批准")
        return
    mine = s.cards("zhangsan")
    # the first notice, redrawn, no longer heads with "你的申请已提交给 王芳": it says who
    # approved it, beside the 已批准 notice
    assert not [c.text for c in mine if "已提交给" in c.text]
    assert sum("你的申请已批准。" in c.text for c in mine) == 1, [c.text for c in mine]
    assert sum("王芳 已于" in c.text for c in mine) == 2, [c.text for c in mine]
    [thread_card] = [c for c in mine if "已确认" in c.text]
    none_waits(s, "zhangsan", "wangfang")
    assert "王芳 已于" in thread_card.text, thread_card.text


@pytest.mark.parametrize("name", SURFACES)
async def test_a_reminder_card_closes_with_the_decision(surfaces, name):
    """Priya nudges Emma; Emma approves from the reminder: neither of her cards keeps a button."""
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 7 Dec to 9 Dec")
    s.engine.clock.advance(timedelta(days=1))  # type: ignore[attr-defined]
    await confirm_with(s, "priya", f"please remind Emma about {rid}", "Send reminder")
    await s.settle()
    if name != "terminal":
        mine = [c for c in live(s.cards("emma"), APPROVE) if c.about == rid]
        assert len(mine) == 2, [c.text for c in mine]  # her card and the reminder card
        reminder = mine[-1]
    else:
        reminder = await approver_card(s, "emma", rid)
    await s.click("emma", reminder, APPROVE)
    assert (await s.engine.get_request(rid, "priya")).status is RequestStatus.APPROVED
    no_live_buttons(s, "priya", "emma")
    reads_right(s, ("priya", "emma"))
    if name != "terminal":
        none_waits(s, "priya", "emma")
        assert len([c for c in s.cards("emma") if "Approved by Emma Clarke" in c.text]) == 2


@pytest.mark.parametrize("name", SURFACES)
async def test_an_expired_request_leaves_nothing_waiting(surfaces, name):
    """Nobody decides Priya's January leave: it escalates, then expires; every card says so."""
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 11 Jan to 12 Jan")
    scheduler = Scheduler(s.engine)
    for _ in range(40):  # a day at a time: past the SLA, then past the expiry
        s.engine.clock.advance(timedelta(days=1))  # type: ignore[attr-defined]
        await scheduler.run_due()
        await s.settle()
    assert (await s.engine.get_request(rid, "priya")).status is RequestStatus.EXPIRED
    no_live_buttons(s, "priya", "emma", "david")
    reads_right(s, ("priya", "emma", "david"))
    if name != "terminal":
        none_waits(s, "priya", "emma", "david")
        assert any("expired" in c.text.lower() for c in s.cards("priya"))


@pytest.mark.parametrize("name", SURFACES)
async def test_an_automatic_approval_says_so_everywhere(surfaces, name):
    """Half a day of sick leave needs no sign-off: the card and the notice say it is approved."""
    s = await surfaces(name)
    thread = await s.say("priya", "sick tomorrow afternoon")
    [card] = live(s.cards("priya"), CONFIRM, thread)
    await s.click("priya", card, CONFIRM)
    [req] = await s.engine.my_requests("priya")
    assert req.status is RequestStatus.APPROVED
    no_live_buttons(s, "priya", "emma")
    reads_right(s, ("priya", "emma"))
    if name != "terminal":
        none_waits(s, "priya", "emma")
        assert any("approved automatically" in c.text for c in s.cards("priya"))


def card_id(card: Seen) -> str:
    """Which message a card is: Slack's ts, Feishu's message id, the terminal's pending action."""
    handle = card.handle
    if isinstance(handle, dict):
        return handle["ts"]
    return handle[1].pending_id if hasattr(handle[1], "pending_id") else handle[0]


async def confirm_card_text(s: Surface, person: str, text: str) -> str:
    """The person asks; the words of the one confirm card it prepared (the terminal prints them)."""
    mark = len(s.transcript(person))
    thread = await s.say(person, text)
    if s.name == "terminal":  # the card is printed between the steps and the answer
        return s.transcript(person)[mark:].partition("\nbot> ")[0]
    [card] = live(s.cards(person), CONFIRM, thread)
    return card.text


# What each confirm card about an existing request lists (the request as the engine has it),
# by who asks what: its facts, then what the action is about, "|"-separated.
ABOUT_A_REQUEST = {
    ("priya", "please withdraw {rid}"): "Type|Annual leave|Dates|Mon 7 Dec 2026 – Wed 9 Dec 2026"
    "|3 working days|Status|Pending: with Emma Clarke (Manager)",
    ("priya", "please remind Emma about {rid}"): "Type|Annual leave|Dates|Mon 7 Dec 2026"
    "|To|Emma Clarke|Submitted|Wed 2 Dec 2026",
    ("emma", "approve {rid}"): "Requester|Priya Patel|Type|Annual leave|Mon 7 Dec 2026"
    "|Step|Manager approval",
    ("zhangsan", "撤回 {rid}"): "类型|年假|日期|工作日|状态|王芳",
    ("zhangsan", "催一下 {rid}"): "类型|年假|日期|提醒对象|王芳|提交日期",
    ("wangfang", "批准 {rid}"): "申请人|张三|类型|年假|日期|步骤|直属主管审批",
}


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(("person", "ask"), list(ABOUT_A_REQUEST))
async def test_a_confirm_card_about_a_request_lists_the_request(surfaces, name, person, ask):
    """Withdraw, remind and approve cards show the request they are about, in the reader's
    language, instead of repeating the answer's "Prepared: …" sentence."""
    s = await surfaces(name)
    requester = "zhangsan" if s.engine.person(person).locale == "zh" else "priya"
    zh = requester == "zhangsan"
    leave = "我想请年假，12月7日到12月9日" if zh else "annual leave from 7 Dec to 9 Dec"
    rid = await submit(s, requester, leave)
    card = await confirm_card_text(s, person, ask.format(rid=rid))
    for fact in ABOUT_A_REQUEST[(person, ask)].split("|"):
        assert fact in card, (fact, card)
    assert "Prepared" not in card and "已准备" not in card, card
    reads_right(s, (person,))


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(
    ("person", "ask", "action"),
    [
        ("priya", "annual leave from 7 Dec to 9 Dec", CONFIRM),
        ("priya", "annual leave from 7 Dec to 9 Dec", CANCEL),
        ("zhangsan", "我想请年假，12月7日到12月9日", CONFIRM),
        ("zhangsan", "我想请年假，12月7日到12月9日", CANCEL),
    ],
)
async def test_nothing_says_to_click_once_the_card_is_clicked(surfaces, name, person, ask, action):
    """The regression: "Click **Submit** on the card to send it, or **Cancel**." stayed in the
    answer above the card after Submit (or Cancel) was clicked. What to click is the card's own
    line, and it goes with the click."""
    s = await surfaces(name)
    thread = await s.say(person, ask)
    [card] = live(s.cards(person), CONFIRM, thread)
    button = "提交" if person == "zhangsan" else "Submit"
    assert button in card.text or name == "terminal", card.text
    await s.click(person, card, action)
    nothing_says_to_click(s, person)
    reads_right(s, (person,))


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(
    ("person", "ask", "none", "one"),
    [
        ("priya", "show my requests", "You have no requests.", "You have one request"),
        ("zhangsan", "我的申请", "你还没有任何申请。", "你有 1 个申请"),
    ],
)
async def test_listing_no_requests_says_there_are_none(surfaces, name, person, ask, none, one):
    """The regression: the "Checking your requests" step read "Your requests:" over nothing.
    With none, the step and the answer say so; with one, the step line says how many."""
    s = await surfaces(name)
    await s.say(person, ask)
    said = "\n".join(s.messages(person))
    assert none in said, said
    zh = person == "zhangsan"
    await submit(
        s, person, "我想请年假，12月7日到12月9日" if zh else "annual leave from 7 Dec to 9 Dec"
    )
    await s.say(person, ask)
    said = "\n".join(s.messages(person))
    assert "Your requests:" not in said and "你的申请：" not in said, said
    if name != "terminal":  # the terminal prints a step's title alone
        assert one in said, said
    reads_right(s, (person,))


@pytest.mark.parametrize("name", SURFACES)
@pytest.mark.parametrize(
    ("person", "ask", "again", "unchanged"),
    [
        ("priya", "annual leave tomorrow", "make it Thursday", "already says that"),
        ("zhangsan", "明天请年假", "改成周四", "草稿已经是这样了"),
    ],
)
async def test_a_correction_that_changes_nothing_keeps_the_card(
    surfaces, name, person, ask, again, unchanged
):
    """The regression: "make it Thursday" when the draft already says Thursday posted the same
    card again and superseded the first. Now the answer says so and the first card stays live."""
    s = await surfaces(name)
    thread = await s.say(person, ask)
    [first] = live(s.cards(person), CONFIRM, thread)
    seen = s.messages(person)
    await s.say(person, again, thread)
    said = "\n".join(m for m in s.messages(person) if m not in seen)
    assert unchanged in said, said
    assert "))" not in said and "））" not in said, said  # the draft named, not bracketed
    assert not any(REPLACED["en"] in c.text or REPLACED["zh"] in c.text for c in s.cards(person))
    [still] = live(s.cards(person), CONFIRM)  # the first card, not a copy of it
    assert card_id(still) == card_id(first)
    await s.click(person, still, CONFIRM)
    [req] = await s.engine.my_requests(person)
    assert req.fields["start"] == "2026-12-03" and req.status is RequestStatus.PENDING
    reads_right(s, (person,))


@pytest.mark.parametrize("name", SURFACES)
async def test_a_model_proposing_the_same_draft_again_keeps_the_card(surfaces, name):
    """The LLM path of the same regression: propose_request with the fields the live draft has."""
    fields = {
        "amount": 800,
        "currency": "GBP",
        "category": "travel",
        "spent_on": "2026-12-01",
        "description": "train tickets",
    }
    again = {**fields, "amount": "800"}  # the same, as a model may write it
    model = ScriptedModel(
        [
            call("propose_request", process="expense", fields=fields),
            call("propose_request", process="expense", fields=again),
            reply("Your draft already says that."),
        ]
    )
    s = await surfaces(name, model)
    thread = await s.say("priya", "expense of 800 GBP for train tickets on 1 Dec")
    [first] = live(s.cards("priya"), CONFIRM, thread)
    await s.say("priya", "it was 800 GBP, on 1 Dec", thread)
    assert not any(REPLACED["en"] in c.text for c in s.cards("priya"))
    [still] = live(s.cards("priya"), CONFIRM)
    assert card_id(still) == card_id(first)
    await s.click("priya", still, CONFIRM)
    [req] = await s.engine.my_requests("priya")
    assert (req.process, req.fields["amount"]) == ("expense", 800)
    model.assert_complete()


@pytest.mark.parametrize("name", SURFACES)
async def test_a_clicked_confirm_card_names_the_request_by_its_facts_not_its_id(surfaces, name):
    """Once clicked, Priya's Submit and Withdraw cards say which request it was as she knows
    it (what, which days), not "… · R-…": the id is only the small last line, as on the live card."""
    s = await surfaces(name)
    rid = await submit(s, "priya", "annual leave from 7 Dec to 9 Dec")
    await confirm_with(s, "priya", f"please withdraw {rid}", "Withdraw")
    if name == "terminal":  # printed lines are history: no card is redrawn once clicked
        return
    clicked = [c for c in s.cards("priya") if "Confirmed" in c.text]
    assert len(clicked) == 2, [c.text for c in s.cards("priya")]
    for card in clicked:
        assert "Annual leave, Mon 7 Dec 2026 – Wed 9 Dec 2026" in card.text, card.text
        with_id = [line.strip() for line in card.text.splitlines() if rid in line]
        assert with_id == [rid], card.text
