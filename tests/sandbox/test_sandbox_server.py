"""The sandbox server without a browser: the page, the stand-in, the bot and the live feed on one port."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from bot.sandbox.guard import TOKEN_HEADER
from bot.sandbox.server import STATIC, Sandbox, describe_model, describe_store
from bot.settings import Settings

OLIVER, EMMA = "U0OLIVER", "U0EMMA"


@pytest.fixture
async def client(sandbox: Sandbox) -> AsyncIterator[TestClient]:
    server = TestServer(sandbox.app)
    client = TestClient(server, headers={TOKEN_HEADER: sandbox.page_token})
    await client.start_server()
    sandbox.bind(str(server.make_url("/")))
    yield client
    await sandbox.bot.tasks.drain(5)  # turns in flight still call the stand-in on this server
    await client.close()


def buttons(message: dict[str, Any]) -> list[str]:
    return [
        e.get("action_id")
        for b in message.get("blocks") or []
        if b.get("type") == "actions"
        for e in b.get("elements", [])
    ]


async def snapshot(client: TestClient, user: str) -> dict[str, Any]:
    resp = await client.get("/sandbox/snapshot", params={"user": user})
    assert resp.status == 200
    return await resp.json()


async def test_the_page_and_its_static_files_are_served_with_nothing_from_elsewhere(
    client: TestClient,
):
    """GET / is the page; its CSS and scripts come from /static/; no CDN, no web fonts."""
    page = await client.get("/")
    assert page.status == 200 and page.content_type == "text/html"
    html = await page.text()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert {"/static/app.js", "/static/blockkit.js", "/static/sandbox.css"} <= set(assets)
    assert all(a.startswith("/static/") for a in assets), assets
    for asset in assets:
        resp = await client.get(asset)
        assert resp.status == 200, asset
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text), path.name
        assert "@import" not in text and "@font-face" not in text
        assert ".innerHTML" not in text and "insertAdjacentHTML" not in text, path.name
    assert (await client.get("/static/../server.py")).status in (403, 404)


async def test_the_slack_standin_and_the_bot_share_the_port(client: TestClient, sandbox: Sandbox):
    """/api/ is the Web API stand-in (with the generated token), /healthz the bot's check."""
    ok = await client.post("/api/auth.test", headers={"Authorization": f"Bearer {sandbox.token}"})
    body = await ok.json()
    assert body["ok"] and body["user_id"] == sandbox.standin.workspace.bot_user_id
    wrong = await client.post("/api/auth.test", headers={"Authorization": "Bearer xoxb-nope"})
    assert (await wrong.json())["error"] == "invalid_auth"
    assert sandbox.client.base_url == f"{sandbox.base_url}/api/"
    health = await client.get("/healthz")
    assert (await health.json())["ok"] is True
    unsigned = await client.post("/slack/events", json={"type": "event_callback"})
    assert unsigned.status == 401


async def test_a_calendar_link_made_in_the_sandbox_is_served_by_it(
    client: TestClient, sandbox: Sandbox
):
    """The Home tab's and Feishu's calendar links point at the sandbox's own port, which serves the feed."""
    emma = sandbox.runtime.engine.person("emma")
    for feeds in (sandbox.bot.feeds, sandbox.feishu.bot.feeds):
        answer = await feeds.create(emma)
        url = next(w for w in answer.text.split() if "/calendar/" in w)
        assert url.startswith(sandbox.base_url + "/calendar/")
        feed = await client.get(url[len(sandbox.base_url) :])
        assert feed.status == 200 and feed.content_type == "text/calendar"


