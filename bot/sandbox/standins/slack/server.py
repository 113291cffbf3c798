"""A local Slack Web API stand-in that the real `AsyncWebClient` talks to over HTTP.

Used by the integration tests and by the sandbox (which serves it, and a browser UI showing
what the bot posts, from one port). It keeps realistic state — DM channels, messages with
increasing `ts`, threads, ephemerals, modals, Home tabs, assistant statuses, streamed
replies with their thinking steps — checks Block Kit payloads with slack_sdk's own models,
records every request, fails on demand (429 with Retry-After, 5xx, any Slack error), and
publishes each change to subscribers.

    standin = SlackStandIn()
    standin.add_user("U0ALICE", "alice", "Alice Wong", "alice@example.com", "Asia/Shanghai", "zh-CN")
    await standin.start()
    client = AsyncWebClient(token="xoxb-test", base_url=standin.api_url)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from bot.sandbox.standins.slack.api import HANDLERS
from bot.sandbox.standins.slack.common import StandInError
from bot.sandbox.standins.slack.state import Workspace

__all__ = ["RecordedRequest", "SlackStandIn", "StandInError", "Workspace"]

JSON_FIELDS = (
    "blocks",
    "chunks",
    "view",
    "metadata",
    "attachments",
    "prompts",
    "loading_messages",
    "user_auth_blocks",
)
"""Parameters Slack accepts as JSON-encoded strings in a form body; decoded when recorded."""


@dataclass
class RecordedRequest:
    """One Web API request as the stand-in received it, and what it answered."""

    method: str
    params: dict[str, Any]
    has_authorization: bool
    token: str | None
    http_method: str
    time: float
    status: int | None = None
    response: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        """Whether the answer was HTTP 200 with `ok: true`."""
        return self.status == 200 and bool(self.response and self.response.get("ok"))


@dataclass
class _Fault:
    method: str
    error: str | None
    status: int
    retry_after: int
    remaining: int
    applied: bool = False
    content_type: str = "text/plain"


@dataclass
class _Latency:
    default: float = 0.0
    per_method: dict[str, float] = field(default_factory=dict)


class SlackStandIn:
    """The fake Slack Web API: an aiohttp server (or routes to mount) over a `Workspace`."""

    def __init__(
        self,
        *,
        token: str | None = None,
        workspace: Workspace | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """Args:
        token: the one bot token accepted; None accepts any `xoxb-…` token.
        workspace: the state to serve (a fresh default workspace when None).
        clock: epoch seconds, for `ts` values and trigger expiry.
        """
        self.workspace = workspace or Workspace(clock=clock)
        self.token = token
        self.requests: list[RecordedRequest] = []
        self.base_url: str | None = None
        """The server's URL (`http://127.0.0.1:PORT`); set by `start`, or by a sandbox that mounts us."""
        self._prefix = "/api/"
        self._faults: list[_Fault] = []
        self._latency = _Latency()
        self._runner: web.AppRunner | None = None
        self._served = asyncio.Condition()

    # -- serving ------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        """Serve on host:port (0 picks a free port); returns the base URL."""
        app = web.Application()
        self.add_to(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, host, port)
        await site.start()
        bound_host, bound_port = self._runner.addresses[0][:2]
        self.base_url = f"http://{bound_host}:{bound_port}"
        return self.base_url

    async def stop(self) -> None:
        """Stop serving (state is kept)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> SlackStandIn:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def routes(self, prefix: str = "/api/") -> list[web.RouteDef]:
        """The routes to mount in another aiohttp app: any HTTP verb on `{prefix}{method}`."""
        self._prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
        return [web.route("*", self._prefix + "{method}", self._handle)]

    def add_to(self, app: web.Application, prefix: str = "/api/") -> None:
        """Mount the Web API in an existing aiohttp app under `prefix`."""
        app.add_routes(self.routes(prefix))

    @property
    def api_url(self) -> str:
        """The `base_url` for AsyncWebClient (ends with the mount prefix, e.g. `/api/`)."""
        if self.base_url is None:
            raise RuntimeError(
                "The stand-in is not serving: call start(), or set base_url after mounting it"
            )
        return self.base_url.rstrip("/") + self._prefix

    # -- the request path -----------------------------------------------------------------

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method = request.match_info["method"]
        header = request.headers.get("Authorization", "")
        unreadable: StandInError | None = None
        try:
            params = await _read_params(request)
        except StandInError as e:
            params, unreadable = {}, e
        token = header.removeprefix("Bearer ").strip() if header.startswith("Bearer ") else None
        token = token or params.pop("token", None)
        record = RecordedRequest(
            method=method,
            params=params,
            has_authorization=bool(header),
            token=token,
            http_method=request.method,
            time=time.time(),
        )
        self.requests.append(record)
        try:
            delay = self._latency.per_method.get(method, self._latency.default)
            if delay > 0:
                await asyncio.sleep(delay)
            fault = self._take_fault(method)
            if fault is not None:
                if fault.applied:  # Slack did it, then answered with an error
                    self._answer(method, token, params)
                return self._fail(fault, record)
            body = unreadable.body() if unreadable else self._answer(method, token, params)
            record.status, record.response = 200, body
            return web.json_response(body)
        finally:
            async with self._served:
                self._served.notify_all()

    def _answer(self, method: str, token: str | None, params: dict[str, Any]) -> dict[str, Any]:
        handler = HANDLERS.get(method)
        if handler is None:
            return {"ok": False, "error": "unknown_method", "req_method": method}
        if not token:
            return {"ok": False, "error": "not_authed"}
        if not (token == self.token if self.token else token.startswith("xoxb-")):
            return {"ok": False, "error": "invalid_auth"}
        try:
            return handler(self.workspace, params)
        except StandInError as e:
            return e.body()

    def _take_fault(self, method: str) -> _Fault | None:
        fault = next((f for f in self._faults if f.method in (method, "*")), None)
        if fault is not None:
            fault.remaining -= 1
            if fault.remaining <= 0:
                self._faults.remove(fault)
        return fault

    @staticmethod
    def _fail(fault: _Fault, record: RecordedRequest) -> web.Response:
        record.status = fault.status
        headers = {"Retry-After": str(fault.retry_after)} if fault.status == 429 else None
        if fault.error is None:
            text = "Internal Server Error" if fault.status >= 500 else "Error"
            if fault.content_type == "text/html":  # a proxy's error page
                text = f"<html><body><h1>{fault.status} {text}</h1></body></html>"
            return web.Response(
                status=fault.status, text=text, headers=headers, content_type=fault.content_type
            )
        record.response = {"ok": False, "error": fault.error}
        return web.json_response(record.response, status=fault.status, headers=headers)

    # -- faults and latency -----------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        error: str | None = "ratelimited",
        status: int | None = None,
        retry_after: int = 1,
        times: int = 1,
        *,
        applied: bool = False,
        content_type: str = "text/plain",
    ) -> None:
        """Make the next `times` calls of `method` ("*" for any) fail without touching state.

        `status` None means 429 for "ratelimited" (with `Retry-After: retry_after`) and 200
        for any other error (Slack's `{"ok": false, "error": error}`); pass 500 or 503 for a
        server error with that body, and `error=None` for a plain-text body (`content_type`
        "text/html" for a proxy's HTML error page). With `applied` the call does change the
        state first, then fails (Slack posted the message but answered 500).
        """
        if status is None:
            status = 429 if error == "ratelimited" else 200
        if error is None and status == 200:
            raise ValueError("A plain-text failure needs an HTTP error status, e.g. status=500")
        self._faults.append(
            _Fault(method, error, status, retry_after, times, applied, content_type)
        )

    def clear_faults(self) -> None:
        """Forget faults that have not fired yet."""
        self._faults.clear()

    def set_latency(self, seconds: float, method: str | None = None) -> None:
        """Delay every answer (or one method's) by `seconds`, e.g. to test the 3 s ack."""
        if method is None:
            self._latency.default = seconds
        else:
            self._latency.per_method[method] = seconds

    # -- what was asked -------------------------------------------------------------------

    def calls(self, method: str) -> list[dict[str, Any]]:
        """The parameters of every request to `method`, oldest first (failed ones included)."""
        return [r.params for r in self.requests if r.method == method]

    def clear(self) -> None:
        """Forget recorded requests (the workspace state stays)."""
        self.requests.clear()

    async def wait_for_call(
        self,
        method: str,
        where: Callable[[dict[str, Any]], bool] | None = None,
        *,
        count: int = 1,
        within: float = 5.0,
    ) -> dict[str, Any]:
        """Wait until `count` answered requests to `method` match `where`; returns the last one's params."""

        def matches() -> list[RecordedRequest]:
            return [
                r
                for r in self.requests
                if r.method == method
                and r.status is not None
                and (where is None or where(r.params))
            ]

        try:
            async with asyncio.timeout(within), self._served:
                await self._served.wait_for(lambda: len(matches()) >= count)
        except TimeoutError:
            seen = ", ".join(r.method for r in self.requests) or "none"
            raise TimeoutError(
                f"No {count} matching {method} call(s) within {within} s; calls so far: {seen}"
            ) from None
        return matches()[count - 1].params

    # -- the workspace, for tests and the sandbox ---------------------------------------------

    def add_user(
        self,
        user_id: str,
        name: str,
        real_name: str | None = None,
        email: str | None = None,
        tz: str = "UTC",
        locale: str = "en-US",
        **extra: Any,
    ) -> dict[str, Any]:
        """Register a person (see `Workspace.add_user`); returns their user object."""
        return self.workspace.add_user(user_id, name, real_name, email, tz, locale, **extra)

    def dm_channel(self, user_id: str) -> str:
        """The id of the bot's DM with this person (created on first use, stable after)."""
        return self.workspace.dm_channel(user_id)

    def post_user_message(
        self, user_id: str, text: str, thread_ts: str | None = None
    ) -> dict[str, Any]:
        """A person writes in their DM with the bot; returns the message with its `ts` and `channel`."""
        return self.workspace.post_user_message(user_id, text, thread_ts)

    def issue_trigger_id(self, user_id: str) -> str:
        """A trigger id as an interaction from this person carries: one views.open, within 3 s."""
        return self.workspace.views.issue_trigger_id(user_id)

    def snapshot(self, user_id: str) -> dict[str, Any]:
        """What this person's client shows: DM with threads, ephemerals, open modals, Home tab."""
        return self.workspace.snapshot(user_id)

    def subscribe(self) -> asyncio.Queue[dict[str, Any]]:
        """A queue receiving a JSON-able record for every state change from now on."""
        return self.workspace.subscribe()

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        """Stop delivering changes to this queue."""
        self.workspace.unsubscribe(queue)

    def changes(self) -> AsyncIterator[dict[str, Any]]:
        """Iterate over change records as they happen."""
        return self.workspace.changes()


async def _read_params(request: web.Request) -> dict[str, Any]:
    """Query string, then form or JSON body, as one dict with JSON-encoded fields decoded."""
    params: dict[str, Any] = dict(request.query)
    if request.body_exists:
        if request.content_type == "application/json":
            try:
                body = await request.json()
            except ValueError as e:
                raise StandInError("invalid_json") from e
            if not isinstance(body, dict):
                raise StandInError("invalid_json")
            params.update(body)
        else:
            form = await request.post()
            params.update({k: v for k, v in form.items() if isinstance(v, str)})
    for name in JSON_FIELDS:
        value = params.get(name)
        if isinstance(value, str) and value[:1] in ("[", "{"):
            with contextlib.suppress(ValueError):
                params[name] = json.loads(value)
    return params
