"""The sandbox's Feishu half without a browser: the stand-in, the real Feishu bot and the page's API."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.feishu import cards
from bot.sandbox.feishu import API_PREFIX, card_buttons
from bot.sandbox.guard import TOKEN_HEADER
from bot.sandbox.server import Sandbox
from bot.sandbox.standins.feishu.server import TOKEN_PATH

ZHANG, WANG, LISI = "ou_zhangsan", "ou_wangfang", "ou_lisi"


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[TestClient]:
    server = TestServer(sandbox.app)
    client = TestClient(server, headers={TOKEN_HEADER: sandbox.page_token})
    await client.start_server()
    sandbox.bind(str(server.make_url("/")))
    yield client
    await sandbox.bot.tasks.drain(5)  # turns in flight still call the stand-ins on this server
    await client.close()


async def snapshot(client: TestClient, open_id: str) -> dict[str, Any]:
    resp = await client.get("/sandbox/feishu/snapshot", params={"open_id": open_id})
    assert resp.status == 200
    return await resp.json()


def button_index(card: dict[str, Any], action: str) -> int:
    """The page's number for the button whose value names `action`."""
    for i, b in enumerate(card_buttons(card)):
        if (b.get("value") or {}).get("action") == action:
            return i
    raise AssertionError(f"no {action} button in {json.dumps(card, ensure_ascii=False)[:300]}")


def with_button(messages: list[dict[str, Any]], action: str) -> list[dict[str, Any]]:
    """Messages (replies included) whose card has a button for `action`."""
    out = []
    for m in messages:
        for x in [m, *m.get("replies", [])]:
            if x["msg_type"] == "interactive" and any(
                (b.get("value") or {}).get("action") == action for b in card_buttons(x["content"])
            ):
                out.append(x)
    return out


async def click(
    client: TestClient, open_id: str, message: dict[str, Any], action: str, **extra: Any
) -> dict[str, Any]:
    index = button_index(message["content"], action)
    value = card_buttons(message["content"])[index]["value"]
    resp = await client.post(
        "/sandbox/feishu/click",
        json={
            "open_id": open_id,
            "message_id": message["message_id"],
            "button": index,
            "value": value,
            **extra,
        },
    )
    assert resp.status == 200, await resp.text()
    return await resp.json()


async def test_feishu_is_mounted_on_the_same_port_with_generated_credentials(
    client: TestClient, sandbox: Sandbox
):
    """/feishu-api/ is the open-API stand-in (its app secret generated), /feishu/events the bot."""
    fs = sandbox.feishu
    info = await (await client.get("/sandbox/info")).json()
    assert info["feishu"]["encrypted"] is True and info["feishu"]["app_id"] == fs.app_id
    assert info["feishu"]["api_url"] == f"{sandbox.base_url}{API_PREFIX}"
    assert fs.client.api_url == fs.delivery.client.api_url == f"{sandbox.base_url}{API_PREFIX}"
    token = await client.post(
        API_PREFIX + TOKEN_PATH, json={"app_id": fs.app_id, "app_secret": fs.app_secret}
    )
    assert (await token.json())["code"] == 0
    wrong = await client.post(
        API_PREFIX + TOKEN_PATH, json={"app_id": fs.app_id, "app_secret": "guess"}
    )
    assert (await wrong.json())["code"] == 10014
    unsigned = await client.post(
        "/feishu/events", json={"header": {"event_type": "im.message.receive_v1"}, "event": {}}
    )
    assert unsigned.status == 401  # an Encrypt Key is set: every push must be signed

    people = {p["id"]: p for p in await (await client.get("/sandbox/people")).json()}
    assert people["zhangsan"]["feishu_open_id"] == ZHANG
    assert people["oliver"]["feishu_open_id"] is None
    assert (await snapshot(client, ZHANG))["name"] == "张三"
    missing = await client.get("/sandbox/feishu/snapshot", params={"open_id": "ou_nobody"})
    assert missing.status == 404