async def test_the_directory_is_registered_and_listed(client: TestClient):
    """Every person with a Slack id is a stand-in user with their locale; the picker lists them."""
    people = await (await client.get("/sandbox/people")).json()
    by_id = {p["user_id"]: p for p in people}
    assert by_id[OLIVER]["name"] == "Oliver Smith" and by_id[OLIVER]["team"] == "sales"
    # titles and teams in each language the page may speak, as the directory has them
    zhang = by_id["U0ZHANGSAN"]
    assert zhang["titles"] == {"en": "Software Engineer", "zh": "软件工程师"}
    assert zhang["teams"] == {"en": "Engineering", "zh": "研发部"}
    assert by_id["U0ZHANGSAN"]["locale"] == "zh"
    assert by_id[EMMA]["approver"] and by_id[EMMA]["pending"] == 0
    snap = await snapshot(client, "U0ZHANGSAN")
    assert snap["user"]["locale"] == "zh-CN" and snap["user"]["profile"]["title"]
    info = await (await client.get("/sandbox/info")).json()
    # the product's clock as an instant (2 Dec 09:00 UTC): the page finds today in each zone
    assert info["default_user"] == OLIVER and info["now"] == 1_796_202_000
    assert "nothing is persisted" in info["store"] and "offline planner" in info["model"]
    assert (await client.get("/sandbox/snapshot", params={"user": "U0NOBODY"})).status == 404


async def test_a_dm_from_the_page_gets_the_bots_steps_and_card_and_the_approver_is_told(
    client: TestClient, sandbox: Sandbox
):
    """A DM posted through /sandbox/message reaches the bot signed; Submit reaches the approver."""
    resp = await client.post(
        "/sandbox/message", json={"user": OLIVER, "text": "annual leave next Monday to Wednesday"}
    )
    sent = await resp.json()
    assert sent["ok"] and sent["thread_ts"] == sent["ts"]
    await sandbox.bot.tasks.idle()
    [top] = (await snapshot(client, OLIVER))["messages"]
    assert top["text"] == "annual leave next Monday to Wednesday"
    streamed = next(r for r in top["replies"] if r.get("stream"))
    assert [t["status"] for t in streamed["stream"]["tasks"]] == ["complete"]
    card = next(r for r in top["replies"] if "pending_confirm" in buttons(r))

    click = await client.post(
        "/sandbox/click",
        json={
            "user": OLIVER,
            "channel": top["channel"] if "channel" in top else sandbox.standin.dm_channel(OLIVER),
            "ts": card["ts"],
            "action_id": "pending_confirm",
        },
    )
    assert (await click.json())["ok"]
    emma_dm = sandbox.standin.dm_channel(EMMA)
    await sandbox.standin.wait_for_call(
        "chat.postMessage", lambda p: p.get("channel") == emma_dm, within=10
    )  # delivered by the notifier running in the sandbox
    [approval] = (await snapshot(client, EMMA))["messages"]
    assert "request_approve" in buttons(approval)
    people = await (await client.get("/sandbox/people")).json()
    assert next(p for p in people if p["user_id"] == EMMA)["pending"] == 1


async def test_server_sent_events_carry_each_change(client: TestClient):
    """/sandbox/events says hello, then sends a small record for each stand-in change."""
    resp = await client.get("/sandbox/events")
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
        kind, hello = await next_event()
        assert kind == "hello" and "seq" in hello
        await client.post("/sandbox/message", json={"user": OLIVER, "text": "hello"})
        _, record = await next_event()
    assert record["kind"] == "message.posted" and record["user"] == OLIVER
    assert record["seq"] > hello["seq"] and "message" not in record  # no bodies on the wire
    resp.close()


