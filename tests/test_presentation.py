"""Cards built once as data, in the reader's language and zone, the same on Slack, Feishu and the terminal."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta

import fakeredis
import pytest

from agent.events import ProposalReady
from agent.tools.base import ToolContext
from agent.tools.propose import (
    ProposeDecisionArgs,
    ProposeRequestArgs,
    ProposeWithdrawArgs,
    propose_decision,
    propose_request,
    propose_withdraw,
)
from agent.tools.read import FindPeopleArgs, find_people
from bot.feishu import cards
from bot.presentation import confirm, requests
from bot.presentation.model import Reader
from bot.presentation.text import to_text
from bot.slack import blocks
from bot.slack.blocks_delegation import delegation_modal
from tests.helpers import leave_request, submitted
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine

EXPENSE = {
    "amount": 86.4,
    "currency": "GBP",
    "category": "meals",
    "spent_on": "2026-11-30",
    "description": "Team lunch",
}
TRIP = {
    "destination": "Shenzhen",
    "start": "2026-12-14",
    "end": "2026-12-16",
    "purpose": "Supplier visit",
    "estimated_cost": 4200,
}


@pytest.fixture
async def engine(config: OrgConfig, clock: FixedClock) -> AsyncIterator[Engine]:
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, client, clock)
    await client.aclose()


async def proposal(
    engine: Engine, actor: str, tool, args, locale: str | None = None
) -> ProposalReady:
    person = engine.person(actor)
    ctx = ToolContext(engine, person, engine.today_for(actor), locale or person.locale, "T1:1")
    obs = await tool(ctx, args)
    p = obs.proposal
    assert p is not None, obs.data
    return ProposalReady(p.pending_id, p.kind, p.request_id, p.confirm_by, p.summary, p.fields)


def feishu_facts(card: dict) -> list[str]:
    return [f["text"]["content"] for e in card["elements"] for f in e.get("fields") or []]


def slack_facts(msg: blocks.SlackMessage) -> list[str]:
    return [f["text"] for b in msg.blocks for f in b.get("fields") or []]


async def test_feishu_expense_and_trip_confirm_cards_show_labels_and_values_in_the_readers_language(
    engine: Engine,
):
    """No raw keys ('Spent on', 'Estimated cost') or raw values ('meals', '2026-11-30'): the same facts as Slack."""
    expense = await proposal(
        engine, "oliver", propose_request, ProposeRequestArgs(process="expense", fields=EXPENSE)
    )
    trip = await proposal(
        engine,
        "zhangsan",
        propose_request,
        ProposeRequestArgs(process="business_trip", fields=TRIP),
    )
    en = feishu_facts(cards.confirm_card(expense, "en", thread="t", engine=engine))
    assert en[:4] == [
        "**Amount**\n86.40 GBP",
        "**Category**\nMeals",
        "**Date spent**\nMon 30 Nov 2026",
        "**What for**\nTeam lunch",
    ]
    zh = feishu_facts(cards.confirm_card(expense, "zh", thread="t", engine=engine))
    assert zh[:4] == [
        "**金额**\n86.40 GBP",
        "**类别**\n餐饮",
        "**消费日期**\n2026年11月30日 周一",
        "**用途**\nTeam lunch",
    ]
    trip_zh = "\n".join(feishu_facts(cards.confirm_card(trip, "zh", thread="t", engine=engine)))
    assert "**目的地**\nShenzhen" in trip_zh and "2026年12月14日 周一" in trip_zh
    assert "Estimated cost" not in trip_zh and "2026-12-14" not in trip_zh
    # one source for every surface: Slack lists the same facts (its own markup)
    slack = slack_facts(blocks.confirm_card(expense, "zh", engine=engine))
    assert [s.replace("*", "") for s in slack] == [f.replace("**", "") for f in zh]


async def test_a_card_is_one_language_even_when_the_agent_answered_in_another(engine: Engine):
    """An English reader's card never carries the Chinese summary the agent wrote for a Chinese message."""
    zh_summary = await proposal(
        engine,
        "oliver",
        propose_request,
        ProposeRequestArgs(process="expense", fields=EXPENSE),
        "zh",
    )
    assert "已准备" in zh_summary.summary
    for text in (
        json.dumps(blocks.confirm_card(zh_summary, "en", engine=engine).blocks, ensure_ascii=False),
        json.dumps(
            cards.confirm_card(zh_summary, "en", thread="t", engine=engine), ensure_ascii=False
        ),
    ):
        assert "已准备" not in text and "Submit this request?" in text
    # and in the thread's language the whole card follows it
    zh = json.dumps(
        cards.confirm_card(zh_summary, "zh", thread="t", engine=engine), ensure_ascii=False
    )
    assert "提交此申请？" in zh and "Submit" not in zh
    assert "已准备" not in zh  # the answer above the card says it; the card carries the facts


