"""The Feishu bot end to end: encrypted, signed callbacks in, open-API calls out, the engine deciding between."""

from __future__ import annotations

import json
import time

from bot.feishu import cards
from tests.feishu.harness import FeishuHarness

ZHANG, WANG, LISI, EMMA, PRIYA = "ou_zhangsan", "ou_wangfang", "ou_lisi", "ou_emma", "ou_priya"


def card_json(message) -> str:
    return json.dumps(message.card, ensure_ascii=False)


async def ask_and_submit(h: FeishuHarness, open_id: str, text: str) -> str:
    resp, _ = await h.sim.message(open_id, text)
    assert resp.status == 200
    await h.settle()
    [confirm] = h.with_button(open_id, cards.PENDING_CONFIRM)
    resp, answer = await h.sim.click(open_id, confirm.message_id, cards.PENDING_CONFIRM)
    assert resp.status == 200 and answer["toast"]["type"] == "success", answer
    await h.settle()
    person = h.engine.directory.by_feishu_id(open_id)
    [req] = await h.engine.my_requests(person.id)
    return req.id


async def test_a_sick_leave_from_message_to_approval(feishu: FeishuHarness):
    """张三 asks in Chinese, submits on the card; 王芳 approves on hers; 张三 is told; cards close."""
    h = feishu
    resp, envelope = await h.sim.message(ZHANG, "明天开始请两天病假")
    assert resp.status == 200
    await h.settle()
    asked = envelope["event"]["message"]["message_id"]
    replies = [m for m in h.chat(ZHANG) if m.sender_type == "app"]
    assert replies and all(m.root_id == asked and m.thread_id for m in replies)
    steps = replies[0]
    assert steps.updated and "✅" in card_json(steps) and h.standin.calls("patch")
    [confirm] = h.with_button(ZHANG, cards.PENDING_CONFIRM)
    assert "病假" in card_json(confirm) and "王芳" in card_json(confirm)
    assert "2 个工作日" in card_json(confirm)
    assert "thread" in h.sim.button(confirm.message_id, cards.PENDING_CONFIRM)["value"]

    resp, answer = await h.sim.click(ZHANG, confirm.message_id, cards.PENDING_CONFIRM)
    assert resp.status == 200
    assert answer["toast"]["type"] == "success" and answer["card"]["type"] == "raw"
    assert "王芳" in answer["toast"]["content"]
    assert not h.with_button(ZHANG, cards.PENDING_CONFIRM)  # the buttons are gone
    await h.settle()
    [req] = await h.engine.my_requests("zhangsan")
    assert req.status.value == "pending"

    [approver_card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    shown = card_json(approver_card)
    assert "张三" in shown and "病假" in shown and "直属主管审批" in shown and "1/1" not in shown
    assert "同组同期请假" in shown and "剩余" in shown
    approve = h.sim.button(approver_card.message_id, cards.REQUEST_APPROVE)
    assert approve["confirm"]["title"]["content"]
    resp, answer = await h.sim.click(WANG, approver_card.message_id, cards.REQUEST_APPROVE)
    assert answer["toast"] == {"type": "success", "content": "已批准"}
    assert "批准" in json.dumps(answer["card"], ensure_ascii=False)
    await h.settle()

    final = await h.engine.get_request(req.id, "zhangsan")
    assert final.status.value == "approved"
    assert not h.with_button(WANG, cards.REQUEST_APPROVE)
    told = h.said(ZHANG)
    # the submitted notice, redrawn, heads with where the request is now, not "已提交给 王芳"
    assert "你的申请已提交给 王芳" not in told and "王芳 已于" in told, told
    assert "你的申请已批准。" in told, told
    assert all(r.ok for r in h.standin.requests), [
        r.response for r in h.standin.requests if not r.ok
    ]
    assert len(h.standin.calls("token")) == 1  # one token, cached
    sends = h.standin.calls("send")
    assert len({r.body["uuid"] for r in sends}) == len(sends)


async def test_a_rejection_asks_for_a_reason_on_the_card(feishu: FeishuHarness):
    """Reject turns the card into a reason form; an empty reason is refused; with one the requester hears why."""
    h = feishu
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    _, answer = await h.sim.click(WANG, card.message_id, cards.REQUEST_REJECT)
    assert answer["card"]["data"]["elements"]
    assert h.with_button(WANG, cards.REQUEST_REJECT_SUBMIT)  # the form replaced the card
    _, refused = await h.sim.click(
        WANG, card.message_id, cards.REQUEST_REJECT_SUBMIT, form_value={"reason": "  "}
    )
    assert refused["toast"]["type"] == "error" and "card" not in refused
    _, answer = await h.sim.click(
        WANG,
        card.message_id,
        cards.REQUEST_REJECT_SUBMIT,
        form_value={"reason": "年底结账，人手不够"},
    )
    assert answer["toast"]["type"] == "success"
    await h.settle()
    assert (await h.engine.get_request(req_id, "zhangsan")).status.value == "rejected"
    told = h.said(ZHANG)
    assert "王芳 驳回了你的申请" in told and "年底结账，人手不够" in told
    assert not h.with_button(WANG, cards.REQUEST_APPROVE)


async def test_back_from_the_reason_form_restores_the_approval_card(feishu: FeishuHarness):
    """Back on the reason form shows the live approval card again; nothing is decided."""
    h = feishu
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    await h.sim.click(WANG, card.message_id, cards.REQUEST_REJECT)
    _, answer = await h.sim.click(WANG, card.message_id, cards.REQUEST_BACK)
    assert answer["toast"]["type"] == "info"
    assert h.with_button(WANG, cards.REQUEST_APPROVE)
    assert (await h.engine.get_request(req_id, "zhangsan")).status.value == "pending"


async def test_a_wrong_operator_gets_an_error_toast_and_nothing_changes(feishu: FeishuHarness):
    """李四 clicking 王芳's Approve (a forwarded card) is refused by the engine; the card stays live."""
    h = feishu
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    before_card, before_outbox = card.content, await h.outbox_len()
    resp, answer = await h.sim.click(LISI, card.message_id, cards.REQUEST_APPROVE)
    assert resp.status == 200
    assert answer["toast"]["type"] == "error" and "card" not in answer
    await h.settle()
    assert await h.outbox_len() == before_outbox
    assert h.standin.message(card.message_id).content == before_card
    req = await h.engine.get_request(req_id, "zhangsan")
    assert req.status.value == "pending" and req.current_step == 0


async def test_the_requester_cannot_approve_their_own_request(feishu: FeishuHarness):
    """张三 clicking Approve on his own request's card is refused with the engine's reason."""
    h = feishu
    await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    _, answer = await h.sim.click(ZHANG, card.message_id, cards.REQUEST_APPROVE)
    assert (
        answer["toast"]["type"] == "error" and "自己的申请" in answer["toast"]["content"]
    )  # 张三 reads Chinese


async def test_someone_else_cannot_confirm_a_draft(feishu: FeishuHarness):
    """Only the requester can click Submit on their confirm card; another person's click changes nothing."""
    h = feishu
    await h.sim.message(ZHANG, "明天请一天事假，去银行办事")
    await h.settle()
    [confirm] = h.with_button(ZHANG, cards.PENDING_CONFIRM)
    _, answer = await h.sim.click(LISI, confirm.message_id, cards.PENDING_CONFIRM)
    assert answer["toast"]["type"] == "error" and "张三" in answer["toast"]["content"]
    assert await h.engine.my_requests("zhangsan") == []
    assert await h.outbox_len() == 0


async def test_cancel_on_the_confirm_card_sends_nothing(feishu: FeishuHarness):
    """Cancel closes the confirm card, and no request is submitted."""
    h = feishu
    await h.sim.message(ZHANG, "明天请一天事假，去银行办事")
    await h.settle()
    [confirm] = h.with_button(ZHANG, cards.PENDING_CONFIRM)
    _, answer = await h.sim.click(ZHANG, confirm.message_id, cards.PENDING_CANCEL)
    assert answer["toast"]["type"] == "info" and "已取消" in answer["toast"]["content"]
    assert not h.with_button(ZHANG, cards.PENDING_CONFIRM)
    assert await h.outbox_len() == 0


async def test_a_double_click_is_recorded_once(feishu: FeishuHarness):
    """Two clicks on Approve (the second on a stale copy) make one decision and both answer success."""
    h = feishu
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    await h.sim.click(WANG, card.message_id, cards.REQUEST_APPROVE, apply=False)
    _, again = await h.sim.click(WANG, card.message_id, cards.REQUEST_APPROVE)
    assert again["toast"]["type"] == "success"
    await h.settle()
    events = await h.engine.store.redis.xrange(h.engine.keys.outbox)
    assert [e[1]["type"] for e in events].count("request_approved") == 1
    assert (await h.engine.get_request(req_id, "zhangsan")).status.value == "approved"


async def test_a_replayed_event_runs_one_turn(feishu: FeishuHarness):
    """Feishu pushing the same event_id three times gets 200 each time and one answer."""
    h = feishu
    resp, envelope = await h.sim.message(ZHANG, "明天开始请两天病假")
    assert resp.status == 200
    for _ in range(2):
        again = await h.sim.redeliver(envelope)
        assert again.status == 200
    await h.settle()
    assert len(h.with_button(ZHANG, cards.PENDING_CONFIRM)) == 1
    assert len([m for m in h.chat(ZHANG) if m.sender_type == "app"]) == 2  # steps + confirm


async def test_a_forged_signature_is_refused_and_nothing_happens(feishu: FeishuHarness):
    """A wrong X-Lark-Signature, or a stale timestamp, gets 401 and no turn runs."""
    h = feishu
    m = h.standin.user_says(ZHANG, "明天请一天事假，去银行办事")
    payload = h.sim.envelope(
        "im.message.receive_v1",
        {
            "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "user"},
            "message": {
                "message_id": m.message_id,
                "chat_id": m.chat_id,
                "chat_type": "p2p",
                "message_type": "text",
                "content": m.content,
            },
        },
    )
    body = h.sim.seal(payload)
    forged = {**h.sim.signed_headers(body), "X-Lark-Signature": "0" * 64}
    assert (await h.sim.post(body, forged)).status == 401
    stale = h.sim.signed_headers(body, ts=int(time.time()) - 3600)
    assert (await h.sim.post(body, stale)).status == 401
    unsigned = {"Content-Type": "application/json"}
    assert (await h.sim.post(body, unsigned)).status == 401
    await h.settle()
    assert h.standin.calls("reply") == [] and h.standin.calls("send") == []
    # the real one still goes through: nothing was marked seen by the forgeries
    assert (await h.sim.deliver(payload)).status == 200
    await h.settle()
    assert h.with_button(ZHANG, cards.PENDING_CONFIRM)


async def test_a_forged_card_click_is_refused(feishu: FeishuHarness):
    """A card callback with a bad signature is refused before the engine sees it."""
    h = feishu
    await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    button = h.sim.button(card.message_id, cards.REQUEST_APPROVE)
    payload = h.sim.envelope(
        "card.action.trigger",
        {
            "operator": {"open_id": WANG},
            "action": {"value": button["value"], "tag": "button"},
            "context": {"open_message_id": card.message_id},
        },
    )
    body = h.sim.seal(payload)
    headers = {**h.sim.signed_headers(body), "X-Lark-Signature": "f" * 64}
    assert (await h.sim.post(body, headers)).status == 401
    assert [r.status.value for r in await h.engine.my_requests("zhangsan")] == ["pending"]


async def test_url_verification_encrypted(feishu: FeishuHarness):
    """With an Encrypt Key the challenge arrives encrypted (unsigned) and is answered in plain JSON."""
    resp = await feishu.sim.url_verification("challenge-enc")
    assert resp.status == 200 and await resp.json() == {"challenge": "challenge-enc"}


async def test_url_verification_plain_and_a_wrong_token(feishu_plain: FeishuHarness):
    """Without a key the challenge is plain JSON; a wrong verification token is refused."""
    h = feishu_plain
    resp = await h.sim.url_verification("challenge-plain")
    assert resp.status == 200 and await resp.json() == {"challenge": "challenge-plain"}
    body = json.dumps({"challenge": "x", "token": "not-ours", "type": "url_verification"})
    assert (await h.sim.post(body)).status == 401


async def test_plain_bodies_work_with_the_verification_token(feishu_plain: FeishuHarness):
    """Without an Encrypt Key, events with the right token run; a wrong header.token does not."""
    h = feishu_plain
    m = h.standin.user_says(ZHANG, "明天请一天事假，去银行办事")
    event = {
        "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "user"},
        "message": {
            "message_id": m.message_id,
            "chat_id": m.chat_id,
            "chat_type": "p2p",
            "message_type": "text",
            "content": m.content,
        },
    }
    bad = h.sim.envelope("im.message.receive_v1", event)
    bad["header"]["token"] = "forged"
    assert (await h.sim.post(json.dumps(bad))).status == 401
    await h.settle()
    assert h.standin.calls("reply") == []
    assert (await h.sim.deliver(h.sim.envelope("im.message.receive_v1", event))).status == 200
    await h.settle()
    assert h.with_button(ZHANG, cards.PENDING_CONFIRM)


async def test_an_encrypted_body_without_a_key_is_refused(feishu_plain: FeishuHarness):
    """An `encrypt` body when no Encrypt Key is configured is refused like any forgery, not a crash."""
    resp = await feishu_plain.sim.post(
        json.dumps({"encrypt": "P37w+VZImNgPEO1RBhJ6RtKl7n6zymIbEG1pReEzghk="})
    )
    assert resp.status == 401


async def test_someone_not_in_the_directory_is_told_politely(feishu: FeishuHarness):
    """An open_id the directory does not know gets a reply saying so and who to ask, and nothing else."""
    h = feishu
    h.standin.add_user("ou_stranger", "路人")
    await h.sim.message("ou_stranger", "我想请假")
    await h.settle()
    said = h.said("ou_stranger")
    assert "不在审批通讯录" in said and "刘洋" in said
    assert await h.outbox_len() == 0


async def test_a_follow_up_in_the_thread_continues_the_conversation(feishu: FeishuHarness):
    """A reply in the bot's thread is the same conversation: answered in that thread."""
    h = feishu
    _, envelope = await h.sim.message(EMMA, "what is my balance?")
    await h.settle()
    root = envelope["event"]["message"]["message_id"]
    await h.sim.message(EMMA, "and my requests?", root_id=root)
    await h.settle()
    bot_msgs = [m for m in h.chat(EMMA) if m.sender_type == "app"]
    assert len(bot_msgs) >= 2 and {m.root_id for m in bot_msgs} == {root}


async def test_people_not_on_feishu_are_left_to_other_platforms(feishu: FeishuHarness):
    """Oliver (Slack only) asks on Slack; Emma, on Feishu, gets the approver card; Oliver gets nothing here."""
    from tests.helpers import submitted

    h = feishu
    req = await submitted(
        h.engine, "oliver", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    await h.settle()
    [card] = h.with_button(EMMA, cards.REQUEST_APPROVE)
    assert "Oliver Smith" in card_json(card) and "Annual leave" in card_json(card)
    assert all(r.body.get("receive_id") == EMMA for r in h.standin.calls("send"))
    await h.sim.click(EMMA, card.message_id, cards.REQUEST_APPROVE)
    await h.settle()
    assert (await h.engine.get_request(req.id, "oliver")).status.value == "approved"


async def test_a_rate_limited_send_is_retried_and_sent_once(feishu: FeishuHarness):
    """Feishu's 429 / 99991400 on the approver card: the client backs off and the card arrives once."""
    h = feishu
    h.standin.fail_next("send", reset_s=0, times=2)
    await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    assert len(h.with_button(WANG, cards.REQUEST_APPROVE)) == 1
    assert [r.status for r in h.standin.calls("send")][:3] == [429, 429, 200]


async def test_a_redelivered_outbox_event_is_one_message(feishu: FeishuHarness):
    """A delivery whose key was lost (a crash after the send) resends the same uuid: still one card."""
    from workflow.keys import delivery

    h = feishu
    await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    events = await h.engine.store.redis.xrange(h.engine.keys.outbox)
    from workflow.outbox import OutboxEvent

    assigned = next(
        OutboxEvent.from_entry(i, f, 2) for i, f in events if f["type"] == "task_assigned"
    )
    await h.engine.store.redis.delete(
        delivery("feishu", h.engine.keys.org, assigned.id, "wangfang")
    )
    await h.delivery.deliver(assigned)
    assert len(h.with_button(WANG, cards.REQUEST_APPROVE)) == 1


async def test_a_slow_click_answers_in_time_and_updates_the_card_later(feishu: FeishuHarness):
    """When the engine takes longer than the budget, Feishu gets a toast at once and the card is PATCHed."""
    h = feishu
    req_id = await ask_and_submit(h, ZHANG, "明天请一天事假，去银行办事")
    [card] = h.with_button(WANG, cards.REQUEST_APPROVE)
    h.bot.action_budget_s = 0
    _, answer = await h.sim.click(WANG, card.message_id, cards.REQUEST_APPROVE)
    assert answer["toast"]["type"] == "info" and "card" not in answer
    await h.settle()
    assert (await h.engine.get_request(req_id, "zhangsan")).status.value == "approved"
    assert not h.with_button(WANG, cards.REQUEST_APPROVE)


async def test_group_chats_and_bot_messages_are_ignored(feishu: FeishuHarness):
    """Only one-to-one chats with a person start turns: a group message or an app's message does not."""
    h = feishu
    m = h.standin.user_says(ZHANG, "明天请一天事假，去银行办事")
    base = {
        "message_id": m.message_id,
        "chat_id": m.chat_id,
        "message_type": "text",
        "content": m.content,
    }
    group = {
        "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "user"},
        "message": {**base, "chat_type": "group"},
    }
    app = {
        "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "app"},
        "message": {**base, "chat_type": "p2p"},
    }
    for event in (group, app):
        assert (await h.sim.deliver(h.sim.envelope("im.message.receive_v1", event))).status == 200
    await h.settle()
    assert h.standin.calls("reply") == []


async def test_a_picture_gets_a_short_answer(feishu: FeishuHarness):
    """A non-text message is answered with what the bot can read, and no turn runs."""
    h = feishu
    m = h.standin.user_says(ZHANG, "x")
    event = {
        "sender": {"sender_id": {"open_id": ZHANG}, "sender_type": "user"},
        "message": {
            "message_id": m.message_id,
            "chat_id": m.chat_id,
            "chat_type": "p2p",
            "message_type": "image",
            "content": '{"image_key":"img_1"}',
        },
    }
    await h.sim.deliver(h.sim.envelope("im.message.receive_v1", event))
    await h.settle()
    assert "只能读取文字消息" in h.said(ZHANG)
    assert await h.engine.my_requests("zhangsan") == []


def test_message_text_reads_text_and_rich_text_without_mentions():
    """Text and post messages give their words; @mention placeholders are dropped."""
    from bot.feishu.app import message_text

    text = {
        "message_type": "text",
        "content": json.dumps({"text": "@_user_1 明天请假"}),
        "mentions": [{"key": "@_user_1", "name": "审批助手"}],
    }
    assert message_text(text) == "明天请假"
    post = {
        "message_type": "post",
        "content": json.dumps(
            {
                "title": "请假",
                "content": [
                    [{"tag": "text", "text": "明天"}, {"tag": "at"}],
                    [{"tag": "text", "text": "两天"}],
                ],
            },
            ensure_ascii=False,
        ),
    }
    assert message_text(post) == "请假\n明天\n两天"
    assert message_text({"message_type": "image", "content": "{}"}) is None


async def test_a_balance_asked_for_is_read_once_on_the_steps_card(feishu: FeishuHarness):
    """张三's "我还有几天年假": the steps card says the balance was checked and gives the days
    once, in the answer, not again as the step's line."""
    h = feishu
    resp, _ = await h.sim.message(ZHANG, "我还有几天年假")
    assert resp.status == 200
    await h.settle()
    [steps] = [m for m in h.chat(ZHANG) if m.sender_type == "app"]
    shown = card_json(steps)
    assert "查询你的假期余额" in shown and "✅" in shown
    assert shown.count("年假：剩余 10 天") == 1, shown
