"""Feishu in the sandbox: the open-API stand-in, the real `FeishuBot`, its delivery and the page's API.

Mounted on the sandbox's one port, next to Slack:

    /feishu-api/open-apis/...            the Feishu open-API stand-in (the bot's `api_url`)
    POST /feishu/events                  the bot's event and card-callback URL (encrypted, signed)
    GET  /sandbox/feishu/snapshot?open_id=ou_…   that person's chat with the bot, threads nested
    GET  /sandbox/feishu/events          server-sent events: one small record per stand-in change
    POST /sandbox/feishu/message         {open_id, text, root_id?}: the person writes to the bot
    POST /sandbox/feishu/click           {open_id, message_id, button, value?, form_value?}
    POST /sandbox/feishu/menu            {open_id, event_key}: the person picks a bot menu item

The sandbox makes the app id and secret, the verification token and the Encrypt Key at start.
What a person does on the page is encrypted, signed and POSTed to /feishu/events by
`FeishuSimulator`, as Feishu pushes it; the page sees what the bot did through the stand-in.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import structlog
from aiohttp import web

from agent.catalogue import say
from bot.feishu.app import MENU_ITEMS, FeishuBot
from bot.feishu.client import FeishuClient
from bot.feishu.platform import EVENTS_PATH, FeishuPlatform
from bot.sandbox.bodies import (
    FeishuClickBody,
    FeishuMenuBody,
    FeishuMessageBody,
    read_body,
    refused,
)
from bot.sandbox.feishu_simulator import FeishuSimulator
from bot.sandbox.standins.feishu.server import FeishuFault, FeishuStandIn
from bot.tasks import BackgroundTasks
from workflow.directory import Directory

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = structlog.get_logger("sandbox")
API_PREFIX = "/feishu-api"
PLACEHOLDER_API_URL = "http://127.0.0.1:9" + API_PREFIX
"""The clients' API URL until the server is bound and its port known (nothing listens on 9)."""
BOT_NAME = "approvals"
HEARTBEAT_S = 15.0
_CLOSE: dict[str, Any] = {"change": "sandbox.closing"}


def register_feishu_people(standin: FeishuStandIn, directory: Directory) -> int:
    """Add every directory person with a Feishu open_id to the stand-in; returns how many."""
    count = 0
    for p in directory:
        if p.feishu_open_id:
            standin.add_user(p.feishu_open_id, p.name)
            count += 1
    return count


def card_buttons(card: dict[str, Any] | None) -> list[dict[str, Any]]:
    """Every button of a card in document order, the order the page numbers them in.

    Looks in a div's `extra`, in `action` rows, in forms and in column sets (the page's
    `buttonsOf` in feishu.js walks the same way).
    """
    found: list[dict[str, Any]] = []

    def walk(items: Any) -> None:
        for e in items if isinstance(items, list) else []:
            if not isinstance(e, dict):
                continue
            if e.get("tag") == "button":
                found.append(e)
            if isinstance(e.get("extra"), dict):
                walk([e["extra"]])
            walk(e.get("actions"))
            walk(e.get("elements"))
            for column in e.get("columns") or []:
                if isinstance(column, dict):
                    walk(column.get("elements"))

    if isinstance(card, dict):
        body = card.get("body") if card.get("schema") == "2.0" else None
        walk((body or {}).get("elements") if isinstance(body, dict) else card.get("elements"))
    return found


