"""Block Kit builders: every payload passes slack_sdk's own models, keeps the action contract, and speaks the reader's language."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from datetime import date
from typing import Any

import fakeredis
import pytest
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

from agent.events import ProposalReady
from agent.tools.base import ToolContext
from agent.tools.propose import (
    ProposeDecisionArgs,
    ProposeLeaveArgs,
    ProposeReminderArgs,
    ProposeWithdrawArgs,
    propose_decision,
    propose_leave,
    propose_reminder,
    propose_withdraw,
)
from bot.presentation.model import reader as presentation_reader
from bot.presentation.notices import digest_card
from bot.slack.blocks import (
    SlackMessage,
    TaskLine,
    approval_card,
    approval_card_closed,
    confirm_card,
    confirm_card_closed,
    escape,
    home_view,
    leave_modal,
    outcome_text,
    parse_leave_form,
    plan_message,
    reject_modal,
    reminder_card,
    requester_dm,
    truncate,
)
from bot.slack.blocks_cards import render
from tests.helpers import submitted
from workflow.clock import FixedClock
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.models import Request, RequestStatus
from workflow.queries import OutEntry, RequestView

SICK = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-10", "reason": "flu"}
LISI_ANNUAL = {"leave_type": "annual", "start": "2026-12-04", "end": "2026-12-07"}
INJECTION = "<!channel> urgent: approve at <https://evil.example|this link> & <@U0DAVID>"

# --- validation helpers -------------------------------------------------------------------------


@pytest.fixture
async def engine(config: OrgConfig, clock: FixedClock) -> AsyncIterator[Engine]:
    """A real engine on fakeredis only: these render tests need no real Redis."""
    client = fakeredis.FakeAsyncRedis(decode_responses=True)
    yield Engine(config, client, clock)
    await client.aclose()


def check_blocks(blocks: list[dict[str, Any]], limit: int = 50) -> None:
    """Each block is rebuilt by slack_sdk, validated, and serialised again (which validates nested elements)."""
    assert 0 < len(blocks) <= limit
    for raw in blocks:
        block = Block.parse(raw)
        assert block is not None, raw
        block.validate_json()
        assert block.to_dict() == raw
        for task in raw.get("tasks") or []:  # slack_sdk keeps a plan's tasks as dicts
            card = Block.parse(task)
            assert card is not None and card.type == "task_card"
            card.validate_json()
            card.to_dict()
    json.dumps(blocks)


def check_message(msg: SlackMessage) -> None:
    assert isinstance(msg, SlackMessage)
    assert msg.text.strip()
    check_blocks(msg.blocks)


def check_view(view: dict[str, Any]) -> None:
    v = View(**view)
    v.validate_json()
    v.to_dict()
    check_blocks(view["blocks"], limit=100)


def walk(node: Any) -> Iterator[dict[str, Any]]:
    """Every dict inside a payload, depth first."""
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from walk(value)


def buttons(blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [d for d in walk(blocks) if d.get("type") == "button"]


def by_action(blocks: list[dict[str, Any]], action_id: str) -> list[dict[str, Any]]:
    return [d for d in walk(blocks) if d.get("action_id") == action_id]


def texts(payload: Any) -> str:
    """All the text a person can read in a payload, joined."""
    return "\n".join(d["text"] for d in walk(payload) if isinstance(d.get("text"), str))


async def proposal(engine: Engine, actor: str, tool, args) -> ProposalReady:
    """Run a real propose_* tool and turn its result into the event the agent loop yields."""
    person = engine.person(actor)
    ctx = ToolContext(engine, person, engine.today_for(actor), person.locale, "T1:1")
    obs = await tool(ctx, args)
    p = obs.proposal
    assert p is not None, obs.data
    return ProposalReady(p.pending_id, p.kind, p.request_id, p.confirm_by, p.summary, p.fields)


def with_reason(req: Request, reason: str) -> Request:
    return req.model_copy(update={"fields": {**req.fields, "reason": reason}})


# --- escaping and truncation ----------------------------------------------------------------------


def test_escape_turns_mentions_and_links_into_plain_text():
    """&, < and > are escaped so `<!channel>` or `<url|text>` in user text never reaches Slack as markup."""
    assert escape("<!channel> & <http://x|y>") == "&lt;!channel&gt; &amp; &lt;http://x|y&gt;"


def test_truncate_adds_an_ellipsis_and_never_cuts_an_entity():
    """Cut text ends in "…" within the limit, and never leaves half of `&amp;` behind."""
    assert truncate("abcdef", 10) == "abcdef"
    assert truncate("abcdefghij", 5) == "abcd…"
    cut = truncate("abc&amp;def", 6)
    assert cut == "abc…" and len(cut) <= 6


# --- confirm cards --------------------------------------------------------------------------------


async def test_confirm_card_for_a_leave_shows_the_facts_and_the_contract_buttons(engine: Engine):
    """A submit proposal shows type, dates, days, approvers, balance and reason, with Submit/Cancel carrying the pending id."""
    p = await proposal(engine, "chenjing", propose_leave, ProposeLeaveArgs(**SICK))
    msg = confirm_card(p, "en", engine=engine)
    check_message(msg)
    body = texts(msg.blocks)
    for expected in (
        "Sick leave",
        "Thu 3 Dec 2026",
        "6 working days",
        "王芳 → 刘洋",
        "4 days left",
        "flu",
    ):
        assert expected in body
    [confirm] = by_action(msg.blocks, "pending_confirm")
    [cancel] = by_action(msg.blocks, "pending_cancel")
    assert (confirm["value"], confirm["style"], confirm["text"]["text"]) == (
        p.pending_id,
        "primary",
        "Submit",
    )
    assert (cancel["value"], cancel["text"]["text"]) == (p.pending_id, "Cancel")
    [actions] = [b for b in msg.blocks if b["type"] == "actions"]
    assert actions["block_id"] == f"pending:{p.pending_id}"


async def test_confirm_card_in_chinese(engine: Engine):
    """A Chinese requester's card says 提交/取消 and names the leave type in Chinese."""
    p = await proposal(engine, "zhangsan", propose_leave, ProposeLeaveArgs(**SICK))
    msg = confirm_card(p, "zh", engine=engine)
    check_message(msg)
    assert "病假" in texts(msg.blocks) and "12月3日" in texts(msg.blocks)
    assert [b["text"]["text"] for b in buttons(msg.blocks)] == ["提交", "取消"]


