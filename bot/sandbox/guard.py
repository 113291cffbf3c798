"""Who may drive the sandbox: its own page, and nothing a web page elsewhere could make the browser send.

The sandbox lets anyone who reaches its page act as anyone in the directory, so its page API
(/sandbox/...) must not be callable from another site through the viewer's browser:

- a per-start random token, written into the page (a `<meta>` tag) and required on every
  /sandbox/ call as the `X-Sandbox-Token` header (the live feeds, which an EventSource opens
  without headers, take it as `?token=`): another origin cannot read the page, so it cannot
  learn the token;
- an Origin check: a request whose `Origin` is not the page's own (or that the browser marks
  `Sec-Fetch-Site: cross-site` / `same-site`) is refused before anything runs;
- POSTs must be `application/json`, so no HTML form or `text/plain` beacon gets through;
- on a loopback bind, the `Host` must be a loopback name, so a DNS-rebinding page (whose
  requests carry its own host name) cannot read the page and its token either.

Refusals are 403 (415 for the content type) with a JSON body `{"ok": false, "error": …,
"code": …}` and change nothing; each is logged once as one line.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
from collections.abc import Awaitable, Callable

import structlog
from aiohttp import web

log = structlog.get_logger("sandbox")

TOKEN_HEADER = "X-Sandbox-Token"
TOKEN_QUERY = "token"
PAGE_API = "/sandbox/"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
_Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def new_token() -> str:
    """A fresh page token (one per start)."""
    return secrets.token_urlsafe(24)


def is_loopback(host: str) -> bool:
    """Whether a bind address or a Host name (no port) names this machine only."""
    name = host.strip("[]").lower()
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _host_name(host_header: str) -> str:
    """The name part of a Host header: "127.0.0.1:8000" → "127.0.0.1", "[::1]:80" → "::1"."""
    if host_header.startswith("["):
        return host_header[1 : host_header.find("]")] if "]" in host_header else host_header
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def refusal(status: int, code: str, message: str) -> web.Response:
    """The JSON answer to a refused request."""
    return web.Response(
        status=status,
        text=json.dumps({"ok": False, "code": code, "error": message}),
        content_type="application/json",
    )


class PageGuard:
    """The aiohttp middleware that lets only the sandbox's own page drive /sandbox/."""

    def __init__(self, token: str, *, loopback_only: bool = True) -> None:
        """Args:
        token: the page token of this start.
        loopback_only: refuse any Host that is not a loopback name (True on a loopback bind).
        """
        self.token = token
        self.loopback_only = loopback_only

    @web.middleware
    async def middleware(self, request: web.Request, handler: _Handler) -> web.StreamResponse:
        refused = self.check(request)
        if refused is not None:
            return refused
        return await handler(request)

    def check(self, request: web.Request) -> web.Response | None:
        """None when the request may go on, else the refusal to send."""
        host = request.headers.get("Host", "")
        if self.loopback_only and not is_loopback(_host_name(host)):
            return self._refuse(
                request,
                403,
                "bad_host",
                "This sandbox answers on 127.0.0.1 or localhost only.",
            )
        if not request.path.startswith(PAGE_API):
            return None
        origin = request.headers.get("Origin")
        if origin is not None and origin != f"{request.scheme}://{host}":
            return self._refuse(
                request, 403, "cross_origin", "Requests from other sites are refused."
            )
        if request.headers.get("Sec-Fetch-Site") in ("cross-site", "same-site"):
            return self._refuse(
                request, 403, "cross_origin", "Requests from other sites are refused."
            )
        given = request.headers.get(TOKEN_HEADER)
        if given is None and request.method == "GET":
            given = request.query.get(TOKEN_QUERY)
        if not given or not secrets.compare_digest(given.encode(), self.token.encode()):
            return self._refuse(
                request,
                403,
                "bad_token",
                "This page is from an earlier start of the sandbox: reload it.",
            )
        if request.method == "POST" and request.content_type != "application/json":
            return self._refuse(
                request, 415, "bad_content_type", "The body must be application/json."
            )
        return None

    @staticmethod
    def _refuse(request: web.Request, status: int, code: str, message: str) -> web.Response:
        log.warning(
            "sandbox_request_refused",
            reason=code,
            method=request.method,
            path=request.path,
            origin=request.headers.get("Origin"),
        )
        return refusal(status, code, message)