async def test_a_leave_asked_on_feishu_is_submitted_approved_and_heard(
    client: TestClient, sandbox: Sandbox
):
    """张三 writes; the steps card and the confirm card come in the thread; 王芳 approves on hers."""
    standin = sandbox.feishu.standin
    resp = await client.post(
        "/sandbox/feishu/message", json={"open_id": ZHANG, "text": "明天开始请两天病假"}
    )
    sent = await resp.json()
    assert sent["ok"] and sent["root_id"] == sent["message_id"]
    await sandbox.bot.tasks.idle()
    [top] = (await snapshot(client, ZHANG))["messages"]
    assert top["from"] == ZHANG and top["content"] == {"text": "明天开始请两天病假"}
    steps, confirm = top["replies"]
    assert steps["updated"] and "✅" in json.dumps(steps["content"], ensure_ascii=False)
    assert steps["thread_id"] and steps["root_id"] == top["message_id"]

    answer = await click(client, ZHANG, confirm, cards.PENDING_CONFIRM)
    assert answer["ok"] and answer["updated"] and answer["toast"]["type"] == "success"
    assert "王芳" in answer["toast"]["content"]
    assert not with_button((await snapshot(client, ZHANG))["messages"], cards.PENDING_CONFIRM)

    await standin.wait_for_call(
        "send", lambda r: r.body.get("receive_id") == WANG, within=10
    )  # delivered by the notifier running in the sandbox, to Feishu as well as Slack
    await sandbox.standin.wait_for_call(
        "chat.postMessage",
        lambda p: p.get("channel") == sandbox.standin.dm_channel("U0WANGFANG"),
        within=10,
    )
    [approval] = with_button((await snapshot(client, WANG))["messages"], cards.REQUEST_APPROVE)
    assert approval["content"]["header"]["template"] == "blue"
    approved = await click(client, WANG, approval, cards.REQUEST_APPROVE)
    assert approved["toast"] == {"type": "success", "content": "已批准"}

    await standin.wait_for_call(
        "send",
        lambda r: r.body.get("receive_id") == ZHANG and "你的申请已批准" in r.body["content"],
        within=10,
    )
    told = json.dumps((await snapshot(client, ZHANG))["messages"], ensure_ascii=False)
    assert "你的申请已批准" in told


async def test_reject_asks_for_the_reason_in_a_card_form(client: TestClient, sandbox: Sandbox):
    """Reject turns 王芳's card into a form; its submit carries the input as form_value."""
    await client.post(
        "/sandbox/feishu/message", json={"open_id": ZHANG, "text": "明天请一天事假，去银行办事"}
    )
    await sandbox.bot.tasks.idle()
    [confirm] = with_button((await snapshot(client, ZHANG))["messages"], cards.PENDING_CONFIRM)
    await click(client, ZHANG, confirm, cards.PENDING_CONFIRM)
    await sandbox.feishu.standin.wait_for_call(
        "send", lambda r: r.body.get("receive_id") == WANG, within=10
    )
    [card] = with_button((await snapshot(client, WANG))["messages"], cards.REQUEST_APPROVE)
    asked = await click(client, WANG, card, cards.REQUEST_REJECT)
    assert asked["toast"]["type"] == "info" and asked["updated"]
    [form] = with_button((await snapshot(client, WANG))["messages"], cards.REQUEST_REJECT_SUBMIT)
    assert any(e.get("tag") == "form" for e in form["content"]["elements"])
    done = await click(
        client, WANG, form, cards.REQUEST_REJECT_SUBMIT, form_value={"reason": "年底结账"}
    )
    assert done["toast"]["type"] == "success"
    [req] = await sandbox.runtime.engine.my_requests("zhangsan")
    assert req.status.value == "rejected" and "年底结账" in json.dumps(
        req.model_dump(mode="json"), ensure_ascii=False
    )