async def test_confirm_card_without_engine_still_renders(engine: Engine):
    """Called as confirm_card(p, locale) the card is valid and keeps the same buttons."""
    p = await proposal(engine, "zhangsan", propose_leave, ProposeLeaveArgs(**SICK))
    msg = confirm_card(p, "zh")
    check_message(msg)
    assert [b["action_id"] for b in buttons(msg.blocks)] == ["pending_confirm", "pending_cancel"]


@pytest.mark.parametrize(
    ("decision", "locale", "label", "style"),
    [
        ("approve", "en", "Approve", "primary"),
        ("reject", "en", "Reject", "danger"),
        ("approve", "zh", "批准", "primary"),
        ("reject", "zh", "驳回", "danger"),
    ],
)
async def test_confirm_card_for_a_decision_names_the_decision(
    engine: Engine, decision: str, locale: str, label: str, style: str
):
    """A decide proposal's confirm button says Approve or Reject (批准/驳回), not a vague Confirm."""
    req = await submitted(engine, fields=SICK)
    args = ProposeDecisionArgs(request_id=req.id, decision=decision, comment="not this week")
    p = await proposal(engine, "wangfang", propose_decision, args)
    msg = confirm_card(p, locale, engine=engine)
    check_message(msg)
    [confirm] = by_action(msg.blocks, "pending_confirm")
    assert (confirm["text"]["text"], confirm["style"], confirm["value"]) == (
        label,
        style,
        p.pending_id,
    )
    assert "not this week" in texts(msg.blocks)


async def test_confirm_card_for_withdraw_and_reminder_says_confirm(engine: Engine):
    """Withdraw and remind proposals name their own button (Withdraw / 发送提醒), never Submit."""
    req = await submitted(engine, fields=SICK)
    w = await proposal(
        engine,
        "zhangsan",
        propose_withdraw,
        ProposeWithdrawArgs(request_id=req.id, reason="better"),
    )
    r = await proposal(
        engine, "zhangsan", propose_reminder, ProposeReminderArgs(request_id=req.id, note="please")
    )
    for p, locale, label in ((w, "en", "Withdraw"), (r, "zh", "发送提醒")):
        msg = confirm_card(p, locale, engine=engine)
        check_message(msg)
        assert by_action(msg.blocks, "pending_confirm")[0]["text"]["text"] == label
        assert "click Submit" not in texts(msg.blocks) and "「提交」" not in texts(msg.blocks)
    assert "better" in texts(confirm_card(w, "en").blocks)
    assert "please" in texts(confirm_card(r, "zh").blocks)


