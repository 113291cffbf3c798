"""A local Feishu open-API stand-in that the real `FeishuClient` talks to over HTTP.

Used by the tests (and ready for a sandbox to render): it issues tenant access tokens,
accepts sends, thread replies and card updates with Feishu's checks and error answers,
deduplicates sends on `uuid` for an hour as Feishu does, records every request, fails on
demand (a rate limit: HTTP 429 with code 99991400, a 5xx, or any Feishu code), and publishes
each change to subscribers.

    standin = FeishuStandIn(app_id="cli_test", app_secret="s3cret")
    standin.add_user("ou_zhangsan", "张三")
    await standin.start()
    client = FeishuClient("cli_test", "s3cret", standin.base_url)
"""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from bot.sandbox.standins.feishu.state import FeishuFault, StoredMessage, Tenant

__all__ = ["FeishuFault", "FeishuStandIn", "RecordedRequest", "StoredMessage"]

TOKEN_PATH = "/open-apis/auth/v3/tenant_access_token/internal"
MESSAGES_PATH = "/open-apis/im/v1/messages"
CONTACT_PATH = "/open-apis/contact/v3"
CONTACT_BATCH_PATH = "/open-apis/contact/v3/users/batch_get_id"
CONTACT_USER_PATH = "/open-apis/contact/v3/users"


@dataclass
class RecordedRequest:
    """One open-API request as the stand-in received it, and what it answered."""

    kind: str  # token | send | reply | patch | get
    method: str
    path: str
    query: dict[str, str]
    body: dict[str, Any]
    token: str | None
    time: float
    status: int | None = None
    response: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200 and bool(self.response) and self.response.get("code") == 0


@dataclass
class _Fault:
    kind: str
    code: int
    msg: str
    status: int
    remaining: int
    reset_s: int
    html: bool = False  # a proxy's error page instead of Feishu's JSON