async def test_each_confirmation_names_its_own_button(engine: Engine):
    """Withdraw, approve and reject confirmations say click Withdraw/Approve/Reject — never Submit."""
    req = await submitted(engine, "zhangsan")
    withdraw = await proposal(
        engine, "zhangsan", propose_withdraw, ProposeWithdrawArgs(request_id=req.id)
    )
    approve = await proposal(
        engine,
        "wangfang",
        propose_decision,
        ProposeDecisionArgs(request_id=req.id, decision="approve"),
        "en",
    )
    reject = await proposal(
        engine,
        "wangfang",
        propose_decision,
        ProposeDecisionArgs(request_id=req.id, decision="reject", comment="too long"),
        "en",
    )
    for p, verb in ((withdraw, "Withdraw"), (approve, "Approve"), (reject, "Reject")):
        card = confirm.confirm_card(p, "en", engine=engine)
        assert card.actions[0].label == verb
        assert f"click {verb}." in card.context[0] and "Submit" not in to_text(card)


def use_clock(engine: Engine, at: datetime) -> FixedClock:
    engine.clock = FixedClock(at)
    engine.setting = engine.setting.__class__(
        engine.directory, engine.clock, engine.keys, engine.config.policy
    )
    return engine.clock


async def test_times_on_a_card_are_in_the_readers_zone_with_the_zone_named(engine: Engine):
    """Submitted in London, approved in Shanghai a minute later: each reader sees both in their own zone, named."""
    clock = use_clock(engine, datetime(2026, 12, 2, 7, 57, tzinfo=UTC))
    req = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    clock.advance(timedelta(minutes=1))
    step = req.open_step()
    decided = await engine.decide(req.id, step.index, step.assignee, "approve")
    london = Reader.of(engine.person("oliver"))
    shanghai = Reader.of(engine.person("liuyang"))
    en = to_text(requests.approval_card_closed(decided, engine, london, step.index))
    zh = to_text(requests.approval_card_closed(decided, engine, shanghai, step.index))
    assert "Approved by Emma Clarke on Wed 2 Dec, 07:58 (London time)" in en, en
    assert "Submitted Wed 2 Dec, 07:57 (London time) · " in en, en
    assert "已于 12月2日 周三 15:58（北京时间）批准" in zh, zh
    assert "提交于 12月2日 周三 15:57（北京时间） · " in zh, zh
    assert "Shanghai" not in en and "London" not in zh and "2026-12-02" not in en + zh


async def test_a_time_from_another_year_names_its_year(engine: Engine):
    """Read in the new year, a card names the year of a time in the last one — in the reader's
    zone: 23:30 in London on 31 Dec is already 1 Jan 2027 in Shanghai, this year there."""
    clock = use_clock(engine, datetime(2026, 12, 31, 23, 30, tzinfo=UTC))
    req = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2027-01-14", "end": "2027-01-15"}
    )
    clock.advance(timedelta(days=1))
    london = Reader.of(engine.person("oliver"))
    shanghai = Reader.of(engine.person("liuyang"))
    en = to_text(requests.requester_notice("request_submitted", req, engine, london, {}))
    zh = to_text(requests.requester_notice("request_submitted", req, engine, shanghai, {}))
    assert "Submitted Thu 31 Dec 2026, 23:30 (London time) · " in en, en
    assert "提交于 1月1日 周五 07:30（北京时间） · " in zh, zh