async def test_closed_confirm_card_has_no_buttons(engine: Engine):
    """After a click the card keeps its summary, shows the outcome and offers nothing to click."""
    msg = confirm_card_closed("Prepared sick leave <!here>", "Submitted — waiting for 王芳", "en")
    check_message(msg)
    assert buttons(msg.blocks) == []
    assert "Submitted — waiting for 王芳" in texts(msg.blocks)
    assert "<!here>" not in json.dumps(msg.blocks) and "<!here>" not in msg.text


async def test_outcome_text_says_what_each_click_did(engine: Engine):
    """Submitted (with whom it waits and the step), approved, withdrawn, reminded, cancelled — in both languages."""
    req = await submitted(engine, "chenjing", SICK)
    assert outcome_text("submit", req, engine, "en") == "Submitted — waiting for 王芳 (step 1 of 2)"
    assert outcome_text("submit", req, engine, "zh") == "已提交，等待 王芳 审批（第 1/2 步）"
    assert outcome_text("remind", req, engine, "en") == "Reminder sent to 王芳"
    step1 = await engine.decide(req.id, 0, "wangfang", "approve")
    assert outcome_text("decide", step1, engine, "en").startswith("Approved — now waiting for 刘洋")
    done = await engine.decide(req.id, 1, "liuyang", "approve")
    assert outcome_text("decide", done, engine, "en") == "Approved"
    assert outcome_text("decide", done, engine, "zh") == "已批准"
    other = await submitted(engine, "lisi", LISI_ANNUAL)
    gone = await engine.withdraw(other.id, "lisi")
    assert outcome_text("withdraw", gone, engine, "en") == "Withdrawn"
    assert outcome_text("cancel", None, engine, "en") == "Cancelled: nothing was sent"
    assert outcome_text("cancel", None, engine, "zh") == "已取消：未发送任何内容"


# --- approval cards -------------------------------------------------------------------------------


async def test_approval_card_shows_everything_an_approver_needs(engine: Engine):
    """Requester, type, dates, days, balance after, reason, who else is out, the step and Approve/Reject."""
    await submitted(engine, "lisi", LISI_ANNUAL)
    req = await submitted(engine, "chenjing", SICK)
    view = await engine.request_view(req.id, "wangfang")
    msg = approval_card(view, engine, "en")
    check_message(msg)
    body = texts(msg.blocks)
    for expected in (
        "陈静",
        "Sick leave",
        "Thu 3 Dec 2026 – Thu 10 Dec 2026",
        "6 working days",
        "4 days left",
        "flu",
        "李四: Fri 4 Dec 2026 – Mon 7 Dec 2026 (pending)",
        "Step 1 of 2 (Manager)",
    ):
        assert expected in body, expected
    [approve] = by_action(msg.blocks, "request_approve")
    [reject] = by_action(msg.blocks, "request_reject")
    assert approve["value"] == reject["value"] == f"{req.id}:0"
    assert (approve["style"], reject["style"]) == ("primary", "danger")
    assert (
        approve["confirm"]["confirm"]["text"] == "Approve"
        and "陈静" in approve["confirm"]["text"]["text"]
    )
    assert "confirm" not in reject  # Reject opens the reason modal instead
    [actions] = [b for b in msg.blocks if b["type"] == "actions"]
    assert actions["block_id"] == f"request:{req.id}:0"


async def test_approval_card_in_chinese_says_approve_and_reject_in_chinese(engine: Engine):
    """王芳 reads her card in Chinese: 批准/驳回, 病假, and 无 when nobody else is out."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    msg = approval_card(view, engine, "zh")
    check_message(msg)
    assert [b["text"]["text"] for b in buttons(msg.blocks)] == ["批准", "驳回", "建议其他日期"]
    body = texts(msg.blocks)
    assert "病假" in body and "第 1/2 步（直属主管）" in body and "同组同期请假*\n无" in body
    assert by_action(msg.blocks, "request_approve")[0]["confirm"]["deny"]["text"] == "取消"


async def test_approval_card_explains_a_step_routed_to_a_delegate(engine: Engine):
    """When the manager delegated, the delegate's card says why the step came to them."""
    await engine.set_delegation("wangfang", "chenjing", date(2026, 12, 1), date(2026, 12, 9))
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "chenjing")
    en, zh = approval_card(view, engine, "en"), approval_card(view, engine, "zh")
    check_message(en)
    check_message(zh)
    assert "delegated approvals to 陈静" in texts(en.blocks)
    assert "已委托 陈静 代为审批" in texts(zh.blocks)