async def test_the_feishu_change_feed_carries_each_change(client: TestClient):
    """/sandbox/feishu/events says hello, then a small record per message (no bodies)."""
    resp = await client.get("/sandbox/feishu/events")
    assert resp.headers["Content-Type"].startswith("text/event-stream")

    async def next_event() -> tuple[str, dict[str, Any]]:
        kind, data = "message", None
        while True:
            line = (await resp.content.readline()).decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and data is not None:
                return kind, data

    async with asyncio.timeout(5):
        kind, _ = await next_event()
        assert kind == "hello"
        await client.post("/sandbox/feishu/message", json={"open_id": LISI, "text": "你好"})
        _, record = await next_event()
    assert record["change"] == "message" and record["user"] == LISI and record["from"] == LISI
    assert record["message_id"] and "message" not in record and "content" not in record
    resp.close()


async def test_bad_feishu_requests_get_clear_errors(client: TestClient, sandbox: Sandbox):
    """Unknown people, empty text, someone else's message, a wrong button or a changed card."""
    post = client.post
    json_type = {"Content-Type": "application/json"}
    assert (await post("/sandbox/feishu/message", data="nope", headers=json_type)).status == 400
    assert (await post("/sandbox/feishu/message", data="nope")).status == 415
    assert (
        await post("/sandbox/feishu/message", json={"open_id": "ou_nobody", "text": "hi"})
    ).status == 404
    assert (
        await post("/sandbox/feishu/message", json={"open_id": ZHANG, "text": " "})
    ).status == 400
    await post("/sandbox/feishu/message", json={"open_id": ZHANG, "text": "明天开始请两天病假"})
    await sandbox.bot.tasks.idle()
    [confirm] = with_button((await snapshot(client, ZHANG))["messages"], cards.PENDING_CONFIRM)
    base = {"message_id": confirm["message_id"]}
    foreign = await post("/sandbox/feishu/click", json={"open_id": LISI, "button": 0, **base})
    assert foreign.status == 404
    nothing = await post("/sandbox/feishu/click", json={"open_id": ZHANG, "button": 9, **base})
    assert nothing.status == 404
    changed = await post(
        "/sandbox/feishu/click",
        json={"open_id": ZHANG, "button": 0, "value": {"action": "other"}, **base},
    )
    assert changed.status == 409
    reply = await post(
        "/sandbox/feishu/message",
        json={"open_id": ZHANG, "text": "谢谢", "root_id": confirm["message_id"]},
    )
    body = await reply.json()
    assert body["ok"] and body["root_id"] == confirm["root_id"]  # a reply goes to the thread's root


async def test_the_bot_menu_is_the_bots_and_an_unknown_item_changes_nothing(
    client: TestClient, sandbox: Sandbox
):
    """/sandbox/info lists the bot's menu items named from the catalogue; picking 请假 sends the
    leave form card; an item the bot has no answer for, or an unknown person, is refused (404)
    and nothing is sent."""
    info = await (await client.get("/sandbox/info")).json()
    assert info["feishu"]["menu"] == [
        {"key": "request_leave", "en": "Request leave", "zh": "请假"},
        {"key": "calendar_feed", "en": "Team calendar link", "zh": "团队日历链接"},
    ]
    post = client.post
    unknown = await post("/sandbox/feishu/menu", json={"open_id": ZHANG, "event_key": "lunch"})
    assert unknown.status == 404 and "lunch" in (await unknown.json())["error"]
    nobody = await post(
        "/sandbox/feishu/menu", json={"open_id": "ou_nobody", "event_key": "request_leave"}
    )
    assert nobody.status == 404
    await sandbox.bot.tasks.idle()
    assert (await snapshot(client, ZHANG))["messages"] == []
    picked = await post(
        "/sandbox/feishu/menu", json={"open_id": ZHANG, "event_key": "request_leave"}
    )
    assert (await picked.json())["ok"]
    await sandbox.bot.tasks.idle()
    [form] = (await snapshot(client, ZHANG))["messages"]
    assert form["msg_type"] == "interactive" and "请假申请" in json.dumps(form, ensure_ascii=False)