class FeishuStandIn:
    """The fake open API: an aiohttp server (or routes to mount) over a `Tenant`."""

    def __init__(
        self,
        *,
        app_id: str = "cli_standin",
        app_secret: str = "standin-secret",
        token_ttl_s: int = 7200,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.app_id = app_id
        self.app_secret = app_secret
        self.token_ttl_s = token_ttl_s
        self.clock = clock
        self.tenant = Tenant(app_id, clock)
        self.requests: list[RecordedRequest] = []
        self.base_url: str | None = None
        self._tokens: dict[str, float] = {}
        self._faults: list[_Fault] = []
        self._runner: web.AppRunner | None = None
        self._served = asyncio.Condition()
        self._subscribers: list[asyncio.Queue[dict[str, Any]]] = []
        self.latency_s = 0.0
        """Delay before every answer, e.g. to test timeouts."""

    # --- serving --------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on host:port (0 picks a free port); returns the base URL."""
        app = web.Application()
        self.add_to(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, host, port).start()
        bound_host, bound_port = self._runner.addresses[0][:2]
        self.base_url = f"http://{bound_host}:{bound_port}"
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FeishuStandIn:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def routes(self) -> list[web.RouteDef]:
        """The open-API routes, to mount in another aiohttp app (a sandbox) at its root."""
        return [
            web.post(TOKEN_PATH, self._handle("token")),
            web.post(MESSAGES_PATH, self._handle("send")),
            web.post(MESSAGES_PATH + "/{message_id}/reply", self._handle("reply")),
            web.patch(MESSAGES_PATH + "/{message_id}", self._handle("patch")),
            web.get(MESSAGES_PATH + "/{message_id}", self._handle("get")),
            web.get(
                CONTACT_PATH + "/departments/{message_id}/children", self._handle("departments")
            ),
            web.get(CONTACT_PATH + "/users/find_by_department", self._handle("users")),
            web.post(CONTACT_BATCH_PATH, self._handle("contact_batch")),
            web.get(CONTACT_USER_PATH + "/{message_id}", self._handle("contact_user")),
        ]

    def add_to(self, app: web.Application) -> None:
        app.add_routes(self.routes())

    # --- the request path -------------------------------------------------------------------

    def _handle(self, kind: str) -> Callable[[web.Request], Any]:
        async def handler(request: web.Request) -> web.Response:
            return await self._serve(kind, request)

        return handler

    async def _serve(self, kind: str, request: web.Request) -> web.Response:
        header = request.headers.get("Authorization", "")
        token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else None
        try:
            body = await request.json() if request.body_exists else {}
        except ValueError:
            body = None
        record = RecordedRequest(
            kind=kind,
            method=request.method,
            path=request.path,
            query=dict(request.query),
            body=body if isinstance(body, dict) else {},
            token=token,
            time=self.clock(),
        )
        self.requests.append(record)
        headers: dict[str, str] = {}
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        try:
            if (fault := self._take_fault(kind)) is not None:
                if fault.html:
                    record.status = fault.status
                    async with self._served:
                        self._served.notify_all()
                    page = f"<html><body><h1>{fault.status} {fault.msg}</h1></body></html>"
                    return web.Response(status=fault.status, text=page, content_type="text/html")
                if fault.status == 429:
                    headers = {
                        "x-ogw-ratelimit-limit": "5",
                        "x-ogw-ratelimit-reset": str(fault.reset_s),
                    }
                raise FeishuFault(fault.code, fault.msg, fault.status)
            if not isinstance(body, dict):
                raise FeishuFault(9499, "Bad Request: the body is not a JSON object")
            if kind == "token":
                answer = self._token(body)
            else:
                self._check_token(token)
                answer = self._answer(kind, request.match_info.get("message_id", ""), record)
            status = 200
        except FeishuFault as f:
            answer, status = f.body(), f.status
        record.status, record.response = status, answer
        headers["X-Tt-Logid"] = f"standin{len(self.requests):06d}"
        async with self._served:
            self._served.notify_all()
        return web.json_response(answer, status=status, headers=headers)

    def _token(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("app_id") != self.app_id or body.get("app_secret") != self.app_secret:
            raise FeishuFault(10014, "app secret invalid")
        token = "t-" + secrets.token_hex(12)
        self._tokens[token] = self.clock() + self.token_ttl_s
        return {"code": 0, "msg": "ok", "tenant_access_token": token, "expire": self.token_ttl_s}

    def _check_token(self, token: str | None) -> None:
        if not token:
            raise FeishuFault(99991661, "Missing access token for authorization.")
        until = self._tokens.get(token)
        if until is None or self.clock() >= until:
            raise FeishuFault(99991663, "Invalid access token for authorization.")

    def _answer(self, kind: str, message_id: str, record: RecordedRequest) -> dict[str, Any]:
        body, tenant = record.body, self.tenant
        match kind:
            case "send":
                if record.query.get("receive_id_type") != "open_id":
                    raise FeishuFault(
                        230001,
                        "Your request contains an invalid request parameter: receive_id_type",
                    )
                message, repeated = tenant.send(
                    str(body.get("receive_id", "")),
                    str(body.get("msg_type", "")),
                    body.get("content"),
                    body.get("uuid"),
                )
                if not repeated:
                    self._publish("message", message)
            case "reply":
                message, repeated = tenant.reply(
                    message_id,
                    str(body.get("msg_type", "")),
                    body.get("content"),
                    bool(body.get("reply_in_thread")),
                    body.get("uuid"),
                )
                if not repeated:
                    self._publish("message", message)
            case "departments" | "users":
                return self._contact(kind, message_id, record.query)
            case "contact_batch":
                emails = [str(e) for e in body.get("emails") or []]
                return {"code": 0, "msg": "success", "data": {"user_list": tenant.by_email(emails)}}
            case "contact_user":  # the path's id is an open_id here
                person = tenant.person(message_id)
                email = tenant.email_of(person.open_id)
                user = {"open_id": person.open_id, "name": person.name, "email": email}
                return {"code": 0, "msg": "success", "data": {"user": user}}
            case "patch":
                message = tenant.patch(message_id, body.get("content"))
                self._publish("updated", message)
                return {"code": 0, "msg": "success", "data": {}}
            case _:
                message = tenant.message(message_id)
                return {"code": 0, "msg": "success", "data": {"items": [message.to_api()]}}
        return {"code": 0, "msg": "success", "data": message.to_api()}

    def _contact(self, kind: str, department: str, query: dict[str, str]) -> dict[str, Any]:
        """contact/v3: a department's children, or the users of a department, a page at a time."""
        tenant = self.tenant
        if kind == "departments":
            items = tenant.department_children(department, query.get("fetch_child") == "true")
        else:
            department = query.get("department_id", "")
            if department != "0" and department not in tenant.departments:
                raise FeishuFault(40003, "department not found")
            items = tenant.department_users(department)
        size = max(1, min(int(query.get("page_size") or 50), 50))
        start = int(query.get("page_token") or 0)
        more = start + size < len(items)
        data: dict[str, Any] = {"has_more": more, "items": items[start : start + size]}
        if more:
            data["page_token"] = str(start + size)
        return {"code": 0, "msg": "success", "data": data}

    # --- faults ---------------------------------------------------------------------------------

    def fail_next(
        self,
        kind: str,
        code: int = 99991400,
        msg: str = "request trigger frequency limit",
        status: int | None = None,
        times: int = 1,
        reset_s: int = 1,
        html: bool = False,
    ) -> None:
        """Make the next `times` requests of `kind` (token, send, reply, patch, get, or "*") fail.

        The default is Feishu's rate limit: HTTP 429, code 99991400, `x-ogw-ratelimit-reset`.
        Pass `status=500` for a server error, or another code (HTTP 400) for a refusal;
        `html=True` answers a proxy's HTML error page (`msg` in it) instead of Feishu's JSON.
        """
        if status is None:
            status = 429 if code == 99991400 else 400
        self._faults.append(_Fault(kind, code, msg, status, times, reset_s, html))

    def _take_fault(self, kind: str) -> _Fault | None:
        fault = next((f for f in self._faults if f.kind in (kind, "*")), None)
        if fault is not None:
            fault.remaining -= 1
            if fault.remaining <= 0:
                self._faults.remove(fault)
        return fault

    def expire_tokens(self) -> None:
        """Invalidate every token issued so far (as if they had expired early)."""
        self._tokens.clear()

    # --- what was asked ---------------------------------------------------------------------------

    def calls(self, kind: str) -> list[RecordedRequest]:
        """Every request of `kind`, oldest first (failed ones included)."""
        return [r for r in self.requests if r.kind == kind]

    async def wait_for_call(
        self,
        kind: str,
        where: Callable[[RecordedRequest], bool] | None = None,
        *,
        count: int = 1,
        within: float = 5.0,
    ) -> RecordedRequest:
        """Wait until `count` answered requests of `kind` match `where`; returns the last one."""

        def matches() -> list[RecordedRequest]:
            return [
                r
                for r in self.requests
                if r.kind == kind and r.status is not None and (where is None or where(r))
            ]

        try:
            async with asyncio.timeout(within), self._served:
                await self._served.wait_for(lambda: len(matches()) >= count)
        except TimeoutError:
            seen = ", ".join(r.kind for r in self.requests) or "none"
            raise TimeoutError(
                f"No {count} matching {kind} request(s) in {within} s; seen: {seen}"
            ) from None
        return matches()[count - 1]

    # --- the tenant, for tests and a sandbox ------------------------------------------------------

    def add_user(self, open_id: str, name: str, email: str | None = None) -> str:
        """Register a person who can chat with the bot; returns their p2p chat id."""
        return self.tenant.add_person(open_id, name, email).chat_id

    def user_says(self, open_id: str, text: str, root_id: str | None = None) -> StoredMessage:
        """A person writes to the bot (in the thread of `root_id` when given)."""
        message = self.tenant.user_message(open_id, text, root_id)
        self._publish("message", message)
        return message

    def message(self, message_id: str) -> StoredMessage:
        return self.tenant.message(message_id)

    def chat(self, open_id: str) -> list[StoredMessage]:
        """A person's chat with the bot, oldest first."""
        return self.tenant.chat(open_id)

    def apply_card(self, message_id: str, card: dict[str, Any]) -> None:
        """Show the card a callback answered with in place of the clicked one, as Feishu does."""
        message = self.tenant.message(message_id)
        message.content = json.dumps(card, ensure_ascii=False)
        message.updated = True
        self._publish("updated", message)

    def snapshot(self, open_id: str) -> dict[str, Any]:
        """What this person's Feishu shows: the chat with threads (JSON-able, for a sandbox page)."""
        return self.tenant.snapshot(open_id)

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        """A queue receiving `{"change", "chat_id", "message"}` for every change from now on."""
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self._subscribers.append(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        if queue in self._subscribers:
            self._subscribers.remove(queue)

    def _publish(self, change: str, message: StoredMessage) -> None:
        record = {"change": change, "chat_id": message.chat_id, "message": message.to_dict()}
        for queue in self._subscribers:
            queue.put_nowait(record)