async def test_request_ids_stay_in_the_context_line(engine: Engine):
    """People read names and dates; the id is the last thing on the card's context line."""
    req = await submitted(engine, "zhangsan")
    view = await engine.request_view(req.id, "wangfang")
    card = requests.approval_card(view, engine, "en")
    assert req.id not in card.title and all(req.id not in p.text for p in card.paragraphs)
    assert card.context[-1].endswith(req.id) and not card.context[-1].startswith(req.id)
    assert all(req.id not in f.value for f in card.facts)


async def test_where_a_request_is_reads_as_words_not_a_status_code(engine: Engine):
    """The context line says 'Pending: with Emma Clarke (Manager)' and 'Approved', not the raw
    'pending'/'approved' — nor 'step 1 of 1', which counts nothing on a one-step chain."""
    req = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    step = req.open_step()
    london = Reader.of(engine.person("oliver"))
    emma = Reader.of(engine.person("emma"))
    declined = {"accepted": False}  # "Oliver Smith declined your suggested dates": where it is
    open_card = to_text(requests.requester_notice("counter_answered", req, engine, emma, declined))
    assert "Pending: with Emma Clarke (Manager)" in open_card, open_card
    assert "of 1" not in open_card and "1/1" not in to_text(
        requests.requester_notice(
            "request_submitted", req, engine, Reader.of(engine.person("oliver"), "zh"), {}
        )
    )
    decided = await engine.decide(req.id, step.index, step.assignee, "approve")
    done = requests.approval_card_closed(decided, engine, london, step.index)
    assert done.context[0].startswith("Submitted "), done.context  # the sentence says "Approved by"
    # several steps: the count tells the reader how far it has come
    five = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-25"}
    )
    first = await engine.decide(five.id, 0, "emma", "approve")
    long_card = to_text(requests.approval_card_closed(first, engine, london, 0))
    assert "Pending: step 2 of 2 (HR) with 刘洋" in long_card, long_card


async def test_the_approvers_card_says_86_40_on_every_surface(engine: Engine):
    """The approver's card as data, on Slack and as terminal text: 86.40 GBP, not 86.4."""
    req = await submitted(engine, "oliver", EXPENSE, process="expense")
    view = await engine.request_view(req.id, "emma")
    for locale in ("en", "zh"):
        card = requests.approval_card(view, engine, locale)
        text = to_text(card)
        slack = json.dumps(blocks.approval_card(view, engine, locale).blocks, ensure_ascii=False)
        for shown in (text, slack):
            assert "86.40" in shown and "86.4 " not in shown and "86.4G" not in shown, shown


def test_a_leave_reads_naturally_with_no_brackets_inside_brackets(config: OrgConfig):
    """One day, a range, half days and a list of days read as a person writes them, in both
    languages: "病假，2026年12月3日 周四（1 个工作日）", never "（周四）（1 个工作日）"."""
    from datetime import date

    from agent.planner._plan import _days_or_range
    from agent.tools.describe import what

    cases = [
        (
            ("2026-12-03", "2026-12-03", 1, {}),
            "Annual leave, Thu 3 Dec 2026 (1 working day)",
            "年假，2026年12月3日 周四（1 个工作日）",
        ),
        (
            ("2026-12-14", "2026-12-16", 3, {}),
            "Annual leave, Mon 14 Dec 2026 – Wed 16 Dec 2026 (3 working days)",
            "年假，2026年12月14日 周一 至 12月16日 周三（3 个工作日）",
        ),
        (
            ("2026-12-14", "2026-12-14", 0.5, {"start_half": True}),
            "Annual leave, Mon 14 Dec 2026 afternoon (0.5 working days)",
            "年假，2026年12月14日 周一下午（0.5 个工作日）",
        ),
        (
            ("2026-12-31", "2027-01-04", 2.5, {"end_half": True}),
            "Annual leave, Thu 31 Dec 2026 – Mon 4 Jan 2027 morning (2.5 working days)",
            "年假，2026年12月31日 周四 至 2027年1月4日 周一上午（2.5 个工作日）",
        ),
    ]
    for (start, end, days, halves), en, zh in cases:
        req = leave_request({"leave_type": "annual", "start": start, "end": end, **halves}, days)
        assert what(req, config, "en") == en
        assert what(req, config, "zh") == zh
    listed = {"listed": [date(2026, 12, 4), date(2026, 12, 8)]}
    assert _days_or_range(listed, "zh") == (
        "是只请这几天（2026年12月4日 周五、2026年12月8日 周二），"
        "还是从2026年12月4日 周五到2026年12月8日 周二连着请？"
    )
    assert "((" not in _days_or_range(listed, "en") and "))" not in _days_or_range(listed, "en")


