"""An end-to-end Feishu harness: the bot's aiohttp handler over HTTP, the real FeishuClient, the stand-in.

Events and card clicks are built, encrypted and signed by `FeishuSimulator` exactly as
Feishu pushes them, and posted to /feishu/events; what the bot sends is read back from the
stand-in; the notifier's Feishu delivery runs on demand (`settle`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import aiohttp
from aiohttp import web
from aiohttp.test_utils import TestServer

from agent.loop import Agent
from agent.memory import ThreadMemory
from agent.model import ChatModel
from agent.planner import OfflinePlanner
from bot import compose
from bot.feishu import cards
from bot.feishu.app import FeishuBot
from bot.feishu.client import FeishuClient
from bot.feishu.delivery import FeishuDelivery
from bot.feishu.platform import FeishuPlatform
from bot.notifier import OutboxWorker
from bot.runtime import Runtime
from bot.sandbox.feishu_simulator import FeishuSimulator
from bot.sandbox.standins.feishu.server import FeishuStandIn, StoredMessage
from bot.settings import Settings
from workflow.engine import Engine
from workflow.outbox import Outbox

APP_ID = "cli_test_app"
APP_SECRET = "test-app-secret"
VERIFICATION_TOKEN = "v-token-of-the-test-app"
ENCRYPT_KEY = "test key"
NOTIFIER_GROUP = "notifier"


@dataclass
class FeishuHarness:
    """The bot under test, its stand-in, the simulator that plays Feishu, and the notifier."""

    engine: Engine
    standin: FeishuStandIn
    bot: FeishuBot
    server: TestServer
    http: aiohttp.ClientSession
    sim: FeishuSimulator
    worker: OutboxWorker
    delivery: FeishuDelivery

    async def settle(self) -> None:
        """Wait for background turns and clicks, then deliver every outbox event (the worker's job)."""
        await self.bot.tasks.idle()
        while await self.worker.run_once():
            pass
        await self.bot.tasks.idle()

    def chat(self, open_id: str) -> list[StoredMessage]:
        return self.standin.chat(open_id)

    def with_button(self, open_id: str, action: str) -> list[StoredMessage]:
        """The person's messages whose card has a button for `action`, oldest first."""
        return [
            m
            for m in self.chat(open_id)
            if m.card
            and any(
                (b.get("value") or {}).get("action") == action for b in cards.buttons_of(m.card)
            )
        ]

    def said(self, open_id: str) -> str:
        """Everything in the person's chat, as one string."""
        return "\n".join(m.text for m in self.chat(open_id))

    async def outbox_len(self) -> int:
        return await self.engine.store.redis.xlen(self.engine.keys.outbox)


async def start_harness(
    engine: Engine, redis: Any, *, encrypt_key: str | None, model: ChatModel | None = None
) -> FeishuHarness:
    standin = FeishuStandIn(app_id=APP_ID, app_secret=APP_SECRET)
    await standin.start()
    for p in engine.directory:
        if p.feishu_open_id:
            standin.add_user(p.feishu_open_id, p.name)
    memory = ThreadMemory(redis)
    agent = Agent(model or OfflinePlanner(), engine, memory, fallback=OfflinePlanner())
    runtime = Runtime(Settings(), redis, engine, memory, agent, agent.model)
    client = FeishuClient(APP_ID, APP_SECRET, standin.base_url, backoff_s=0.01, timeout_s=5)
    bot = FeishuBot(runtime, client, verification_token=VERIFICATION_TOKEN, encrypt_key=encrypt_key)
    app = web.Application()
    compose.mount(app, [FeishuPlatform(bot)])
    server = TestServer(app)
    await server.start_server()
    http = aiohttp.ClientSession()
    sim = FeishuSimulator(
        standin,
        str(server.make_url("/feishu/events")),
        http,
        verification_token=VERIFICATION_TOKEN,
        encrypt_key=encrypt_key,
    )
    delivery = FeishuDelivery(engine, client, redis, bot.cards)
    worker = OutboxWorker(
        Outbox(redis, engine.keys, NOTIFIER_GROUP), [delivery], "test", reclaim_idle_ms=60_000
    )
    await worker.outbox.ensure_group()
    return FeishuHarness(engine, standin, bot, server, http, sim, worker, delivery)


async def stop_harness(h: FeishuHarness) -> None:
    await h.bot.tasks.drain(5)
    await h.bot.client.close()
    await h.http.close()
    await h.server.close()
    await h.standin.stop()