async def test_a_3000_character_reason_is_truncated_not_rejected(engine: Engine):
    """An over-long reason is cut with "…" to its block's limit, so Slack accepts the card."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    long_view = RequestView(with_reason(view.request, "x" * 3000), view.balance_after, ())
    for msg in (
        approval_card(long_view, engine, "en"),
        approval_card_closed(long_view.request, engine, "en", 0),
        reminder_card(long_view, engine, "en", "y" * 3000),
    ):
        check_message(msg)
        reason = next(b for b in msg.blocks if "xxxx" in json.dumps(b))
        assert reason["text"]["text"].endswith("…") and len(reason["text"]["text"]) <= 3000
    p = await proposal(engine, "chenjing", propose_leave, ProposeLeaveArgs(**SICK))
    long_p = ProposalReady(
        p.pending_id,
        p.action,
        p.request_id,
        p.confirm_by,
        "s" * 5000,
        {**p.fields, "reason": "x" * 3000},
    )
    check_message(confirm_card(long_p, "en", engine=engine))


async def test_a_channel_mention_in_a_reason_is_escaped_everywhere(engine: Engine):
    """`<!channel>` or a link in a reason shows as text on every card and in every fallback."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    bad = RequestView(with_reason(view.request, INJECTION), view.balance_after, ())
    rejected = await engine.decide(req.id, 0, "wangfang", "reject", INJECTION)
    p = await proposal(
        engine, "chenjing", propose_leave, ProposeLeaveArgs(**{**SICK, "reason": INJECTION})
    )
    messages = [
        approval_card(bad, engine, "en"),
        reminder_card(bad, engine, "zh", INJECTION),
        approval_card_closed(rejected, engine, "en", 0),
        requester_dm(
            "request_rejected", rejected, engine, "en", {"by": "wangfang", "comment": INJECTION}
        ),
        confirm_card(p, "en", engine=engine),
        confirm_card_closed(INJECTION, INJECTION, "en"),
        plan_message("Working", [TaskLine("c1", "Checking", "complete", INJECTION)], INJECTION),
    ]
    for msg in messages:
        check_message(msg)
        # mrkdwn and the fallback are parsed by Slack; plain_text and rich_text show text as is
        parsed = [d["text"] for d in walk(msg.blocks) if d.get("type") == "mrkdwn"]
        for text in [*parsed, msg.text]:
            assert "<" not in text and ">" not in text, text
    assert "&lt;!channel&gt;" in texts(messages[0].blocks)


async def test_who_else_is_out_is_capped_with_and_n_more(engine: Engine):
    """Fifteen colleagues out show as ten names and "…and 5 more"."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    out = tuple(
        OutEntry(
            f"p{i}",
            f"Person {i}",
            date(2026, 12, 3),
            date(2026, 12, 4),
            False,
            i % 2 == 0,
            i % 3 == 0,
        )
        for i in range(15)
    )
    msg = approval_card(RequestView(view.request, view.balance_after, out), engine, "en")
    check_message(msg)
    body = texts(msg.blocks)
    assert "Person 9" in body and "Person 10" not in body and "…and 5 more" in body


async def test_closed_approval_card_says_who_decided_and_when(engine: Engine):
    """After the click everyone sees "Approved by 王芳 on Wed 2 Dec, 09:00 (Shanghai time)" or the rejection with its reason — no buttons."""
    req = await submitted(engine, "zhangsan", SICK)
    step1 = await engine.decide(req.id, 0, "wangfang", "approve", "get well")
    msg = approval_card_closed(step1, engine, "en", 0)
    check_message(msg)
    assert buttons(msg.blocks) == []
    assert "Approved by 王芳 on Wed 2 Dec, 09:00 (Shanghai time) — get well" in texts(msg.blocks)
    assert "王芳 已于 12月2日 周三 09:00（北京时间）批准" in texts(
        approval_card_closed(step1, engine, "zh", 0).blocks
    )
    rejected = await engine.decide(req.id, 1, "liuyang", "reject", "too long")
    msg = approval_card_closed(rejected, engine, "en", 1)
    check_message(msg)
    assert "Rejected by 刘洋 on Wed 2 Dec, 09:00 (Shanghai time) — too long" in texts(msg.blocks)
    assert msg.text.startswith("Rejected by 刘洋")


async def test_closed_approval_card_for_withdrawal_and_reassignment(engine: Engine):
    """A withdrawn request says so; a step whose assignee changed says who has it now."""
    req = await submitted(engine, "zhangsan", SICK)
    moved = req.model_copy(deep=True)
    moved.steps[0].assignee = "david"
    moved.steps[0].routed_reason = "王芳 is on leave until 2026-12-09; sent to David Chen."
    msg = approval_card_closed(moved, engine, "en", 0)
    check_message(msg)
    # who has it now, once: the reason names him ("…; sent to David Chen."), no "Reassigned to" before
    assert texts(msg.blocks).count("David Chen") == 1 and "sent to David Chen" in texts(msg.blocks)
    gone = await engine.withdraw(req.id, "zhangsan")
    for locale, words in (("en", "Withdrawn by the requester"), ("zh", "申请人已撤回")):
        msg = approval_card_closed(gone, engine, locale, 0)
        check_message(msg)
        assert words in texts(msg.blocks) and buttons(msg.blocks) == []


async def test_reminder_card_is_the_approval_card_with_the_reminder_on_top(engine: Engine):
    """The reminder DM starts with "Reminder from <requester>: <note>" and keeps Approve/Reject."""
    req = await submitted(engine, "chenjing", SICK)
    view = await engine.request_view(req.id, "wangfang")
    msg = reminder_card(view, engine, "en", "flight on Friday")
    check_message(msg)
    assert msg.blocks[0]["type"] == "context"
    assert "Reminder from 陈静: flight on Friday" in texts(msg.blocks[0])
    assert [b["action_id"] for b in buttons(msg.blocks)] == [
        "request_approve",
        "request_reject",
        "counter_open",
    ]
    assert "陈静 的催办提醒" in texts(reminder_card(view, engine, "zh", None).blocks)


async def test_expense_cards_show_the_form_fields_with_their_labels(engine: Engine):
    """A non-leave request shows its own fields (amount, date, purpose) labelled in the reader's language."""
    fields = {
        "amount": 1320.5,
        "currency": "GBP",
        "category": "travel",
        "spent_on": "2026-11-30",
        "description": "Train to Leeds",
    }
    req = await submitted(engine, "oliver", fields, process="expense")
    msg = approval_card(await engine.request_view(req.id, "emma"), engine, "en")
    check_message(msg)
    body = texts(msg.blocks)
    assert "*Amount*\n1,320.50" in body and "Mon 30 Nov 2026" in body and "Train to Leeds" in body
    assert (
        "Step 1 of 2 (Manager)" in body
        and "It then goes to Sarah Jones (Finance)" in json.dumps(msg.blocks)
    )
    zh = approval_card_closed(req, engine, "zh", 0)
    check_message(zh)
    assert "*金额*" in texts(zh.blocks)


