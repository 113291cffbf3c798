"""An end-to-end Slack harness: the real Bolt app over HTTP, the real AsyncWebClient, the local stand-in.

Events, commands and interactions are signed exactly as Slack signs them and posted to
/slack/events; what the bot sends is read back from the stand-in.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp.test_utils import TestServer
from slack_sdk.signature import SignatureVerifier

from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.model import ChatModel
from agent.planner import OfflinePlanner
from bot.notifier import OutboxWorker
from bot.runtime import Runtime
from bot.serve import NOTIFIER_GROUP, web_app
from bot.settings import Settings
from bot.slack.app import SlackBot
from bot.slack.client import make_client
from bot.slack.delivery import SlackDelivery
from bot.slack.standin import SlackStandIn
from workflow.engine import Engine
from workflow.outbox import Outbox

SECRET = "8f742231b10e8888abcd99yyyzzz85a5"
TOKEN = "xoxb-test-token"
TEAM = "T0ACME"


@dataclass
class SlackHarness:
    """The bot under test with its stand-in, a signed-request poster and the notifier."""

    engine: Engine
    standin: SlackStandIn
    bot: SlackBot
    server: TestServer
    http: aiohttp.ClientSession
    worker: OutboxWorker
    event_counter: int = 0
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return str(self.server.make_url("/slack/events"))

    def signed_headers(self, body: str, ts: int | None = None, **extra: str) -> dict[str, str]:
        ts = int(time.time()) if ts is None else ts
        signature = SignatureVerifier(SECRET).generate_signature(timestamp=str(ts), body=body)
        return {"X-Slack-Request-Timestamp": str(ts), "X-Slack-Signature": signature, **extra}

    async def post(
        self, body: str, content_type: str, headers: dict[str, str] | None = None
    ) -> aiohttp.ClientResponse:
        hdrs = headers if headers is not None else self.signed_headers(body)
        resp = await self.http.post(
            self.url, data=body.encode(), headers={**hdrs, "Content-Type": content_type}
        )
        await resp.read()
        return resp

    async def dm(
        self,
        user: str,
        text: str,
        thread_ts: str | None = None,
        *,
        event_id: str | None = None,
        retry: int | None = None,
    ) -> tuple[aiohttp.ClientResponse, dict[str, Any]]:
        """The person types a DM (it appears in the stand-in) and Slack delivers the message event."""
        message = self.standin.post_user_message(user, text, thread_ts=thread_ts)
        self.event_counter += 1
        event = {
            "type": "message",
            "channel": message["channel"],
            "user": user,
            "text": text,
            "ts": message["ts"],
            "event_ts": message["ts"],
            "channel_type": "im",
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        envelope = {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": "A0APP",
            "type": "event_callback",
            "event_id": event_id or f"Ev{self.event_counter:08d}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": TEAM, "user_id": "U0BOT", "is_bot": True}],
            "event": event,
        }
        body = json.dumps(envelope)
        extra = (
            {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
            if retry
            else {}
        )
        resp = await self.post(body, "application/json", self.signed_headers(body, **extra))
        return resp, envelope

    async def redeliver(self, envelope: dict[str, Any], retry: int) -> aiohttp.ClientResponse:
        body = json.dumps(envelope)
        return await self.post(
            body,
            "application/json",
            self.signed_headers(
                body, **{"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_timeout"}
            ),
        )

    async def command(self, user: str, text: str = "") -> aiohttp.ClientResponse:
        trigger = self.standin.issue_trigger_id(user)
        form = {
            "token": "legacy",
            "team_id": TEAM,
            "team_domain": "acme",
            "channel_id": self.standin.dm_channel(user),
            "channel_name": "directmessage",
            "user_id": user,
            "user_name": user,
            "command": "/leave",
            "text": text,
            "api_app_id": "A0APP",
            "response_url": "https://hooks.example/commands/1",
            "trigger_id": trigger,
        }
        return await self.post(urllib.parse.urlencode(form), "application/x-www-form-urlencoded")

    async def interact(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        body = urllib.parse.urlencode({"payload": json.dumps(payload)})
        return await self.post(body, "application/x-www-form-urlencoded")

    async def click(
        self,
        user: str,
        message: dict[str, Any],
        action_id: str,
        *,
        view: dict[str, Any] | None = None,
    ) -> aiohttp.ClientResponse:
        """Click the button `action_id` on a message the stand-in holds (its value comes from the blocks)."""
        value = None
        for block in message.get("blocks", []):
            for el in block.get("elements", []) if block.get("type") == "actions" else []:
                if el.get("action_id") == action_id:
                    value = el.get("value")
        assert value is not None, (
            f"no button {action_id} on the message: {json.dumps(message)[:500]}"
        )
        payload: dict[str, Any] = {
            "type": "block_actions",
            "user": {"id": user, "team_id": TEAM},
            "team": {"id": TEAM},
            "api_app_id": "A0APP",
            "trigger_id": self.standin.issue_trigger_id(user),
            "container": {
                "type": "message",
                "message_ts": message["ts"],
                "channel_id": message["channel"],
            },
            "channel": {"id": message["channel"]},
            "message": message,
            "actions": [
                {
                    "action_id": action_id,
                    "block_id": "b",
                    "value": value,
                    "type": "button",
                    "action_ts": str(time.time()),
                }
            ],
        }
        return await self.interact(payload)

    async def submit_view(
        self, user: str, view: dict[str, Any], values: dict[str, Any]
    ) -> aiohttp.ClientResponse:
        payload = {
            "type": "view_submission",
            "user": {"id": user, "team_id": TEAM},
            "team": {"id": TEAM},
            "api_app_id": "A0APP",
            "view": {**view, "state": {"values": values}},
        }
        return await self.interact(payload)

    async def settle(self) -> None:
        """Wait for background turns, then deliver every outbox event (the worker's job)."""
        await self.bot.tasks.idle()
        while await self.worker.run_once():
            pass

    def dm_messages(self, user: str) -> list[dict[str, Any]]:
        """The user's DM with the bot, each message (and reply) tagged with its channel."""
        snap = self.standin.snapshot(user)
        channel = snap["channel"]
        out = []
        for m in snap["messages"]:
            replies = [{**r, "channel": channel} for r in m.get("replies", [])]
            out.append({**m, "channel": channel, "replies": replies})
        return out

    def thread(self, user: str, thread_ts: str) -> list[dict[str, Any]]:
        for m in self.dm_messages(user):
            if m["ts"] == thread_ts:
                return m.get("replies", [])
        return []


async def start_harness(
    engine: Engine, redis, model: ChatModel | None = None, *, streaming: bool = True
) -> SlackHarness:
    standin = SlackStandIn(token=TOKEN)
    await standin.start()
    for p in engine.directory:
        if p.slack_user_id:
            standin.add_user(
                p.slack_user_id,
                p.id,
                p.name,
                p.email,
                p.timezone,
                "zh-CN" if p.locale == "zh" else "en-US",
            )
    memory = ThreadMemory(redis)
    agent = Agent(model or OfflinePlanner(), engine, memory, fallback=OfflinePlanner())
    runtime = Runtime(Settings(), redis, engine, memory, agent, agent.model)
    client = make_client(TOKEN, standin.api_url)
    bot = SlackBot(runtime, client, SECRET, streaming=streaming)
    server = TestServer(web_app(bot))
    await server.start_server()
    http = aiohttp.ClientSession()
    worker = OutboxWorker(
        Outbox(redis, engine.keys, NOTIFIER_GROUP),
        [SlackDelivery(engine, client, bot.identity)],
        "test",
        reclaim_idle_ms=60_000,
    )
    await worker.outbox.ensure_group()
    return SlackHarness(engine, standin, bot, server, http, worker)


async def stop_harness(h: SlackHarness) -> None:
    await h.bot.tasks.drain(5)
    await h.http.close()
    await h.server.close()
    await h.standin.stop()
