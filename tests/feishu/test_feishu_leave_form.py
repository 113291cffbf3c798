"""Feishu's "Request leave": the bot's menu (or /leave) opens a form card with the /leave modal's checks."""

from __future__ import annotations

import json

from bot.conversation import buttons
from bot.feishu import cards
from bot.feishu.forms import MENU_KEY
from tests.feishu.harness import FeishuHarness

PRIYA, EMMA = "ou_priya", "ou_emma"


def form_of(h: FeishuHarness, open_id: str):
    return h.with_button(open_id, buttons.LEAVE_FORM_SUBMIT)


async def test_the_menu_opens_the_form_and_its_submit_is_the_confirmation(feishu: FeishuHarness):
    h = feishu
    resp = await h.sim.menu(PRIYA, MENU_KEY)
    assert resp.status == 200
    await h.settle()
    [form] = form_of(h, PRIYA)
    shown = json.dumps(form.card, ensure_ascii=False)
    for label in ("Type of leave", "First day", "Last day", "Half days", "Emma Clarke"):
        assert label in shown, label

    # the same checks as the modal: a last day before the first is refused on the card
    bad = {"leave_type": "annual", "start": "2026-12-09 +0000", "end": "2026-12-07 +0000"}
    resp, answer = await h.sim.click(
        PRIYA, form.message_id, buttons.LEAVE_FORM_SUBMIT, form_value=bad
    )
    assert answer["toast"]["type"] == "error"
    assert await h.engine.my_requests("priya") == []
    [again] = form_of(h, PRIYA)  # the form, with the error under its field
    assert "⚠️" in json.dumps(again.card, ensure_ascii=False)

    good = {
        "leave_type": "annual",
        "start": "2026-12-07 +0000",
        "end": "2026-12-08 +0000",
        "halves": ["end_half"],
        "reason": "family visit",
    }
    resp, answer = await h.sim.click(
        PRIYA, form.message_id, buttons.LEAVE_FORM_SUBMIT, form_value=good
    )
    assert answer["toast"]["type"] == "success", answer
    await h.settle()
    [req] = await h.engine.my_requests("priya")
    assert (req.fields["start"], req.fields["end"], req.fields["end_half"]) == (
        "2026-12-07",
        "2026-12-08",
        True,
    )
    assert not form_of(h, PRIYA)  # the form became the request's card
    [card] = h.with_button(EMMA, cards.REQUEST_APPROVE)
    await h.sim.click(EMMA, card.message_id, cards.REQUEST_APPROVE)
    await h.settle()
    mine = json.dumps(h.standin.message(form.message_id).card, ensure_ascii=False)
    assert "Approved by Emma Clarke" in mine and "waiting" not in mine


async def test_writing_slash_leave_opens_the_form_too(feishu: FeishuHarness):
    h = feishu
    await h.sim.message(PRIYA, "/leave")
    await h.settle()
    assert len(form_of(h, PRIYA)) == 1