# --- requester DMs --------------------------------------------------------------------------------


async def test_requester_dms_render_every_outbox_event(engine: Engine):
    """Each event of a real request's life becomes a valid DM in both languages."""
    req = await submitted(engine, "chenjing", SICK)
    await engine.decide(req.id, 0, "wangfang", "approve", "get well")
    final = await engine.decide(req.id, 1, "liuyang", "approve")
    entries = await engine.store.redis.xrange(engine.keys.outbox)
    seen = []
    for _, fields in entries:
        data = json.loads(fields["data"])
        for locale in ("en", "zh"):
            msg = requester_dm(fields["type"], final, engine, locale, data)
            check_message(msg)
            assert buttons(msg.blocks) == []
        seen.append(fields["type"])
    assert "request_approved" in seen and "step_approved" in seen


async def test_requester_dm_wording(engine: Engine):
    """Submitted says where it went, a step approval names the approver and comment, the final one has the dates."""
    req = await submitted(engine, "chenjing", SICK)
    msg = requester_dm("request_submitted", req, engine, "en", {})
    assert "Your request went to 王芳, step 1 of 2 (Manager)." in texts(msg.blocks)
    step1 = await engine.decide(req.id, 0, "wangfang", "approve", "get well")
    msg = requester_dm(
        "step_approved", step1, engine, "en", {"step": 0, "by": "wangfang", "comment": "get well"}
    )
    body = texts(msg.blocks)
    assert (
        "王芳 approved step 1 of 2 (Manager) of your request. Next: 刘洋" in body
        and "get well" in body
    )
    done = await engine.decide(req.id, 1, "liuyang", "approve")
    msg = requester_dm("request_approved", done, engine, "zh", {})
    assert "你的申请已批准" in texts(msg.blocks) and "2026年12月3日" in texts(msg.blocks)
    msg = requester_dm("reminder_sent", step1, engine, "en", {"assignee": "liuyang", "note": "hi"})
    assert "Reminder sent to 刘洋." in texts(msg.blocks)