class SandboxFeishu:
    """The Feishu half of the sandbox: stand-in, bot, delivery, simulator and the page's API."""

    def __init__(
        self, runtime: Runtime, tasks: BackgroundTasks, clock: Callable[[], float]
    ) -> None:
        """Args:
        runtime: the product's parts, shared with the Slack bot.
        tasks: where the bot's turns and clicks run (the Slack bot's, so one drain waits for both).
        clock: epoch seconds for message times (the product's clock, as on the Slack side).
        """
        self.app_id = "cli_sandbox" + secrets.token_hex(8)
        self.app_secret = secrets.token_urlsafe(24)
        self.verification_token = secrets.token_urlsafe(16)
        self.encrypt_key = secrets.token_urlsafe(24)
        self.standin = FeishuStandIn(app_id=self.app_id, app_secret=self.app_secret, clock=clock)
        self.people = register_feishu_people(self.standin, runtime.engine.directory)
        self.client = FeishuClient(self.app_id, self.app_secret, PLACEHOLDER_API_URL)
        self.bot = FeishuBot(
            runtime,
            self.client,
            verification_token=self.verification_token,
            encrypt_key=self.encrypt_key,
            tasks=tasks,
        )
        # mounted and given to the notifier by the sandbox server, through bot.compose
        self.platform = FeishuPlatform(self.bot)
        self.delivery = self.platform.delivery()
        self.events_url: str | None = None
        self._http: aiohttp.ClientSession | None = None
        self._sim: FeishuSimulator | None = None
        self._streams: set[asyncio.Queue[dict[str, Any]]] = set()
        self._seq = 0

    # -- wiring --------------------------------------------------------------------------------

    def add_to(self, app: web.Application) -> None:
        """Mount the stand-in under /feishu-api/ and the page's API (the bot: `bot.compose.mount`)."""
        api = web.Application()
        self.standin.add_to(api)
        app.add_subapp(API_PREFIX, api)
        app.add_routes(
            [
                web.get("/sandbox/feishu/snapshot", self.snapshot),
                web.get("/sandbox/feishu/events", self.events),
                web.post("/sandbox/feishu/message", self.message),
                web.post("/sandbox/feishu/click", self.click),
                web.post("/sandbox/feishu/menu", self.menu),
            ]
        )

    def bind(self, base_url: str) -> None:
        """Point the bot's and the delivery's clients and the simulator at the server's URL."""
        base = base_url.rstrip("/")
        api_url = base + API_PREFIX
        self.standin.base_url = api_url
        self.client.api_url = api_url  # the bot's and the delivery's: one client
        self.events_url = base + EVENTS_PATH
        if self._sim is not None:
            self._sim.events_url = self.events_url

    @property
    def sim(self) -> FeishuSimulator:
        """Feishu's side of the callbacks (made on first use, inside the event loop)."""
        if self.events_url is None:
            raise RuntimeError("The sandbox is not bound to a URL yet: call start() or bind()")
        if self._sim is None:
            self._http = aiohttp.ClientSession()
            self._sim = FeishuSimulator(
                self.standin,
                self.events_url,
                self._http,
                verification_token=self.verification_token,
                encrypt_key=self.encrypt_key,
            )
        return self._sim

    async def close_streams(self) -> None:
        """End every open event stream (on shutdown), so the server can stop at once."""
        for queue in list(self._streams):
            queue.put_nowait(_CLOSE)

    async def close(self) -> None:
        """Close the HTTP sessions: the simulator's and the open-API client's."""
        if self._http is not None:
            await self._http.close()
            self._http, self._sim = None, None
        await self.client.close()

    # -- helpers --------------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """What /sandbox/info says about Feishu."""
        return {
            "app_id": self.app_id,
            "bot_name": BOT_NAME,
            "encrypted": True,
            "people": self.people,
            "api_url": self.standin.base_url,
            # the bot menu under the chat, named as the bot names its items
            "menu": [
                {"key": key, "en": say(code, "en"), "zh": say(code, "zh")}
                for key, code in MENU_ITEMS
            ],
        }

    def _person(self, open_id: Any) -> str:
        if not isinstance(open_id, str) or not open_id:
            raise refused(400, "open_id is required")
        if open_id not in self.standin.tenant.people:
            raise refused(404, f"no such person on Feishu: {open_id}")
        return open_id

    def _owner(self, chat_id: str) -> str | None:
        """The open_id whose chat with the bot `chat_id` is."""
        for person in self.standin.tenant.people.values():
            if person.chat_id == chat_id:
                return person.open_id
        return None

    def _their_message(self, open_id: str, message_id: Any):
        """A message of this person's chat with the bot (404 otherwise)."""
        if not isinstance(message_id, str) or not message_id:
            raise refused(400, "message_id is required")
        try:
            message = self.standin.message(message_id)
        except FeishuFault:
            raise refused(404, "no such message") from None
        if message.chat_id != self.standin.tenant.people[open_id].chat_id:
            raise refused(404, "that message is not in this person's chat")
        return message

    # -- reading -------------------------------------------------------------------------------

    async def snapshot(self, request: web.Request) -> web.Response:
        open_id = self._person(request.query.get("open_id"))
        return web.json_response(self.standin.snapshot(open_id))

    def slim(self, record: dict[str, Any]) -> dict[str, Any]:
        """The part of a change the page needs to know what to refresh (no message bodies)."""
        message = record.get("message") or {}
        self._seq += 1
        return {
            "seq": self._seq,
            "change": record.get("change"),
            "user": self._owner(str(record.get("chat_id") or "")),
            "chat_id": record.get("chat_id"),
            "message_id": message.get("message_id"),
            "from": message.get("from"),
            "root_id": message.get("root_id"),
        }

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: `hello`, then one record per stand-in change (sent, replied, patched)."""
        resp = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await resp.prepare(request)
        queue = self.standin.subscribe()
        self._streams.add(queue)
        try:
            await resp.write(f"event: hello\ndata: {json.dumps({'seq': self._seq})}\n\n".encode())
            while True:
                try:
                    record = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                except TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                if record is _CLOSE:
                    break
                slim = self.slim(record)
                data = json.dumps(slim, ensure_ascii=False)
                await resp.write(f"id: {slim['seq']}\ndata: {data}\n\n".encode())
        except ConnectionResetError:  # the page went away (aiohttp's error subclasses it)
            pass
        finally:
            self.standin.unsubscribe(queue)
            self._streams.discard(queue)
        return resp

    # -- what people do -------------------------------------------------------------------------

    async def message(self, request: web.Request) -> web.Response:
        """The person writes to the bot (in a thread when `root_id` is given): im.message.receive_v1."""
        body = await read_body(request, FeishuMessageBody)
        open_id = self._person(body.open_id)
        root_id = body.root_id
        if root_id is not None:
            root = self._their_message(open_id, root_id)
            root_id = root.root_id or root.message_id
        resp, envelope = await self.sim.message(open_id, body.text, root_id)
        sent = envelope["event"]["message"]
        return web.json_response(
            {
                "ok": resp.status == 200,
                "status": resp.status,
                "message_id": sent["message_id"],
                "root_id": sent.get("root_id") or sent["message_id"],
            }
        )

    async def menu(self, request: web.Request) -> web.Response:
        """The person picks an item of the bot's menu: application.bot.menu_v6, as Feishu pushes it.

        The bot answers with a card in the person's chat (the page sees it through the stand-in).
        """
        body = await read_body(request, FeishuMenuBody)
        open_id = self._person(body.open_id)
        if body.event_key not in dict(MENU_ITEMS):
            raise refused(404, f"no such item in the bot's menu: {body.event_key}")
        resp = await self.sim.menu(open_id, body.event_key)
        return web.json_response({"ok": resp.status == 200, "status": resp.status})

    async def click(self, request: web.Request) -> web.Response:
        """The person clicks a card button (after its confirm dialog): card.action.trigger.

        `button` is the button's index in `card_buttons` order; `value`, when given, must be
        that button's value (so a click on a card that changed meanwhile is refused, 409).
        The card in the bot's answer replaces the clicked one; its toast goes back to the page.
        """
        body = await read_body(request, FeishuClickBody)
        open_id = self._person(body.open_id)
        message = self._their_message(open_id, body.message_id)
        buttons = card_buttons(message.card)
        if body.button >= len(buttons):
            raise refused(404, "no such button on that card")
        button = buttons[body.button]
        value = button.get("value") if isinstance(button.get("value"), dict) else {}
        if "value" in body.model_fields_set and body.value != value:
            raise refused(409, "the card has changed; look again and click once more")
        form_value = body.form_value
        sim = self.sim
        action: dict[str, Any] = {"value": value, "tag": "button"}
        if button.get("name"):
            action["name"] = button["name"]
        if form_value is not None:
            action["form_value"] = form_value
        event = {
            "operator": {"tenant_key": sim.tenant_key, "open_id": open_id, "user_id": None},
            "token": "c-" + secrets.token_hex(8),
            "action": action,
            "host": "im_message",
            "context": {"open_message_id": message.message_id, "open_chat_id": message.chat_id},
        }
        resp = await sim.deliver(sim.envelope("card.action.trigger", event))
        answer: Any = {}
        if resp.status == 200:
            with contextlib.suppress(ValueError, aiohttp.ContentTypeError):
                answer = await resp.json()
        answer = answer if isinstance(answer, dict) else {}
        card = (
            (answer.get("card") or {}).get("data") if isinstance(answer.get("card"), dict) else None
        )
        if isinstance(card, dict):
            self.standin.apply_card(message.message_id, card)  # as the Feishu client shows it
        toast = answer.get("toast") if isinstance(answer.get("toast"), dict) else None
        return web.json_response(
            {
                "ok": resp.status == 200,
                "status": resp.status,
                "toast": toast,
                "updated": isinstance(card, dict),
            }
        )
