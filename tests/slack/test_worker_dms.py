"""What the worker sends on Slack: automatic reminders, escalation, expiry, the morning digest."""

from __future__ import annotations

import json
from datetime import date, timedelta

from tests.helpers import ANNUAL_2_DAYS, submitted
from tests.slack.harness import SlackHarness
from workflow.counter import Dates
from workflow.scheduler import Scheduler

WANG, DAVID, ZHANG = "U0WANGFANG", "U0DAVID", "U0ZHANGSAN"


def said(h: SlackHarness, user: str) -> str:
    return "\n".join(
        (m.get("text") or "") + json.dumps(m.get("blocks") or [], ensure_ascii=False)
        for m in h.dm_messages(user)
    )


async def test_reminder_then_escalation_reach_the_right_people(slack: SlackHarness):
    """An automatic reminder comes with buttons; at the SLA the manager's manager gets the card and both others are told."""
    h = slack
    req = await submitted(h.engine, fields=ANNUAL_2_DAYS)
    scheduler = Scheduler(h.engine)
    h.engine.clock.advance(timedelta(days=3))
    await scheduler.run_due()
    await h.settle()
    cards = [
        m for m in h.dm_messages(WANG) if "request_approve" in json.dumps(m.get("blocks") or [])
    ]
    assert len(cards) == 2  # the original card and the reminder card
    h.engine.clock.advance(timedelta(days=6))
    await scheduler.run_due()
    await h.settle()
    assert "request_approve" in said(h, DAVID) and req.id in said(h, DAVID)
    assert "David Chen" in said(h, WANG)  # told who has it now
    assert "David Chen" in said(h, ZHANG) or "David" in said(h, ZHANG)
    assert not [r for r in h.standin.requests if not r.ok and r.method != "chat.startStream"]


async def test_expiry_tells_both_sides_and_the_morning_digest_lists_pending_items(
    slack: SlackHarness,
):
    """The approver's digest lists what waits; an expired request is announced to requester and approver."""
    h = slack
    req = await submitted(
        h.engine, fields={"leave_type": "annual", "start": "2027-01-11", "end": "2027-01-12"}
    )
    scheduler = Scheduler(h.engine)
    await scheduler.periodic()
    await h.settle()
    assert "等待你审批" not in said(h, WANG)  # it came with its own card this morning
    h.engine.clock.advance(timedelta(days=1))
    await scheduler.periodic()
    await h.settle()
    assert "1 个申请等待你审批" in said(h, WANG)  # 王芳 reads Chinese
    h.engine.clock.advance(timedelta(days=30))
    while await scheduler.run_due():
        pass
    await h.settle()
    assert "已过期" in said(h, ZHANG) and req.id in said(h, ZHANG)
    [(_, expired)] = [
        e
        for e in await h.engine.store.redis.xrange(h.engine.keys.outbox)
        if e[1]["type"] == "request_expired"
    ]
    holder = h.engine.person(json.loads(expired["data"])["assignee"])
    text = said(h, holder.slack_user_id)
    assert (
        ("expired before a decision" in text)
        if holder.locale == "en"
        else ("未获审批已过期" in text)
    )
    assert not [r for r in h.standin.requests if not r.ok and r.method != "chat.startStream"]


async def test_an_expired_requests_card_says_so(slack: SlackHarness):
    """After expiry the approver's card loses its buttons and says the request expired."""
    h = slack
    await submitted(
        h.engine, fields={"leave_type": "annual", "start": "2027-01-11", "end": "2027-01-12"}
    )
    await h.settle()
    h.engine.clock.advance(timedelta(days=31))
    scheduler = Scheduler(h.engine)
    while await scheduler.run_due():
        pass
    await h.settle()
    cards = [
        m
        for m in h.dm_messages(WANG)
        if "未获审批，已过期" in json.dumps(m.get("blocks") or [], ensure_ascii=False)
    ]
    assert cards and "request_approve" not in json.dumps(cards[0]["blocks"])


async def test_no_reminder_reaches_the_approver_while_the_requester_weighs_other_dates(
    slack: SlackHarness,
):
    """王芳 suggests other days: for a week past her SLA she gets no reminder card and David no
    escalated card; after 张三 accepts, her reminder comes on the new dates."""
    h = slack
    req = await submitted(h.engine, fields=ANNUAL_2_DAYS)
    await h.engine.counter("wangfang", req.id, 0, Dates(date(2026, 12, 16), date(2026, 12, 17)))
    await h.settle()
    before = len(h.dm_messages(WANG))
    scheduler = Scheduler(h.engine)
    for _ in range(9):
        h.engine.clock.advance(timedelta(days=1))
        await scheduler.run_due()
    await h.settle()
    assert len(h.dm_messages(WANG)) == before  # nothing new for her
    assert req.id not in said(h, DAVID)
    await h.engine.answer_counter("zhangsan", req.id, accept=True)
    for _ in range(4):
        h.engine.clock.advance(timedelta(days=1))
        await scheduler.run_due()
    await h.settle()
    accepted, reminder = [m["text"] for m in h.dm_messages(WANG)[before:]]
    assert accepted.startswith("张三 接受了你建议的日期")
    assert reminder.startswith("张三 的催办提醒") and "2026年12月16日 周三" in reminder
    assert req.id not in said(h, DAVID)
