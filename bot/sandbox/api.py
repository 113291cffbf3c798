"""The page's JSON API under /sandbox/ and its live change feed (server-sent events).

    GET  /sandbox/info                 team, bot, store and model in use, the suggested first person,
                                       the Feishu app
    GET  /sandbox/people               the directory: names, titles, teams, Slack and Feishu ids,
                                       pending approvals
    GET  /sandbox/snapshot?user=U…     what that person's Slack client shows (the stand-in's snapshot)
    GET  /sandbox/events               server-sent events: one small record per stand-in change
    POST /sandbox/message              {user, text, thread_ts?}: a DM (text starting "/" runs a command)
    POST /sandbox/command              {user, command, text}: a slash command
    POST /sandbox/click                {user, action_id, block_id?, value?, channel+ts | view_id}
    POST /sandbox/views/submit         {user, view_id, values}: view_submission; field errors come back
    POST /sandbox/views/close          {user, view_id}: the person closes a modal
    POST /sandbox/home                 {user}: the person opens the Home tab (app_home_opened)
    POST /sandbox/ephemeral/dismiss    {user, ts}

Everything a person does goes to the bot signed, through `SlackSimulator`; the page then
sees what the bot did through the stand-in (snapshot + change feed), as a Slack client would.
The same person's Feishu chat has its own endpoints under /sandbox/feishu/ (`bot.sandbox.feishu`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import TYPE_CHECKING, Any

import aiohttp
import structlog
from aiohttp import web

from bot import wording
from bot.sandbox.bodies import (
    ClickBody,
    CommandBody,
    DismissBody,
    MessageBody,
    SlackPerson,
    ViewCloseBody,
    ViewSubmitBody,
    read_body,
    refused,
)
from bot.sandbox.slack_simulator import ButtonNotFound
from bot.sandbox.standins.slack.server import StandInError

if TYPE_CHECKING:
    from bot.sandbox.server import Sandbox

log = structlog.get_logger("sandbox")
HEARTBEAT_S = 15.0
_CLOSE = {"kind": "sandbox.closing"}
_SLIM_KEYS = ("seq", "kind", "user", "channel", "ts", "thread_ts", "status", "view_id")
UNKNOWN_COMMAND = {
    "en": (
        "`{command}` is not a valid command. In Slack, all messages that start with the "
        '"/" character are interpreted as commands. This sandbox knows `/leave`.'
    ),
    "zh": "`{command}` 不是有效的命令。在 Slack 中，以“/”开头的消息都会被当作命令。此沙盒支持 `/leave`。",
}
"""What Slack itself answers an unknown command with, in the person's client language."""


def slim(record: dict[str, Any]) -> dict[str, Any]:
    """The part of a change record the page needs to know what to refresh (no message bodies)."""
    out = {k: record[k] for k in _SLIM_KEYS if record.get(k) is not None}
    view = record.get("view")
    if isinstance(view, dict):
        out["view_id"] = view.get("id")
        out["view_type"] = view.get("type")
    return out


async def _reply_body(resp: aiohttp.ClientResponse) -> Any:
    """The bot's HTTP answer: JSON when it is JSON, else the text (None when empty)."""
    text = await resp.text()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


