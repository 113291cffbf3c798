"""The Feishu cards: valid as Feishu checks them, in the reader's language, people's text kept literal."""

from __future__ import annotations

import json
from datetime import datetime

import fakeredis
import pytest

from agent.events import ProposalReady
from bot.feishu import cards
from bot.presentation.requests import approval_card
from bot.sandbox.standins.feishu.state import FeishuFault, check_card
from tests.helpers import submitted
from workflow.clock import FixedClock
from workflow.config import Organisation, load_config
from workflow.engine import Engine

SNEAKY = "<at id=all></at> **urgent** [click](https://evil.example)"


@pytest.fixture
async def engine():
    redis = fakeredis.FakeAsyncRedis(decode_responses=True)
    config = load_config().model_copy(update={"organisation": Organisation(id="fcd", name="Acme")})
    yield Engine(config, redis, FixedClock(datetime(2026, 12, 2, 9, 0)))
    await redis.aclose()


def lark_md_texts(card) -> list[str]:
    out = []

    def walk(x):
        if isinstance(x, dict):
            if x.get("tag") == "lark_md":
                out.append(x["content"])
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)

    walk(card)
    return out


def proposal(**fields) -> ProposalReady:
    return ProposalReady(
        pending_id="P-1",
        action="submit",
        request_id="R-1",
        confirm_by="张三",
        summary="已准备：病假",
        fields={"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04", **fields},
    )


async def test_every_card_passes_feishus_checks(engine):
    """Each builder's card is accepted by the stand-in's card check (Feishu's rules)."""
    req = await submitted(
        engine,
        "zhangsan",
        {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04", "reason": SNEAKY},
    )
    view = await engine.request_view(req.id, "wangfang")
    step = req.open_step()
    built = [
        cards.render(approval_card(view, engine, "zh")),
        cards.render(approval_card(view, engine, "en")),
        cards.render(approval_card(view, engine, "zh", reminder="麻烦尽快")),
        cards.reject_form_card(req, step, engine, "zh"),
        cards.approval_card_closed(req, engine, "en", 0),
        cards.confirm_card(proposal(reason=SNEAKY), "zh", thread="t", engine=engine),
        cards.confirm_card_closed("R-1 · 病假", "已提交", "zh"),
        cards.steps_card("zh", []),
        cards.steps_card("en", [cards.TaskLine("c1", "Checking", "in_progress")]),
        cards.steps_card(
            "en", [cards.TaskLine("c1", "Checking", "complete", "ok")], "Done", done=True
        ),
        cards.steps_card("en", [], "Hello!", done=True),
    ]
    for kind in (
        "request_submitted",
        "step_approved",
        "request_approved",
        "request_rejected",
        "request_withdrawn",
        "reminder_sent",
        "task_assigned",
    ):
        built.append(
            cards.requester_notice(
                kind, req, engine, "zh", {"by": "wangfang", "comment": SNEAKY, "step": 0}
            )
        )
    for c in built:
        check_card(c)
        assert c["config"]["update_multi"] is True
    with pytest.raises(FeishuFault):
        check_card({"elements": []})


async def test_peoples_text_never_becomes_markup(engine):
    """A reason with an @all tag and a link shows literally: plain_text, or escaped in lark_md."""
    req = await submitted(
        engine,
        "zhangsan",
        {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04", "reason": SNEAKY},
    )
    view = await engine.request_view(req.id, "wangfang")
    for c in (
        cards.render(approval_card(view, engine, "zh")),
        cards.confirm_card(proposal(reason=SNEAKY), "zh", thread="t", engine=engine),
        cards.requester_notice(
            "request_rejected", req, engine, "zh", {"by": "wangfang", "comment": SNEAKY}
        ),
        cards.steps_card(
            "zh", [cards.TaskLine("c", SNEAKY, "complete", SNEAKY)], SNEAKY, done=True
        ),
    ):
        assert SNEAKY in json.dumps(c, ensure_ascii=False) or "&lt;at id=all&gt;" in json.dumps(
            c, ensure_ascii=False
        )
        assert not any("<at" in text for text in lark_md_texts(c))


async def test_the_approver_card_says_what_an_approver_needs(engine):
    """Requester, type, dates, days, balance after, who else is out, step k of n, Approve/Reject."""
    await submitted(
        engine, "lisi", {"leave_type": "annual", "start": "2026-12-03", "end": "2026-12-03"}
    )
    req = await submitted(
        engine,
        "zhangsan",
        {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04", "reason": "flu"},
    )
    view = await engine.request_view(req.id, "wangfang")
    shown = json.dumps(cards.render(approval_card(view, engine, "zh")), ensure_ascii=False)
    for words in (
        "张三",
        "病假",
        "2026年12月3日",
        "2 个工作日",
        "剩余 8 天",
        "李四",
        "直属主管审批",
        "批准",
        "驳回",
        "flu",
    ):
        assert words in shown, words
    buttons = cards.buttons_of(cards.render(approval_card(view, engine, "zh")))
    approve, reject, suggest = buttons  # [Suggest other dates]: a leave's counter-offer
    assert suggest["value"] == {"action": "counter_open", "request_id": req.id, "step": 0}
    assert approve["confirm"] and approve["type"] == "primary" and reject["type"] == "danger"
    assert approve["value"] == {"action": "request_approve", "request_id": req.id, "step": 0}


async def test_english_readers_get_english_cards(engine):
    """Emma reads Oliver's request in English."""
    req = await submitted(
        engine, "oliver", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    view = await engine.request_view(req.id, "emma")
    shown = json.dumps(cards.render(approval_card(view, engine, "en")))
    assert "Annual leave" in shown and "Manager approval" in shown and "Approve" in shown


async def test_a_closed_card_says_who_decided_and_when(engine):
    """After approval the card has no buttons and reads "Approved by 王芳 on …"."""
    req = await submitted(
        engine, "zhangsan", {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04"}
    )
    req = await engine.decide(req.id, 0, "wangfang", "approve")
    closed = cards.approval_card_closed(req, engine, "en", 0)
    assert not cards.buttons_of(closed)
    assert "Approved by 王芳 on Wed 2 Dec, 09:00 (Shanghai time)" in json.dumps(
        closed, ensure_ascii=False
    )
    assert closed["header"]["template"] == "green"


def test_the_confirm_card_carries_the_pending_id_and_thread():
    """Submit and Cancel carry the pending action and the conversation; only Submit is primary."""
    c = cards.confirm_card(
        proposal(working_days=2, approvers=["王芳"], balance_after=8), "zh", thread="feishu:t:c:r"
    )
    submit, cancel = cards.buttons_of(c)
    assert submit["value"] == {
        "action": "pending_confirm",
        "pending_id": "P-1",
        "thread": "feishu:t:c:r",
    }
    assert cancel["value"]["action"] == "pending_cancel" and submit["type"] == "primary"
    shown = json.dumps(c, ensure_ascii=False)
    assert (
        "提交" in shown
        and "王芳" in shown
        and "剩余 8 天" in shown
        and "只有 张三 可以确认" in shown
    )


def test_long_text_is_cut_not_refused():
    """A very long answer is truncated with an ellipsis so the card stays under Feishu's limits."""
    c = cards.steps_card("en", [], "x" * 50_000, done=True)
    check_card(c)
    assert c["elements"][-1]["text"]["content"].endswith("…")
