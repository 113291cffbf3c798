"""An end-to-end Slack harness: the real Bolt app over HTTP, the real AsyncWebClient, the local stand-in.

Events, commands and interactions are built and signed exactly as Slack does it by
`bot.sandbox.slack_simulator.SlackSimulator` (the sandbox uses the same one) and posted to
/slack/events; what the bot sends is read back from the stand-in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import aiohttp
from aiohttp import web

from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.model import ChatModel
from agent.planner import OfflinePlanner
from bot.notifier import OutboxWorker
from bot.runtime import Runtime
from bot.sandbox.slack_simulator import SlackSimulator
from bot.sandbox.standins.slack.server import SlackStandIn
from bot.serve import NOTIFIER_GROUP, listen, make_app
from bot.settings import Settings
from bot.slack.app import SlackBot
from bot.slack.client import make_client
from bot.slack.delivery import SlackDelivery
from bot.slack.platform import SlackPlatform
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
    server: web.AppRunner
    http: aiohttp.ClientSession
    worker: OutboxWorker
    sim: SlackSimulator
    sent: list[dict[str, Any]] = field(default_factory=list)

    @property
    def url(self) -> str:
        return self.sim.events_url

    @property
    def port(self) -> int:
        [site] = self.server.sites
        return site.port  # type: ignore[attr-defined]  # (serve's FrontSite)

    def make_url(self, path: str) -> str:
        return self.url.removesuffix("/slack/events") + path

    @property
    def event_counter(self) -> int:
        return self.sim.event_counter

    def signed_headers(self, body: str, ts: int | None = None, **extra: str) -> dict[str, str]:
        return self.sim.signed_headers(body, ts, **extra)

    async def post(
        self, body: str, content_type: str, headers: dict[str, str] | None = None
    ) -> aiohttp.ClientResponse:
        return await self.sim.post(body, content_type, headers)

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
        return await self.sim.dm(user, text, thread_ts, event_id=event_id, retry=retry)

    async def redeliver(self, envelope: dict[str, Any], retry: int) -> aiohttp.ClientResponse:
        return await self.sim.redeliver(envelope, retry)

    async def command(self, user: str, text: str = "") -> aiohttp.ClientResponse:
        return await self.sim.command(user, text)

    async def interact(self, payload: dict[str, Any]) -> aiohttp.ClientResponse:
        return await self.sim.interact(payload)

    async def click(
        self,
        user: str,
        message: dict[str, Any],
        action_id: str,
        *,
        view: dict[str, Any] | None = None,
    ) -> aiohttp.ClientResponse:
        """Click the button `action_id` on a message the stand-in holds (its value comes from the blocks)."""
        return await self.sim.click(user, message, action_id, view=view)

    async def submit_view(
        self, user: str, view: dict[str, Any], values: dict[str, Any]
    ) -> aiohttp.ClientResponse:
        return await self.sim.submit_view(user, view, values)

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
    platform = SlackPlatform(bot)
    server = await listen(make_app(runtime, [platform], bot.tasks), [platform], "127.0.0.1", 0)
    http = aiohttp.ClientSession()
    [site] = server.sites
    url = f"http://127.0.0.1:{site.port}/slack/events"  # served as serve serves it
    sim = SlackSimulator(standin, url, SECRET, team_id=TEAM, session=http)
    worker = OutboxWorker(
        Outbox(redis, engine.keys, NOTIFIER_GROUP),
        [SlackDelivery(engine, client, bot.identity, bot.cards)],
        "test",
        reclaim_idle_ms=60_000,
    )
    await worker.outbox.ensure_group()
    return SlackHarness(engine, standin, bot, server, http, worker, sim)


async def stop_harness(h: SlackHarness) -> None:
    await h.bot.tasks.drain(5)
    await h.http.close()
    await h.server.cleanup()
    await h.standin.stop()
