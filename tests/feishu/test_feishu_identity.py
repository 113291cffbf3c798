"""Feishu parity with Slack: someone without a feishu_open_id is matched by email (contact API)."""

from __future__ import annotations

from bot.feishu import cards
from tests.feishu.harness import FeishuHarness

SARAH = "ou_sarah_by_email"  # Feishu's id for Sarah; the directory only has her email


async def test_a_person_without_an_open_id_is_known_by_email_both_ways(feishu: FeishuHarness):
    h = feishu
    assert h.engine.person("sarah").feishu_open_id is None
    h.standin.add_user(SARAH, "Sarah Jones", "sarah.jones@acme.example")
    h.standin.add_user("ou_stranger", "Stranger", "someone@elsewhere.example")

    resp, _ = await h.sim.message(SARAH, "what is my annual leave balance?")
    assert resp.status == 200
    await h.settle()
    assert "not in the approvals directory" not in h.said(SARAH)
    assert "annual" in h.said(SARAH).lower()

    await h.sim.message("ou_stranger", "hello")
    await h.settle()
    assert "不在审批通讯录" in h.said("ou_stranger") or "not in the approvals" in h.said(
        "ou_stranger"
    )

    # Priya's 1,200 GBP claim needs Finance (Sarah) after Emma: Sarah's card reaches her by email
    resp, _ = await h.sim.message(
        "ou_priya", "expense claim of 1200 GBP for travel spent on 1 Dec: train tickets"
    )
    await h.settle()
    [confirm] = h.with_button("ou_priya", cards.PENDING_CONFIRM)
    await h.sim.click("ou_priya", confirm.message_id, cards.PENDING_CONFIRM)
    await h.settle()
    [emma_card] = h.with_button("ou_emma", cards.REQUEST_APPROVE)
    await h.sim.click("ou_emma", emma_card.message_id, cards.REQUEST_APPROVE)
    await h.settle()
    [sarah_card] = h.with_button(SARAH, cards.REQUEST_APPROVE)
    resp, answer = await h.sim.click(SARAH, sarah_card.message_id, cards.REQUEST_APPROVE)
    assert answer["toast"]["type"] == "success", answer
    await h.settle()
    [req] = await h.engine.my_requests("priya")
    assert req.status.value == "approved" and req.steps[1].decided_by == "sarah"
    assert len(h.standin.calls("contact_batch")) == 1  # looked up once, then remembered