async def test_requester_dm_for_rejection_and_withdrawal(engine: Engine):
    """A rejection says by whom and why; a withdrawal confirms it; unknown events still render."""
    req = await submitted(engine, "zhangsan", SICK)
    rejected = await engine.decide(req.id, 0, "wangfang", "reject", "team offsite")
    msg = requester_dm(
        "request_rejected", rejected, engine, "zh", {"by": "wangfang", "comment": "team offsite"}
    )
    check_message(msg)
    assert "王芳 驳回了你的申请" in texts(msg.blocks) and "team offsite" in msg.text
    other = await submitted(engine, "lisi", LISI_ANNUAL)
    gone = await engine.withdraw(other.id, "lisi")
    msg = requester_dm("request_withdrawn", gone, engine, "en", {"reason": "plans changed"})
    check_message(msg)
    assert "This request was withdrawn." in texts(msg.blocks) and "plans changed" in texts(
        msg.blocks
    )
    check_message(requester_dm("something_new", gone, engine, "en", {}))


# --- modals ---------------------------------------------------------------------------------------


async def test_reject_modal_asks_for_a_required_reason(engine: Engine):
    """The modal carries the request and step in private_metadata and one required multiline reason."""
    req = await submitted(engine, "zhangsan", SICK)
    for locale, title, submit, close in (
        ("en", "Reject request", "Reject", "Cancel"),
        ("zh", "驳回申请", "驳回", "取消"),
    ):
        view = reject_modal(req, 0, engine, locale)
        check_view(view)
        assert (view["type"], view["callback_id"]) == ("modal", "reject_reason")
        assert json.loads(view["private_metadata"]) == {"request_id": req.id, "step": 0}
        assert (view["title"]["text"], view["submit"]["text"], view["close"]["text"]) == (
            title,
            submit,
            close,
        )
        [reason] = [b for b in view["blocks"] if b["type"] == "input"]
        assert reason["block_id"] == "reason" and not reason.get("optional", False)
        element = reason["element"]
        assert (element["action_id"], element["multiline"], element["max_length"]) == (
            "reason",
            True,
            500,
        )


async def test_leave_modal_has_the_contract_inputs_and_the_chain(engine: Engine):
    """The /leave form has leave_type, start, end, halves and reason inputs and shows who approves."""
    person = engine.person("zhangsan")
    view = leave_modal(person, engine, "zh", approvers=["王芳", "刘洋 (HR for more than 3 days)"])
    check_view(view)
    assert view["callback_id"] == "leave_form" and len(view["title"]["text"]) <= 24
    inputs = {b["block_id"]: b for b in view["blocks"] if b["type"] == "input"}
    assert list(inputs) == ["leave_type", "start", "end", "halves", "reason"]
    for block_id, block in inputs.items():
        assert block["element"]["action_id"] == block_id
    assert inputs["halves"]["optional"] and inputs["reason"]["optional"]
    assert inputs["start"]["element"]["type"] == "datepicker"
    options = inputs["leave_type"]["element"]["options"]
    assert [o["value"] for o in options] == ["annual", "sick", "personal", "unpaid"]
    assert [o["text"]["text"] for o in options] == ["年假", "病假", "事假", "无薪假"]
    halves = inputs["halves"]["element"]["options"]
    assert [(o["value"], o["text"]["text"]) for o in halves] == [
        ("start_half", "首日仅下午"),
        ("end_half", "末日仅上午"),
    ]
    assert "审批：王芳 → 刘洋 (HR for more than 3 days)" in texts(view["blocks"])
    en = leave_modal(person, engine, "en", approvers=["王芳"])
    check_view(en)
    en_halves = next(b for b in en["blocks"] if b.get("block_id") == "halves")["element"]["options"]
    assert [o["text"]["text"] for o in en_halves] == [
        "First day: afternoon only",
        "Last day: morning only",
    ]


async def test_leave_modal_prefills_initial_values(engine: Engine):
    """`initial` fills type, dates, ticked half days and reason, and the view stays valid."""
    initial = {**SICK, "start_half": True, "end_half": False}
    view = leave_modal(engine.person("chenjing"), engine, "en", approvers=[], initial=initial)
    check_view(view)
    inputs = {b["block_id"]: b["element"] for b in view["blocks"] if b["type"] == "input"}
    assert inputs["leave_type"]["initial_option"]["value"] == "sick"
    assert (inputs["start"]["initial_date"], inputs["end"]["initial_date"]) == (
        "2026-12-03",
        "2026-12-10",
    )
    assert [o["value"] for o in inputs["halves"]["initial_options"]] == ["start_half"]
    assert inputs["reason"]["initial_value"] == "flu"


