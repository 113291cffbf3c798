"""The listening socket's first reader: a platform's acks answered here, every other request by aiohttp.

aiohttp's own handling of a request (its protocol, request and response objects, its writer)
was most of an ack's CPU, more than verifying, parsing and queueing the DM. So each new
connection starts with `FrontProtocol`: it frames HTTP/1.1 requests itself, checks the head
with llhttp (`httptools`, the C parser uvicorn uses) and, for exactly the shape a route here
takes — POST to its path, HTTP/1.1, a Content-Length body no larger than aiohttp would take —
asks the route (`Quick`) for the answer and writes a minimal response itself. Anything else
(another path or method, HTTP/1.0, chunked, `Expect`, an upgrade, a head llhttp refuses, a
request the route leaves alone: not a plain DM, a bad signature, a blocked client) hands the
connection, from the first byte of that request on, to aiohttp's protocol, and it stays
aiohttp's: it is answered exactly as it would have been without this module.

One request of a connection is answered at a time, in order (pipelined ones wait in the
buffer, as they do in aiohttp); idle connections close after aiohttp's keep-alive timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from email.utils import formatdate
from http import HTTPStatus
from typing import ClassVar, cast

import httptools
import structlog
from aiohttp import web
from aiohttp.tcp_helpers import tcp_nodelay
from multidict import CIMultiDict

log = structlog.get_logger("bot")

# A route's answer to a request it takes: (status, text), or None when aiohttp should answer it.
# (A future the route resolves from a callback costs less than a coroutine: no task for it.)
Quick = Callable[[bytes, Mapping[str, str], "str | None"], "Awaitable[tuple[int, str]] | None"]
MAX_HEAD = 16 * 1024  # a head longer than this goes to aiohttp (which refuses it as it always has)
KEEPALIVE_S = 75.0  # aiohttp's keepalive_timeout
BUFFER_LIMIT = 4 * 1024 * 1024  # pipelined bytes held while a request is answered; then pause
# what llhttp says of a request it will not read as one (an upgrade pauses it: aiohttp's then)
UNREAD = (httptools.HttpParserError, httptools.HttpParserUpgrade)


class _Responses:
    """Each answer's bytes, made once a second (its Date header changes then, as aiohttp's)."""

    second: ClassVar[int] = -1
    made: ClassVar[dict[tuple[int, str, bool], bytes]] = {}

    @classmethod
    def get(cls, status: int, text: str, close: bool) -> bytes:
        second = int(time.time())
        if second != cls.second:
            cls.second, cls.made = second, {}
        key = (status, text, close)
        response = cls.made.get(key)
        if response is None:
            response = cls.made[key] = _response(status, text, close, second)
        return response


def _response(status: int, text: str, close: bool, second: int) -> bytes:
    body = text.encode()
    head = [b"HTTP/1.1 %d %s" % (status, HTTPStatus(status).phrase.encode())]
    if body:
        head.append(b"Content-Type: text/plain; charset=utf-8")
    head.append(b"Content-Length: %d" % len(body))
    head.append(b"Date: " + formatdate(second, usegmt=True).encode())
    if close:
        head.append(b"Connection: close")
    return b"\r\n".join(head) + b"\r\n\r\n" + body


class FrontProtocol(asyncio.Protocol):
    """One connection: quick requests answered here until one is not, then aiohttp's for good."""

    def __init__(self, site: FrontSite) -> None:
        self.site = site
        self.transport: asyncio.Transport | None = None
        self.remote: str | None = None
        self.buf = b""
        self.parser = httptools.HttpRequestParser(self)
        self.head = 0  # the request's head and whole length in bytes once its head is read
        self.length = 0  # (0: no head read yet)
        self.keep_alive = True
        self.route: Quick | None = None
        self.headers: CIMultiDict[str] = CIMultiDict()
        self.url = b""
        self.complete = False
        self.busy: asyncio.Future[tuple[int, str]] | None = None  # the request being answered
        self.paused = False  # reading paused: pipelined bytes over BUFFER_LIMIT wait
        self.held = False  # writing paused: the transport's buffer is full
        self.closing = False  # close once the request being answered is answered
        self.active = 0.0  # the loop's time it last read a byte or answered

    # --- asyncio.Protocol ----------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport = cast(asyncio.Transport, transport)  # (uvloop's is not one)
        tcp_nodelay(transport, True)
        peer = transport.get_extra_info("peername")
        self.remote = str(peer[0]) if isinstance(peer, list | tuple) else None  # as aiohttp's
        self.site.connections.add(self)
        self.active = self.site.loop.time()

    def data_received(self, data: bytes) -> None:
        self.active = self.site.loop.time()
        self.buf += data
        if self.busy is None and not self.held:
            self._next()
        waiting = self.busy is not None or self.held
        if waiting and len(self.buf) > BUFFER_LIMIT and not self.paused:
            self.paused = True
            self.transport.pause_reading()  # type: ignore[union-attr]

    def pause_writing(self) -> None:
        self.held = True  # the client is not reading its answers: answer no more for now

    def resume_writing(self) -> None:
        self.held = False
        self._go_on()

    def connection_lost(self, exc: Exception | None) -> None:
        self.site.connections.discard(self)
        self.buf = b""  # a request cut short is dropped; one being answered is still queued

    # --- httptools' callbacks ------------------------------------------------------------------

    def on_url(self, url: bytes) -> None:
        self.url += url

    def on_header(self, name: bytes, value: bytes) -> None:
        self.headers.add(
            name.decode("utf-8", "surrogateescape"), value.decode("utf-8", "surrogateescape")
        )

    def on_message_complete(self) -> None:
        self.complete = True

    # --- requests ------------------------------------------------------------------------------

    def _next(self) -> None:
        """Answer the next request in the buffer if it is quick; hand the connection off if not."""
        if self.closing:
            return
        if not self.length:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                # a head of bare LFs never ends in CRLF CRLF here: aiohttp reads (or refuses) it
                if len(self.buf) > MAX_HEAD or b"\n\n" in self.buf:
                    self._hand_off()
                return
            if not self._head(end + 4):
                self._hand_off()
                return
        if len(self.buf) < self.length:
            return  # the rest of the body is on its way
        answer = self._body(self.buf[self.head : self.length])
        if answer is None:
            self._hand_off()
            return
        self.buf = self.buf[self.length :]
        self.length, self.complete, self.url = 0, False, b""
        self.headers = CIMultiDict()
        self.busy = busy = asyncio.ensure_future(answer, loop=self.site.loop)
        busy.add_done_callback(self._answered)

    def _head(self, size: int) -> bool:
        """Read a head of `size` bytes; True if it is a request a route here may take."""
        try:
            self.parser.feed_data(self.buf[:size])
        except UNREAD:
            return False
        route = self.site.routes.get(self.url)
        if route is None or self.complete or self.parser.get_method() != b"POST":
            return False  # (complete already: no body)
        if self.parser.get_http_version() != "1.1" or self.parser.should_upgrade():
            return False
        headers = self.headers
        if "Transfer-Encoding" in headers or "Expect" in headers:
            return False
        lengths = headers.getall("Content-Length", [])
        if len(lengths) != 1 or not lengths[0].isdigit():
            return False
        length = int(lengths[0])
        if length > self.site.max_body:
            return False  # aiohttp answers 413
        self.route, self.keep_alive = route, self.parser.should_keep_alive()
        self.head, self.length = size, size + length
        return True

    def _body(self, body: bytes) -> Awaitable[tuple[int, str]] | None:
        """The route's answer to a whole request, or None (aiohttp's)."""
        try:
            self.parser.feed_data(body)
        except UNREAD:
            return None
        if not self.complete or self.route is None:
            return None
        try:
            return self.route(body, self.headers, self.remote)
        except Exception:  # a bug: aiohttp meets it again, and answers it as any handler's
            return None

    def _answered(self, answer: asyncio.Future[tuple[int, str]]) -> None:
        """Write the answer of the request in hand (a done callback: no task per request)."""
        transport = self.transport
        assert transport is not None
        self.busy, keep_alive = None, self.keep_alive  # (no other head is read until now)
        if answer.cancelled():  # (only at shutdown): nothing to say, and the order is lost
            transport.close()
            return
        try:
            status, text = answer.result()
        except Exception:  # a bug: answered as aiohttp answers a handler's exception
            log.exception("front_request_failed")
            status, text, keep_alive = 500, "500 Internal Server Error", False
        if transport.is_closing():
            return
        close = not keep_alive or self.closing
        transport.write(_Responses.get(status, text, close))
        if close:
            transport.close()
            return
        self.active = self.site.loop.time()
        self._go_on()

    def _go_on(self) -> None:
        """Read and answer again, if no request is being answered and the client reads."""
        if self.busy is not None or self.held:
            return
        if self.paused:
            self.paused = False
            self.transport.resume_reading()  # type: ignore[union-attr]
        if self.buf:
            self._next()

    def _hand_off(self) -> None:
        """From the request in the buffer on, this connection is aiohttp's."""
        transport = self.transport
        assert transport is not None and self.busy is None
        self.site.connections.discard(self)
        handler = self.site.aiohttp()
        transport.set_protocol(handler)
        handler.connection_made(transport)
        buffered, self.buf = self.buf, b""
        if buffered:
            handler.data_received(buffered)

    def shut(self) -> None:
        """Serve is stopping: close now if idle, else once the request being answered is."""
        self.closing = True
        if self.busy is None and self.transport is not None:
            self.transport.close()