async def test_the_approvers_notification_names_the_request_as_the_approve_dialog_does(
    engine: Engine,
):
    """Slack's notification text (the card's fallback) is a sentence with the leave type in running
    text, like "Approve Oliver Smith's sick leave, …?"; a reminder's news opens it in the
    reader's language, with no English dash in Chinese."""
    req = await submitted(
        engine, "oliver", {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-03"}
    )
    view = await engine.request_view(req.id, "emma")
    en = requests.approval_card(view, engine, "en")
    assert en.fallback == (
        "Oliver Smith asks you to approve their sick leave, Thu 3 Dec 2026 (1 working day)"
    )
    assert blocks.approval_card(view, engine, "en").text == en.fallback
    assert "Approve Oliver Smith's sick leave, Thu 3 Dec 2026 (1 working day)?" in (
        en.actions[0].dialog.text
    )
    zh = requests.approval_card(view, engine, "zh")
    assert zh.fallback == "Oliver Smith 请你审批病假，2026年12月3日 周四（1 个工作日）"
    nudged = requests.approval_card(view, engine, "zh", reminder="请尽快")
    assert nudged.fallback == (
        "Oliver Smith 的催办提醒：请尽快。Oliver Smith 请你审批病假，2026年12月3日 周四（1 个工作日）"
    )
    nudged_en = requests.approval_card(view, engine, "en", reminder="")
    assert nudged_en.fallback.startswith("Reminder from Oliver Smith — Oliver Smith asks you")


async def test_worker_notices_name_a_request_without_brackets_inside_brackets(engine: Engine):
    """An expired or escalated request is named in running text between dashes (English) or
    quotes (Chinese), never "(Sick leave, … (1 working day))"; a submitted notice reads
    "已提交给 王芳（直属主管）审批" with no stray space after the bracket."""
    from bot import wording

    one_day = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-03"}
    oliver = await submitted(engine, "oliver", one_day)
    zhang = await submitted(engine, "zhangsan", one_day)
    en = wording.expired_text(oliver, engine, "en", for_requester=True)
    assert en.startswith(
        "Your request — sick leave, Thu 3 Dec 2026 (1 working day) — had no decision within"
    ), en
    zh = wording.expired_text(zhang, engine, "zh", for_requester=True)
    assert zh.startswith("你的申请“病假，2026年12月3日 周四（1 个工作日）”"), zh
    assert wording.expired_text(zhang, engine, "zh", for_requester=False).startswith(
        "张三 的申请“病假，2026年12月3日 周四（1 个工作日）”未获审批已过期"
    )
    up = wording.escalated_text(zhang, engine, "zh", "david", 48)
    assert up.startswith("张三 的申请“病假，2026年12月3日 周四（1 个工作日）”在 48 个工作小时内"), (
        up
    )
    up_en = wording.escalated_text(oliver, engine, "en", "david", 48)
    assert up_en.startswith("Oliver Smith's request — sick leave, Thu 3 Dec 2026 (1 working day) —")
    for text in (en, zh, up, up_en):
        assert "))" not in text and "））" not in text and "）（" not in text, text
    _, went = wording.headline("request_submitted", zhang, engine, "zh", {})
    assert went == "你的申请已提交给 王芳（直属主管）审批。"


async def test_a_chinese_digest_and_its_ticks_use_a_chinese_colon(engine: Engine):
    """王芳's morning digest, its [批准所选] ticks and the weekly who's-out list read "张三：年假，…",
    not "张三: 年假" (an English colon in Chinese); English keeps "Priya Patel: Annual leave"."""
    from datetime import date

    from bot.presentation.notices import digest_card, weekly_out_card
    from workflow.queries import OutEntry

    one = await submitted(
        engine, "zhangsan", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )
    two = await submitted(
        engine, "lisi", {"leave_type": "annual", "start": "2026-12-15", "end": "2026-12-15"}
    )
    zh = digest_card([one, two], engine, Reader.of(engine.person("wangfang")))
    text = to_text(zh)
    assert "• 张三：年假，2026年12月14日 周一（1 个工作日）" in text, text
    assert [label for _, label in zh.checklist.options] == [
        "张三：年假，2026年12月14日 周一（1 个工作日）",
        "李四：年假，2026年12月15日 周二（1 个工作日）",
    ]
    en = to_text(digest_card([one], engine, Reader.of(engine.person("wangfang"), "en")))
    assert "• 张三: Annual leave, Mon 14 Dec 2026 (1 working day)" in en, en
    out = OutEntry("lisi", "李四", date(2026, 12, 7), date(2026, 12, 8), False, False, False)
    week = to_text(
        weekly_out_card(
            [out], date(2026, 12, 7), date(2026, 12, 11), Reader.of(engine.person("wangfang"))
        )
    )
    assert "• 李四：2026年12月7日 周一 至 12月8日 周二" in week, week


async def test_a_chinese_request_list_and_day_count_use_chinese_punctuation(engine: Engine):
    """张三's "我的申请" lines and a working-days answer read with Chinese punctuation
    ("…——审批中：…（R-…）", "…：3 个工作日（含公共假期：…）"), English with its own."""
    from agent.tools.read import MyRequestsArgs, WorkingDaysArgs, my_requests, working_days

    req = await submitted(
        engine, "zhangsan", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )

    def ctx(locale: str) -> ToolContext:
        person = engine.person("zhangsan")
        return ToolContext(engine, person, engine.today_for("zhangsan"), locale, "T1:1")

    mine = (await my_requests(ctx("zh"), MyRequestsArgs())).summary
    assert (
        f"年假，2026年12月14日 周一（1 个工作日）——审批中：待 王芳 审批（直属主管）（{req.id}）"
        in mine
    )
    mine_en = (await my_requests(ctx("en"), MyRequestsArgs())).summary
    assert (
        f"Annual leave, Mon 14 Dec 2026 (1 working day) — Pending: with 王芳 (Manager) ({req.id})"
        in (mine_en)
    )
    days = await working_days(ctx("zh"), WorkingDaysArgs(start="2026-12-31", end="2027-01-04"))
    assert days.summary.startswith(
        "2026年12月31日 周四 至 2027年1月4日 周一：2 个工作日（含公共假期："
    ), days.summary
    assert ", " not in days.summary and ": " not in days.summary


async def test_titles_and_teams_are_in_the_readers_language_as_the_directory_has_them(
    engine: Engine,
):
    """王芳 looking up 张三 reads "软件工程师" in "研发部", Oliver "Software Engineer" in
    "Engineering" (the directory's own names), and so does the delegate picker."""
    for reader, title, team in (
        ("wangfang", "软件工程师", "研发部"),
        ("oliver", "Software Engineer", "Engineering"),
    ):
        person = engine.person(reader)
        ctx = ToolContext(engine, person, date(2026, 12, 2), person.locale, "t")
        found = await find_people(ctx, FindPeopleArgs(query="张三"))
        [zhang] = found.data["people"]
        assert (zhang["title"], zhang["team"]) == (title, team)
        modal = json.dumps(delegation_modal(person, engine, person.locale), ensure_ascii=False)
        assert f"张三 · {title}" in modal


async def test_a_decided_card_says_its_status_once_on_every_surface(engine: Engine):
    """The approver's closed card ("Approved by Emma Clarke at …") and the requester's notice
    ("Your request is approved.") no longer repeat it as a small "Approved" line under it: on
    Slack, Feishu and the terminal, in English and Chinese, approved and rejected alike."""
    from agent.tools.describe import status_text

    for who, approver, locale in (("oliver", "emma", "en"), ("zhangsan", "wangfang", "zh")):
        for decision, event, word, day in (
            ("approve", "request_approved", {"en": "approve", "zh": "批准"}, "2026-12-14"),
            ("reject", "request_rejected", {"en": "reject", "zh": "驳回"}, "2026-12-15"),
        ):
            req = await submitted(engine, who, {"leave_type": "annual", "start": day, "end": day})
            done = await engine.decide(req.id, 0, approver, decision, "busy week")
            rd = Reader.of(engine.person(approver), locale)
            status = status_text(done.status, locale)
            data = {"by": approver, "comment": "busy week"}
            for card in (
                requests.approval_card_closed(done, engine, rd, 0),
                requests.requester_notice(event, done, engine, Reader.of(engine.person(who)), data),
            ):
                assert status not in card.context, card.context
                shown = {
                    "terminal": to_text(card),
                    "slack": json.dumps(blocks.render(card).blocks, ensure_ascii=False),
                    "feishu": json.dumps(cards.render(card), ensure_ascii=False),
                }
                for surface, text in shown.items():
                    assert text.lower().count(word[locale]) == 1, (surface, text)
                    assert card.context[-1].endswith(done.id), card.context


async def test_a_notice_says_where_the_request_is_once_on_every_surface(engine: Engine):
    """ "Your request went to Emma Clarke (Manager)." is no longer followed by "Pending: with Emma
    Clarke (Manager)" (nor "你的申请已提交给 王芳（直属主管）审批。" by "审批中：待 王芳 审批"): the
    small line keeps what it adds — the submitted time and id; on two steps the count when the
    sentence leaves it out, and who comes next. Submitted, escalated, reminded and redrawn
    notices alike, on Slack, Feishu and the terminal, in English and Chinese."""
    from bot.conversation.lifecycle import state_news

    for who, approver, locale in (("oliver", "emma", "en"), ("zhangsan", "wangfang", "zh")):
        rd = Reader.of(engine.person(who), locale)
        holder, pending = engine.person(approver).name, {"en": "Pending", "zh": "审批中"}[locale]
        count, then = {
            "en": ("step 1 of 2", "Then: 刘洋 (HR)"),
            "zh": ("第 1/2 步", "之后：刘洋（人事）"),
        }[locale]
        for start, end in (("2026-12-14", "2026-12-14"), ("2026-12-21", "2026-12-25")):
            req = await submitted(engine, who, {"leave_type": "annual", "start": start, "end": end})
            two = len(req.steps) == 2
            notices = [
                requests.requester_notice(event, req, engine, rd, data)
                for event, data in (
                    ("request_submitted", {}),
                    ("step_escalated", {}),
                    ("reminder_sent", {"assignee": approver}),
                )
            ]
            if two:  # the submitted notice redrawn once the first step is approved
                first = await engine.decide(req.id, 0, approver, "approve")
                told = state_news(first, engine, locale)
                redrawn = requests.requester_notice(
                    "request_submitted", first, engine, rd, {}, told=told
                )
                notices.append(redrawn)
            for card in notices:
                shown = {
                    "terminal": to_text(card),
                    "slack": json.dumps(blocks.render(card).blocks, ensure_ascii=False),
                    "feishu": json.dumps(cards.render(card), ensure_ascii=False),
                }
                for surface, text in shown.items():
                    where = (surface, text)
                    assert pending not in text and text.count(req.id) == 1, where
                    if card is not notices[-1] or not two:
                        assert text.count(holder) == 1, where
                        assert text.lower().count(count) == (1 if two else 0), where
                        assert (then in text) is two, where
                    else:  # "Approved by Emma Clarke …; now waiting for 刘洋 (step 2 of 2)"
                        assert text.count("刘洋") == 1 and then not in text, where


async def test_a_redrawn_notice_is_marked_as_its_sentence_now_tells_on_every_surface(
    engine: Engine,
):
    """The requester's "submitted" notice redrawn once step 1 of 2 is approved ("Approved by
    Emma Clarke …; now waiting for 刘洋 (step 2 of 2)") carries the step-approved notice's mark
    and colour (✅, green), not the submitted one's (📤, blue), on Slack and Feishu, in English
    and Chinese."""
    from bot.conversation.lifecycle import view_for
    from bot.conversation.registry import CardRef, Role
    from bot.presentation.card_views import Drawn
    from bot.wording import headline

    for who, approver, locale in (("oliver", "emma", "en"), ("zhangsan", "wangfang", "zh")):
        rd = Reader.of(engine.person(who), locale)
        leave = {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-25"}
        req = await submitted(engine, who, leave)
        assert len(req.steps) == 2
        outcome, told = headline("request_submitted", req, engine, locale, {})
        sent = CardRef(
            platform="slack",
            address="D1:1.0",
            role=Role.NOTICE,
            holder=who,
            locale=locale,
            summary=told,
            outcome=outcome,
            notice="update",
            event="request_submitted",
        )
        first = await engine.decide(req.id, 0, approver, "approve")
        view = view_for(sent, first, engine)
        assert isinstance(view, Drawn)
        news = {"by": approver, "step": 0}
        same = requests.requester_notice("step_approved", first, engine, rd, news)
        for card, mark, template in (
            (view.card, ":white_check_mark:", "green"),
            (same, ":white_check_mark:", "green"),
        ):
            slack = json.dumps(blocks.render(card).blocks, ensure_ascii=False)
            assert f'"{mark} *' in slack and ":outbox_tray:" not in slack, slack
            assert cards.render(card)["header"]["template"] == template, card
        assert "刘洋" in view.card.lead[0].text, view.card.lead


async def test_a_moved_step_names_its_new_holder_once_on_every_surface(engine: Engine):
    """王芳's card once her step went to David: "No decision by 王芳 within 48 working hours;
    escalated to David Chen." — not "Reassigned to David Chen — …; escalated to David Chen." over
    "Pending: with David Chen (Manager)" — on Slack, Feishu and the terminal, in both languages."""
    from workflow.models import RoutedReason

    req = await submitted(
        engine, "zhangsan", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-14"}
    )
    moved = req.model_copy(deep=True)
    moved.steps[0].assignee = "david"
    reason = {"code": "escalated", "from": "wangfang", "to": "david", "hours": 48.0}
    moved.steps[0].routed_reason = RoutedReason.model_validate(reason)
    for locale, said in (("en", "escalated to David Chen."), ("zh", "已上报 David Chen 审批。")):
        card = requests.approval_card_closed(
            moved, engine, Reader.of(engine.person("wangfang"), locale), 0
        )
        assert card.body[-1].text.endswith(said), card.body
        for text in (
            to_text(card),
            json.dumps(blocks.render(card).blocks, ensure_ascii=False),
            json.dumps(cards.render(card), ensure_ascii=False),
        ):
            assert text.count("David Chen") == 1, text


async def test_a_closed_card_decides_where_it_is_on_the_bots_words_not_the_approvers_comment(
    config: OrgConfig, clock: FixedClock
):
    """Emma approves step 1 of 2 with "Fine by me - 刘洋 please check cover": her card still says
    "Pending: step 2 of 2 (HR) with 刘洋" — a comment naming 刘洋 does not say who has it; a
    comment saying "Rejected" does not hide that 刘洋 rejected it; and "刘洋洋 已于…批准" does
    not name 刘洋. On Slack, Feishu and the terminal, in English and Chinese."""
    from agent.tools.describe import where_it_is

    people = [
        p.model_copy(update={"name": "刘洋洋"}) if p.id == "wangfang" else p for p in config.people
    ]
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    engine = Engine(config.model_copy(update={"people": people}), client, clock)
    weeks = [
        {"leave_type": "annual", "start": start, "end": end}
        for start, end in (
            ("2026-12-14", "2026-12-18"),
            ("2026-12-21", "2026-12-25"),
            ("2027-01-04", "2027-01-08"),
            ("2027-01-11", "2027-01-15"),
        )
    ]
    for n, (who, approver, locale, comment, rejected) in enumerate(
        (
            ("oliver", "emma", "en", "Fine by me - 刘洋 please check cover", "Rejected"),
            ("zhangsan", "wangfang", "en", "", "Rejected"),
            ("oliver", "emma", "zh", "同意 - 刘洋 请确认人手", "已驳回"),
            ("zhangsan", "wangfang", "zh", "", "已驳回"),
        )
    ):
        rd = Reader.of(engine.person(approver), locale)
        week = weeks[n // 2 * 2]
        req = await submitted(engine, who, week)
        first = await engine.decide(req.id, 0, approver, "approve", comment)
        assert len(first.steps) == 2 and first.steps[1].assignee == "liuyang"
        where = where_it_is(
            first, engine.directory, locale
        )  # "Pending: step 2 of 2 (HR) with 刘洋"
        card = requests.approval_card_closed(first, engine, rd, 0)
        assert where in card.context, card.context
        for text in (
            to_text(card),
            json.dumps(blocks.render(card).blocks, ensure_ascii=False),
            json.dumps(cards.render(card), ensure_ascii=False),
        ):
            assert where in text and text.count(first.id) == 1, text
        # a comment with "Rejected" in it, then 刘洋 rejects: the card says so
        again = await submitted(engine, who, weeks[n // 2 * 2 + 1])
        ok = await engine.decide(again.id, 0, approver, "approve", f"{rejected} last year, fine")
        done = await engine.decide(ok.id, 1, "liuyang", "reject", "no cover")
        closed = requests.approval_card_closed(done, engine, rd, 0)
        assert where_it_is(done, engine.directory, locale) in closed.context, closed.context
    await client.aclose()


def test_a_moment_names_its_year_by_now_in_its_own_zone_and_an_unnamed_zone_by_its_offset():
    """fmt_moment compares years where the moment is, whatever zone `now` comes in: at 23:30 UTC
    on 31 Dec 2026 it is already 2027 in Shanghai, so 1 Jan 2027 there is this year. A zone
    with no Chinese name reads as its offset in Chinese ("UTC+01:00"), not "Madrid时间"."""
    from zoneinfo import ZoneInfo

    from agent.i18n import fmt_moment, zone_name

    shanghai, madrid = ZoneInfo("Asia/Shanghai"), ZoneInfo("Europe/Madrid")
    now = datetime(2026, 12, 31, 23, 30, tzinfo=UTC)
    moment = datetime(2027, 1, 1, 8, 0, tzinfo=shanghai)
    assert fmt_moment(moment, "en", now) == "Fri 1 Jan, 08:00 (Shanghai time)"
    assert fmt_moment(moment, "zh", now) == "1月1日 周五 08:00（北京时间）"
    winter, summer = datetime(2026, 12, 2, 9, tzinfo=madrid), datetime(2026, 7, 2, 9, tzinfo=madrid)
    assert zone_name(madrid, "zh", winter) == "UTC+01:00"
    assert zone_name(madrid, "zh", summer) == "UTC+02:00"
    assert zone_name(madrid, "en", winter) == "Madrid time"
    assert "Madrid" not in fmt_moment(winter, "zh", winter)
    assert zone_name(ZoneInfo("UTC"), "zh") == zone_name(UTC, "zh", winter) == "UTC"