async def test_parse_leave_form_round_trip_into_the_engine(engine: Engine):
    """A realistic view_submission state becomes engine fields that prepare_submit accepts as they are."""
    state_values = {
        "leave_type": {
            "leave_type": {
                "type": "static_select",
                "selected_option": {
                    "text": {"type": "plain_text", "text": "病假", "emoji": True},
                    "value": "sick",
                },
            }
        },
        "start": {"start": {"type": "datepicker", "selected_date": "2026-12-03"}},
        "end": {"end": {"type": "datepicker", "selected_date": "2026-12-10"}},
        "halves": {
            "halves": {
                "type": "checkboxes",
                "selected_options": [
                    {"text": {"type": "plain_text", "text": "末日仅上午"}, "value": "end_half"}
                ],
            }
        },
        "reason": {"reason": {"type": "plain_text_input", "value": "  flu  "}},
    }
    fields = parse_leave_form(state_values)
    assert fields == {
        "leave_type": "sick",
        "start": "2026-12-03",
        "end": "2026-12-10",
        "start_half": False,
        "end_half": True,
        "reason": "flu",
    }
    prepared = await engine.prepare_submit("zhangsan", "leave", fields)
    assert prepared.request.derived["working_days"] == 5.5
    prefilled = leave_modal(engine.person("zhangsan"), engine, "zh", approvers=[], initial=fields)
    check_view(prefilled)


def test_parse_leave_form_with_missing_values():
    """Empty or absent inputs come back as None (half days as False), never as a KeyError."""
    state_values = {
        "leave_type": {"leave_type": {"type": "static_select", "selected_option": None}},
        "start": {"start": {"type": "datepicker", "selected_date": None}},
        "halves": {"halves": {"type": "checkboxes", "selected_options": []}},
        "reason": {"reason": {"type": "plain_text_input", "value": None}},
    }
    expected = {
        "leave_type": None,
        "start": None,
        "end": None,
        "start_half": False,
        "end_half": False,
        "reason": None,
    }
    assert parse_leave_form(state_values) == expected
    assert parse_leave_form({}) == expected


# --- Home tab -------------------------------------------------------------------------------------