async def test_the_leave_form_returns_field_errors_and_closes_when_accepted(
    client: TestClient, sandbox: Sandbox
):
    """`/leave` from the composer opens the bot's modal; a bad range comes back on the end field."""
    await client.post("/sandbox/message", json={"user": OLIVER, "text": "/leave"})
    await sandbox.standin.wait_for_call("views.open")
    [view] = (await snapshot(client, OLIVER))["views"]
    assert view["callback_id"] == "leave_form"

    def values(start: str, end: str) -> dict[str, Any]:
        return {
            "leave_type": {
                "leave_type": {
                    "type": "static_select",
                    "selected_option": {
                        "text": {"type": "plain_text", "text": "Annual leave"},
                        "value": "annual",
                    },
                }
            },
            "start": {"start": {"type": "datepicker", "selected_date": start}},
            "end": {"end": {"type": "datepicker", "selected_date": end}},
            "halves": {"halves": {"type": "checkboxes", "selected_options": []}},
            "reason": {"reason": {"type": "plain_text_input", "value": None}},
        }

    bad = await client.post(
        "/sandbox/views/submit",
        json={"user": OLIVER, "view_id": view["id"], "values": values("2026-12-10", "2026-12-08")},
    )
    body = await bad.json()
    assert body["ok"] is False and "end" in body["errors"]
    assert len((await snapshot(client, OLIVER))["views"]) == 1
    good = await client.post(
        "/sandbox/views/submit",
        json={"user": OLIVER, "view_id": view["id"], "values": values("2026-12-08", "2026-12-10")},
    )
    assert (await good.json())["ok"] is True
    assert (await snapshot(client, OLIVER))["views"] == []
    [req] = await sandbox.runtime.engine.my_requests("oliver")
    assert req.derived["working_days"] == 3


async def test_a_command_answer_is_shown_only_to_the_person(client: TestClient, sandbox: Sandbox):
    """`/leave <text>` is acked with a line Slack shows as ephemeral; unknown commands are refused."""
    await client.post(
        "/sandbox/message", json={"user": OLIVER, "text": "/leave annual leave next Monday"}
    )
    await client.post("/sandbox/message", json={"user": OLIVER, "text": "/lunch"})
    await sandbox.bot.tasks.idle()
    snap = await snapshot(client, OLIVER)
    said = [e["text"] for e in snap["ephemerals"]]
    assert any("DM" in s for s in said) and any("/lunch" in s for s in said)
    assert (await snapshot(client, EMMA))["ephemerals"] == []
    dismissed = await client.post(
        "/sandbox/ephemeral/dismiss", json={"user": OLIVER, "ts": snap["ephemerals"][0]["ts"]}
    )
    assert (await dismissed.json())["ok"]


async def test_an_unknown_command_is_refused_in_the_persons_language(client: TestClient):
    """Slack answers an unknown command in its client's language: Chinese for 张三."""
    await client.post("/sandbox/message", json={"user": "U0ZHANGSAN", "text": "/lunch"})
    said = [e["text"] for e in (await snapshot(client, "U0ZHANGSAN"))["ephemerals"]]
    assert said == [
        "`/lunch` 不是有效的命令。在 Slack 中，以“/”开头的消息都会被当作命令。此沙盒支持 `/leave`。"
    ]


async def test_bad_requests_get_clear_errors(client: TestClient):
    json_type = {"Content-Type": "application/json"}
    assert (await client.post("/sandbox/message", data="nope", headers=json_type)).status == 400
    assert (await client.post("/sandbox/message", data="nope")).status == 415
    empty = await client.post("/sandbox/message", json={"user": OLIVER, "text": "  "})
    assert empty.status == 400 and "text" in (await empty.json())["error"]
    missing = await client.post(
        "/sandbox/click", json={"user": OLIVER, "channel": "D0NONE", "ts": "1.2", "action_id": "x"}
    )
    assert missing.status == 404
    foreign = await client.post(
        "/sandbox/views/submit", json={"user": OLIVER, "view_id": "V0NOPE", "values": {}}
    )
    assert foreign.status == 404


def test_the_startup_line_says_where_state_lives_and_who_plans():
    plain = Settings(_env_file=None, redis_url=None, llm_base_url=None, llm_model=None)
    assert describe_store(plain).startswith("in-process store: nothing is persisted (--store")
    assert describe_model(plain).startswith("offline planner")
    redis = Settings(_env_file=None, redis_url="redis://user:secret@db:6379/0")
    assert describe_store(redis) == "Redis at redis://***@db:6379/0"
    llm = Settings(_env_file=None, llm_base_url="http://127.0.0.1:11434/v1", llm_model="qwen2.5")
    assert "qwen2.5" in describe_model(llm) and "fallback" in describe_model(llm)