class FrontSite(web.BaseSite):
    """A TCP site of an AppRunner whose connections start with `FrontProtocol`."""

    def __init__(
        self,
        runner: web.AppRunner,
        host: str,
        port: int,
        routes: Mapping[str, Quick],
        max_body: int,
        *,
        reuse_port: bool = False,
        keepalive_s: float = KEEPALIVE_S,
    ) -> None:
        super().__init__(runner)
        self.host, self._port, self.reuse_port = host, port, reuse_port
        self.routes = {path.encode(): quick for path, quick in routes.items()}
        self.max_body = max_body
        self.keepalive_s = keepalive_s
        self.connections: set[FrontProtocol] = set()
        self.loop = asyncio.get_running_loop()
        self._sweeping: asyncio.Task[None] | None = None

    @property
    def name(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def port(self) -> int:
        """The bound port (the one asked for until started; port 0 asks for any)."""
        if self._server is not None and self._server.sockets:
            return int(self._server.sockets[0].getsockname()[1])
        return self._port

    def aiohttp(self) -> asyncio.Protocol:
        server = self._runner.server
        assert server is not None
        return server()

    async def start(self) -> None:
        await super().start()
        self._server = await self.loop.create_server(
            lambda: FrontProtocol(self),
            self.host,
            self._port,
            backlog=self._backlog,
            reuse_port=self.reuse_port,
        )
        self._sweeping = self.loop.create_task(self._sweep(), name="front-keepalive")

    async def _sweep(self) -> None:
        """Close connections idle for the keep-alive timeout (a timer per request cost 3% of an
        ack's CPU; this looks every tenth of the timeout, so one may stay up to 10% longer)."""
        while True:
            await asyncio.sleep(self.keepalive_s / 10)
            expired = self.loop.time() - self.keepalive_s
            for connection in [c for c in self.connections if c.active < expired]:
                if connection.busy is None and connection.transport is not None:
                    connection.transport.close()

    async def stop(self) -> None:
        """Stop listening; idle connections close, each busy one once it has answered."""
        await super().stop()
        if self._sweeping is not None:
            self._sweeping.cancel()
        answering = [c.busy for c in self.connections if c.busy is not None]
        for connection in list(self.connections):
            connection.shut()
        if answering:
            with contextlib.suppress(Exception):
                await asyncio.wait(answering, timeout=self.keepalive_s)