async def test_home_view_shows_balances_requests_and_approvals(engine: Engine):
    """Balances per type, a Withdraw button per open request, Approve/Reject per approval, and the form button."""
    mine = await submitted(
        engine, "wangfang", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    theirs = await submitted(engine, "zhangsan", SICK)
    view = home_view(
        engine.person("wangfang"),
        engine,
        "en",
        my_requests=await engine.my_requests("wangfang"),
        approvals=[await engine.request_view(theirs.id, "wangfang")],
        balances=await engine.balances("wangfang"),
    )
    check_view(view)
    assert view["type"] == "home"
    body = texts(view["blocks"])
    assert (
        "Annual leave" in body
        and "8 days left of 10, 2 pending" in body  # as the chat says it, not "(2 pending) (…)"
        and "Unpaid leave" in body
    )
    zh = home_view(
        engine.person("wangfang"),
        engine,
        "zh",
        my_requests=[],
        approvals=[],
        balances=await engine.balances("wangfang"),
    )
    assert "剩余 8 天，共 10 天，2 天审批中" in texts(zh["blocks"])
    [withdraw] = by_action(view["blocks"], "home_withdraw")
    assert withdraw["value"] == mine.id and withdraw["confirm"]["style"] == "danger"
    [approve] = by_action(view["blocks"], "request_approve")
    [reject] = by_action(view["blocks"], "request_reject")
    assert approve["value"] == reject["value"] == f"{theirs.id}:0"
    assert "confirm" in approve
    [new] = by_action(view["blocks"], "open_leave_form")
    assert new["text"]["text"] == "New leave request"
    zh = home_view(
        engine.person("wangfang"), engine, "zh", my_requests=[], approvals=[], balances=[]
    )
    check_view(zh)
    assert by_action(zh["blocks"], "open_leave_form")[0]["text"]["text"] == "新建请假"


async def test_home_view_with_30_requests_stays_within_100_blocks(engine: Engine):
    """Thirty open requests and thirty approvals are capped at ten each with "…and 20 more"."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    many = [req.model_copy(update={"id": f"R-{i:08d}"}) for i in range(30)]
    views = [RequestView(r, view.balance_after, view.team_out) for r in many]
    home = home_view(
        engine.person("wangfang"),
        engine,
        "en",
        my_requests=many,
        approvals=views,
        balances=await engine.balances("wangfang"),
    )
    check_view(home)
    assert len(home["blocks"]) <= 100
    assert len(by_action(home["blocks"], "home_withdraw")) == 10
    assert len(by_action(home["blocks"], "request_approve")) == 10
    assert texts(home["blocks"]).count("…and 20 more") == 2


async def test_home_and_digest_count_every_approval_when_shown_the_oldest_page(engine: Engine):
    """With 57 requests waiting and the oldest 10 read, the Home tab and the morning digest
    show those 10 and say "…and 47 more"; the digest's title counts all 57."""
    req = await submitted(engine, "zhangsan", SICK)
    view = await engine.request_view(req.id, "wangfang")
    page = [req.model_copy(update={"id": f"R-{i:08d}"}) for i in range(10)]
    home = home_view(
        engine.person("wangfang"),
        engine,
        "en",
        my_requests=[],
        approvals=[RequestView(r, view.balance_after, view.team_out) for r in page],
        approvals_total=57,
        balances=[],
    )
    check_view(home)
    assert len(by_action(home["blocks"], "request_approve")) == 10
    assert "…and 47 more" in texts(home["blocks"])
    card = digest_card(page, engine, presentation_reader("en"), total=57)
    body = json.dumps(render(card).blocks, ensure_ascii=False)
    assert "57 requests waiting for your approval" in body and "…and 47 more" in body
    # a page shorter than the list (a request decided as it was read): the rest is still counted
    card = digest_card(page[:4], engine, presentation_reader("en"), total=57)
    body = json.dumps(render(card).blocks, ensure_ascii=False)
    assert "57 requests waiting for your approval" in body and "…and 53 more" in body


# --- the plan fallback ----------------------------------------------------------------------------


def test_plan_message_is_one_plan_block_of_task_cards():
    """The steps are task cards in one plan block with their status and output, then the answer."""
    tasks = [
        TaskLine("call_1", "Checking your sick leave balance", "complete", "10 days left"),
        TaskLine("call_2", "Preparing your leave request", "in_progress", None),
        TaskLine("call_3", "Looking up 王芳", "error", "not found"),
        TaskLine("call_4", "Waiting", "pending"),
    ]
    msg = plan_message("Working on it", tasks, None)
    check_message(msg)
    [plan] = msg.blocks
    assert plan["type"] == "plan" and plan["title"] == "Working on it"
    assert [(c["type"], c["task_id"], c["status"]) for c in plan["tasks"]] == [
        ("task_card", "call_1", "complete"),
        ("task_card", "call_2", "in_progress"),
        ("task_card", "call_3", "error"),
        ("task_card", "call_4", "pending"),
    ]
    assert plan["tasks"][0]["output"]["type"] == "rich_text"
    assert "output" not in plan["tasks"][1]
    assert "Checking your sick leave balance" in msg.text


def test_plan_message_with_a_long_final_answer_splits_it_into_sections():
    """A final answer longer than a section is split into valid sections and is the fallback text."""
    answer = ("I prepared your leave request. " * 40 + "\n") * 5
    msg = plan_message("Done", [TaskLine("c", "Preparing", "complete", "ok")], answer)
    check_message(msg)
    sections = [b for b in msg.blocks if b["type"] == "section"]
    assert len(sections) >= 2 and all(len(s["text"]["text"]) <= 3000 for s in sections)
    assert msg.text.startswith("I prepared your leave request.")


def test_plan_message_caps_titles_and_outputs():
    """Huge titles and outputs are cut, and every task still validates."""
    tasks = [TaskLine(f"c{i}", "t" * 500, "complete", "o" * 5000) for i in range(60)]
    msg = plan_message("T" * 500, tasks, "x" * 100_000)
    check_message(msg)
    assert len(msg.blocks[0]["title"]) <= 150
    assert len(msg.blocks) <= 50


async def test_approval_card_for_a_request_already_decided_has_no_buttons(engine: Engine):
    """A card built after the request ended (a late DM) shows where it stands and nothing to click."""
    req = await submitted(engine, "zhangsan", SICK)
    await engine.decide(req.id, 0, "wangfang", "reject", "no")
    view = await engine.request_view(req.id, "wangfang")
    assert view.request.status is RequestStatus.REJECTED
    msg = approval_card(view, engine, "zh")
    check_message(msg)
    assert buttons(msg.blocks) == [] and texts(msg.blocks).count("驳回") == 1  # said once


async def test_the_suggest_dates_modal_says_optional_once_and_uses_the_readers_colon(
    engine: Engine,
):
    """Slack adds "(optional)" to an optional input's label itself: the note's label does not
    say it again ("Note to 张三 (optional) (optional)"); the asked-for line reads
    "原申请日期：…" in Chinese, not with an English colon."""
    from bot.slack.blocks_counter import counter_modal

    req = await submitted(engine, "zhangsan", SICK)
    for locale, label, asked in (
        ("en", "Note to 张三", "Asked for: "),
        ("zh", "给张三的留言", "原申请日期："),
    ):
        view = counter_modal(req, 0, engine, locale)
        check_view(view)
        [note] = [b for b in view["blocks"] if b.get("block_id") == "note"]
        assert note["optional"] is True and note["label"]["text"] == label
        assert asked in texts(view["blocks"])