class SandboxApi:
    """The handlers behind /sandbox/…, over one `Sandbox`."""

    def __init__(self, sandbox: Sandbox, *, store: str = "", model: str = "") -> None:
        self.sandbox = sandbox
        self.store = store
        self.model = model
        self._streams: set[asyncio.Queue[dict[str, Any]]] = set()

    def add_to(self, app: web.Application) -> None:
        app.add_routes(
            [
                web.get("/sandbox/info", self.info),
                web.get("/sandbox/people", self.people),
                web.get("/sandbox/snapshot", self.snapshot),
                web.get("/sandbox/events", self.events),
                web.post("/sandbox/message", self.message),
                web.post("/sandbox/command", self.command),
                web.post("/sandbox/click", self.click),
                web.post("/sandbox/views/submit", self.view_submit),
                web.post("/sandbox/views/close", self.view_close),
                web.post("/sandbox/home", self.home),
                web.post("/sandbox/ephemeral/dismiss", self.dismiss),
            ]
        )

    # -- helpers ------------------------------------------------------------------------

    @property
    def ws(self):
        return self.sandbox.standin.workspace

    def _user(self, user_id: Any) -> str:
        if not isinstance(user_id, str) or not user_id:
            raise refused(400, "user is required")
        try:
            self.ws.user(user_id)
        except StandInError:
            raise refused(404, f"no such person: {user_id}") from None
        return user_id

    # -- reading ------------------------------------------------------------------------

    async def info(self, _: web.Request) -> web.Response:
        ws = self.ws
        engine = self.sandbox.runtime.engine
        return web.json_response(
            {
                "team": {"id": ws.team_id, "name": ws.team_name, "domain": ws.team_domain},
                "organisation": engine.config.organisation.name,
                "bot": {"user_id": ws.bot_user_id, "name": ws.bot_name},
                "store": self.store,
                "model": self.model,
                "persistent": self.sandbox.runtime.persistent,
                "default_user": self._default_user(),
                # an instant, not a date: the page finds today in each viewer's zone from the
                # clock the message times come from (a UTC date disagreed with them)
                "now": engine.clock.now().timestamp(),
                "feishu": self.sandbox.feishu.info(),
            }
        )

    def _default_user(self) -> str | None:
        """Someone to start as: an employee with an English name and locale who approves nobody."""
        directory = self.sandbox.runtime.engine.directory
        people = [p for p in directory if p.slack_user_id]
        managers = {p.manager for p in directory if p.manager}
        for p in people:
            if (
                p.manager
                and p.id not in managers
                and not p.roles
                and p.locale == "en"
                and p.name.isascii()
            ):
                return p.slack_user_id
        return people[0].slack_user_id if people else None

    async def people(self, _: web.Request) -> web.Response:
        engine = self.sandbox.runtime.engine
        directory = engine.directory
        managers = {p.manager for p in directory if p.manager}
        out = []
        for p in directory:
            if not p.slack_user_id:
                continue
            pending = (await engine.my_approvals(p.id, limit=1)).total  # the count alone
            manager = directory.find(p.manager) if p.manager else None
            user = self.ws.user(p.slack_user_id)
            out.append(
                {
                    "user_id": p.slack_user_id,
                    "feishu_open_id": p.feishu_open_id,
                    "id": p.id,
                    "name": p.name,
                    "title": p.title,
                    "team": p.team or directory.team_of(p.id),  # the key the page groups by
                    # what the page shows, in each language the viewer may read
                    "titles": {loc: p.title_in(loc) for loc in ("en", "zh")},
                    "teams": {loc: wording.team_text(engine, p.id, loc) for loc in ("en", "zh")},
                    "locale": p.locale,
                    "timezone": p.timezone,
                    "roles": list(p.roles),
                    "manager": manager.name if manager else None,
                    "approver": p.id in managers or bool(p.roles),
                    "pending": pending,
                    "color": user.get("color"),
                }
            )
        return web.json_response(out)

    async def snapshot(self, request: web.Request) -> web.Response:
        user = self._user(request.query.get("user"))
        return web.json_response(self.sandbox.standin.snapshot(user))

    # -- the live feed ------------------------------------------------------------------

    async def events(self, request: web.Request) -> web.StreamResponse:
        """Server-sent events: `hello` with the current seq, then one record per change."""
        resp = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",
            }
        )
        await resp.prepare(request)
        queue = self.sandbox.standin.subscribe()
        self._streams.add(queue)
        try:
            hello = json.dumps({"seq": self.ws.change_seq})
            await resp.write(f"event: hello\ndata: {hello}\n\n".encode())
            while True:
                try:
                    record = await asyncio.wait_for(queue.get(), HEARTBEAT_S)
                except TimeoutError:
                    await resp.write(b": keep-alive\n\n")
                    continue
                if record is _CLOSE:
                    break
                data = json.dumps(slim(record), ensure_ascii=False)
                await resp.write(f"id: {record.get('seq', '')}\ndata: {data}\n\n".encode())
        except ConnectionResetError:  # the page went away (aiohttp's error subclasses it)
            pass
        finally:
            self.sandbox.standin.unsubscribe(queue)
            self._streams.discard(queue)
        return resp

    async def close_streams(self) -> None:
        """End every open event stream (on shutdown), so the server can stop at once."""
        for queue in list(self._streams):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(_CLOSE)

    # -- what people do -----------------------------------------------------------------

    async def message(self, request: web.Request) -> web.Response:
        body = await read_body(request, MessageBody)
        user = self._user(body.user)
        text, thread_ts = body.text, body.thread_ts
        if text.startswith("/"):
            command, _, rest = text.partition(" ")
            return await self._command(user, command, rest.strip(), thread_ts)
        try:
            resp, envelope = await self.sandbox.sim.dm(user, text, thread_ts)
        except StandInError as e:  # a thread_ts of no thread in their DM: nothing was posted
            raise refused(404, e.code) from None
        event = envelope["event"]
        return web.json_response(
            {
                "ok": resp.status == 200,
                "status": resp.status,
                "ts": event["ts"],
                "thread_ts": event.get("thread_ts") or event["ts"],
            }
        )

    async def command(self, request: web.Request) -> web.Response:
        body = await read_body(request, CommandBody)
        user = self._user(body.user)
        return await self._command(user, body.command, body.text.strip(), body.thread_ts)

    async def _command(
        self, user: str, command: str, text: str, thread_ts: str | None
    ) -> web.Response:
        ws = self.ws
        conv, _ = ws.open_dm(user)
        if command != "/leave":
            language = "zh" if str(ws.user(user).get("locale", "")).startswith("zh") else "en"
            text = UNKNOWN_COMMAND[language].format(command=command)
            ws.post_ephemeral(conv, user, text=text, thread_ts=thread_ts)
            return web.json_response({"ok": False, "error": "unknown_command"})
        resp = await self.sandbox.sim.command(user, text, command)
        body = await _reply_body(resp)
        # Slack shows a command's immediate answer: plain text or {"text", "blocks"}, to the
        # person only unless response_type is in_channel.
        if isinstance(body, str) and body.strip():
            ws.post_ephemeral(conv, user, text=body, thread_ts=thread_ts)
        elif isinstance(body, dict) and (body.get("text") or body.get("blocks")):
            if body.get("response_type") == "in_channel":
                ws.post(conv, text=body.get("text") or "", blocks=body.get("blocks"))
            else:
                ws.post_ephemeral(
                    conv,
                    user,
                    text=body.get("text") or "",
                    blocks=body.get("blocks"),
                    thread_ts=thread_ts,
                )
        return web.json_response({"ok": resp.status == 200, "status": resp.status})

    async def click(self, request: web.Request) -> web.Response:
        body = await read_body(request, ClickBody)
        user = self._user(body.user)
        action_id, block_id, value = body.action_id, body.block_id, body.value
        sim = self.sandbox.sim
        try:
            if body.view_id:
                view = self._view(user, body.view_id)
                resp = await sim.click_in_view(
                    user, view, action_id, block_id=block_id, value=value, values=body.values
                )
            else:
                message = self._message(user, body.channel, body.ts)
                resp = await sim.click(
                    user, message, action_id, block_id=block_id, value=value, state=body.values
                )
        except ButtonNotFound as e:
            raise refused(404, str(e)) from None
        return web.json_response({"ok": resp.status == 200, "status": resp.status})

    def _message(self, user: str, channel: Any, ts: Any) -> dict[str, Any]:
        if not isinstance(channel, str) or not isinstance(ts, str):
            raise refused(400, "channel and ts (or view_id) are required")
        for eph in self.ws.ephemerals(user):
            if eph["ts"] == ts:
                return eph
        try:
            conv = self.ws.conversation(channel)
            if conv.is_im and conv.user != user:
                raise refused(404, "that message is not in this person's DM")
            return self.ws.message(channel, ts) | {"channel": channel}
        except StandInError as e:
            raise refused(404, e.code) from None

    def _view(self, user: str, view_id: Any) -> dict[str, Any]:
        views = self.ws.views
        if not isinstance(view_id, str) or views.owner(view_id) != user:
            raise refused(404, "no such view for this person")
        return views.get(view_id)

    async def view_submit(self, request: web.Request) -> web.Response:
        """Submit a modal; close it on an empty ack, or pass the bot's field errors back."""
        body = await read_body(request, ViewSubmitBody)
        user = self._user(body.user)
        view = self._view(user, body.view_id)
        resp = await self.sandbox.sim.submit_view(user, view, body.values)
        answer = await _reply_body(resp)
        if resp.status != 200:
            return web.json_response(
                {"ok": False, "status": resp.status, "error": "The app did not accept the form."}
            )
        views = self.ws.views
        action = answer.get("response_action") if isinstance(answer, dict) else None
        if action == "errors":
            return web.json_response({"ok": False, "errors": answer.get("errors") or {}})
        try:
            if action == "update":
                views.update(answer["view"], view_id=view["id"])
            elif action == "push":
                views.push(self.sandbox.standin.issue_trigger_id(user), answer["view"])
            elif action == "clear":
                views.close_all(user)
            else:
                views.close(view["id"])
        except (StandInError, KeyError) as e:
            log.warning("sandbox_response_action_failed", action=action, error=str(e))
            return web.json_response({"ok": False, "error": f"Bad response_action: {e}"})
        return web.json_response({"ok": True, "response_action": action})

    async def view_close(self, request: web.Request) -> web.Response:
        body = await read_body(request, ViewCloseBody)
        user = self._user(body.user)
        view = self._view(user, body.view_id)
        if view.get("notify_on_close"):
            await self.sandbox.sim.close_view(user, view)
        self.ws.views.close(view["id"])
        return web.json_response({"ok": True})

    async def home(self, request: web.Request) -> web.Response:
        user = self._user((await read_body(request, SlackPerson)).user)
        resp = await self.sandbox.sim.home_opened(user)
        return web.json_response({"ok": resp.status == 200, "status": resp.status})

    async def dismiss(self, request: web.Request) -> web.Response:
        body = await read_body(request, DismissBody)
        user = self._user(body.user)
        return web.json_response({"ok": self.ws.dismiss_ephemeral(user, body.ts)})
