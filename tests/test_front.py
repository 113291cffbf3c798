"""bot/front.py on a real socket: the requests its route takes are answered there, the rest by aiohttp.

The route here is a fake: it takes a body that starts with `quick` (answering 200, or what the
test sets) and leaves anything else to the application, which answers 201 `slow:<body>`; so
every answer says who gave it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Mapping
from dataclasses import dataclass, field

import aiohttp
import pytest
from aiohttp import web

from bot import front
from bot.front import FrontSite

MAX_BODY = 64
PATH = "/slack/events"


@dataclass
class Route:
    """Takes bodies that start with b"quick"; `hold` keeps its answers until set."""

    seen: list[bytes] = field(default_factory=list)
    answer: tuple[int, str] = (200, "")
    hold: asyncio.Event | None = None
    done: list[bytes] = field(default_factory=list)
    by_future: bool = False  # answer with a future set from a callback, as the DM route does

    def __call__(
        self, body: bytes, headers: Mapping[str, str], remote: str | None
    ) -> Awaitable[tuple[int, str]] | None:
        if not body.startswith(b"quick") or headers.get("X-Test") == "slow":
            return None
        if body == b"quick boom":
            raise RuntimeError("a bug in the route")
        self.seen.append(body)
        if self.by_future:
            return self._future(body)
        return self._answer(body)

    def _future(self, body: bytes) -> asyncio.Future[tuple[int, str]]:
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[tuple[int, str]] = loop.create_future()

        def done() -> None:
            self.done.append(body)
            if body == b"quick fails later":
                answer.set_exception(RuntimeError("a bug behind the route"))
            else:
                answer.set_result(self.answer)

        loop.call_later(0.01, done)
        return answer

    async def _answer(self, body: bytes) -> tuple[int, str]:
        if self.hold is not None:
            await self.hold.wait()
        self.done.append(body)
        return self.answer


@dataclass
class Served:
    site: FrontSite
    runner: web.AppRunner
    route: Route

    async def connect(self) -> Conn:
        return Conn(*await asyncio.open_connection("127.0.0.1", self.site.port))


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def by_aiohttp(self) -> bool:
        return self.headers.get("server", "").startswith("Python/")


@dataclass
class Conn:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def response(self) -> Response:
        head = await asyncio.wait_for(self.reader.readuntil(b"\r\n\r\n"), 5)
        status_line, *lines = head.decode("latin-1").split("\r\n")[:-2]
        headers = {k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines)}
        body = await self.reader.readexactly(int(headers.get("content-length", "0")))
        return Response(int(status_line.split(" ")[1]), headers, body)

    async def closed(self) -> bool:
        """True once the server has closed the connection (within 5 s)."""
        return await asyncio.wait_for(self.reader.read(), 5) == b""

    def close(self) -> None:
        self.writer.close()


def post(body: bytes, *extra: str, version: str = "1.1", path: str = PATH) -> bytes:
    head = [f"POST {path} HTTP/{version}", "Host: x", f"Content-Length: {len(body)}", *extra]
    return ("\r\n".join(head) + "\r\n\r\n").encode() + body


def app() -> web.Application:
    async def slow(request: web.Request) -> web.Response:
        return web.Response(status=201, text="slow:" + (await request.text()))

    async def healthz(_: web.Request) -> web.Response:
        return web.json_response({"ok": True})

    application = web.Application(client_max_size=MAX_BODY)
    application.router.add_post(PATH, slow)
    application.router.add_get("/healthz", healthz)
    return application


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    runner = web.AppRunner(app(), access_log=None)
    await runner.setup()
    route = Route()
    site = FrontSite(runner, "127.0.0.1", 0, {PATH: route}, MAX_BODY)
    await site.start()
    yield Served(site, runner, route)
    await runner.cleanup()


async def test_keep_alive_requests_are_answered_here_one_after_another(served: Served):
    conn = await served.connect()
    for i in range(3):
        await conn.send(post(b"quick %d" % i))
        r = await conn.response()
        assert (r.status, r.body, r.by_aiohttp) == (200, b"", False)
        assert "date" in r.headers and "connection" not in r.headers
    assert served.route.done == [b"quick 0", b"quick 1", b"quick 2"]
    conn.close()


async def test_pipelined_requests_are_answered_in_order_and_aiohttp_takes_over_at_the_first_it_must(
    served: Served,
):
    conn = await served.connect()
    await conn.send(post(b"quick a") + post(b"quick b") + post(b"other") + post(b"quick c"))
    answers = [await conn.response() for _ in range(4)]
    assert [(r.status, r.body) for r in answers] == [
        (200, b""),
        (200, b""),
        (201, b"slow:other"),
        (201, b"slow:quick c"),  # the connection is aiohttp's from `other` on
    ]
    assert served.route.done == [b"quick a", b"quick b"]
    conn.close()


async def test_answers_the_route_gives_through_futures_are_written_in_order(served: Served):
    """A route may answer with a future set from a callback (no task per request): pipelined
    requests are still answered one at a time, in order, and the connection stays open."""
    served.route.by_future = True
    conn = await served.connect()
    await conn.send(b"".join(post(b"quick %d" % i) for i in range(5)))
    answers = [await conn.response() for _ in range(5)]
    assert [(r.status, r.by_aiohttp) for r in answers] == [(200, False)] * 5
    assert served.route.done == [b"quick %d" % i for i in range(5)]
    await conn.send(post(b"quick again"))
    assert (await conn.response()).status == 200
    conn.close()


async def test_a_future_that_fails_is_answered_500_and_the_connection_closed(served: Served):
    served.route.by_future = True
    conn = await served.connect()
    await conn.send(post(b"quick fails later") + post(b"quick never read"))
    r = await conn.response()
    assert (r.status, r.headers.get("connection")) == (500, "close")
    assert await conn.closed()
    assert served.route.seen == [b"quick fails later"]


async def test_a_request_in_pieces_is_answered_once_it_is_whole(served: Served):
    conn = await served.connect()
    data = post(b"quick in pieces")
    for piece in (data[:5], data[5:30], data[30:-6], data[-6:-2], data[-2:]):
        await conn.send(piece)
        await asyncio.sleep(0.02)
    r = await conn.response()
    assert (r.status, r.by_aiohttp) == (200, False)
    assert served.route.done == [b"quick in pieces"]
    conn.close()


async def test_a_client_that_does_not_read_its_answers_gets_no_more_until_it_does(
    served: Served,
):
    conn = await served.connect()
    await conn.send(post(b"quick 1"))
    assert (await conn.response()).status == 200
    [connection] = served.site.connections
    connection.pause_writing()  # (what the transport says when its buffer is full)
    await conn.send(post(b"quick 2") + post(b"quick 3"))
    await asyncio.sleep(0.05)
    assert served.route.seen == [b"quick 1"]
    connection.resume_writing()
    assert [(await conn.response()).status for _ in range(2)] == [200, 200]
    assert served.route.done == [b"quick 1", b"quick 2", b"quick 3"]
    conn.close()


@pytest.mark.parametrize(
    ("request_bytes", "status"),
    [
        (post(b"quick" + b"x" * MAX_BODY), 413),
        (
            b"POST /slack/events HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nquick!",
            400,
        ),
    ],
    ids=["body-over-the-limit", "head-llhttp-refuses"],
)
async def test_what_aiohttp_refuses_is_refused_by_aiohttp(
    served: Served, request_bytes: bytes, status: int
):
    conn = await served.connect()
    await conn.send(request_bytes)
    r = await conn.response()
    assert r.status == status and r.by_aiohttp
    assert served.route.seen == []
    conn.close()


async def test_a_connection_closed_mid_request_is_dropped_and_the_site_goes_on(served: Served):
    conn = await served.connect()
    await conn.send(post(b"quick never finished")[:-4])
    conn.close()
    await asyncio.sleep(0.05)
    assert served.route.seen == [] and not served.site.connections
    again = await served.connect()
    await again.send(post(b"quick next"))
    assert (await again.response()).status == 200
    again.close()


async def test_a_connection_closed_while_answered_still_has_its_request_done(served: Served):
    served.route.hold = asyncio.Event()
    conn = await served.connect()
    await conn.send(post(b"quick then gone"))
    await asyncio.sleep(0.05)
    conn.close()
    await asyncio.sleep(0.05)
    served.route.hold.set()
    await asyncio.sleep(0.05)
    assert served.route.done == [b"quick then gone"]  # (a queued DM stays queued)
    assert not served.site.connections


async def test_http_1_0_goes_to_aiohttp(served: Served):
    conn = await served.connect()
    await conn.send(post(b"quick old", version="1.0"))
    r = await conn.response()
    assert (r.status, r.body) == (201, b"slow:quick old")
    assert await conn.closed()
    assert served.route.seen == []


async def test_a_head_of_bare_line_feeds_is_answered_by_aiohttp_not_left_waiting(served: Served):
    conn = await served.connect()
    await conn.send(b"POST /slack/events HTTP/1.1\nHost: x\nContent-Length: 10\n\nquick lf!!")
    reply = await asyncio.wait_for(conn.reader.readuntil(b"\r\n"), 5)  # an answer, not a hang
    assert reply.endswith(b" 400 Bad Request\r\n")  # as aiohttp alone refuses it
    assert served.route.seen == []


async def test_connection_close_is_answered_here_and_the_connection_closed(served: Served):
    conn = await served.connect()
    await conn.send(post(b"quick bye", "Connection: close") + post(b"quick ignored"))
    r = await conn.response()
    assert (r.status, r.headers.get("connection")) == (200, "close")
    assert await conn.closed()
    assert served.route.done == [b"quick bye"]


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"POST /slack/events HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"a\r\nquick chun\r\n0\r\n\r\n",
        post(b"quick expecting", "Expect: 100-continue"),
        post(b"quick", "X-Test: slow"),  # the route leaves it (a bad signature, not a DM…)
        post(b"quick elsewhere", path="/slack/events?x=1"),
        post(b"quick upgrade", "Connection: Upgrade", "Upgrade: h2c"),
        post(b"quick boom"),  # (aiohttp meets the bug again, and answers it its way)
    ],
    ids=["chunked", "expect", "route-declines", "query", "upgrade", "route-raises"],
)
async def test_what_the_route_does_not_take_is_aiohttp_s(served: Served, request_bytes: bytes):
    conn = await served.connect()
    await conn.send(request_bytes)
    r = await conn.response()
    if r.status == 100:  # (Expect: aiohttp says continue, then answers)
        r = await conn.response()
    assert r.status == 201 and r.body.startswith(b"slow:quick") and r.by_aiohttp
    conn.close()


async def test_pipelined_requests_beyond_the_buffer_limit_wait_and_are_all_answered(
    served: Served, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(front, "BUFFER_LIMIT", 200)
    served.route.hold = asyncio.Event()
    conn = await served.connect()
    await conn.send(b"".join(post(b"quick %d" % i) for i in range(20)))
    await asyncio.sleep(0.05)
    [connection] = served.site.connections
    assert connection.paused  # reading stopped while the first is answered
    served.route.hold.set()
    answers = [await conn.response() for _ in range(20)]
    assert {r.status for r in answers} == {200}
    assert served.route.done == [b"quick %d" % i for i in range(20)]
    assert not connection.paused
    conn.close()


async def test_other_routes_on_the_same_connection_get_aiohttp_s_answer(served: Served):
    conn = await served.connect()
    await conn.send(post(b"quick first"))
    assert (await conn.response()).status == 200
    await conn.send(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    r = await conn.response()
    assert (r.status, r.body, r.by_aiohttp) == (200, b'{"ok": true}', True)
    await conn.send(b"GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n")
    assert (await conn.response()).status == 404
    conn.close()


async def test_the_route_s_refusal_is_written_with_its_text(served: Served):
    served.route.answer = (503, "the queue did not answer in time")
    conn = await served.connect()
    await conn.send(post(b"quick refused"))
    r = await conn.response()
    assert (r.status, r.body) == (503, b"the queue did not answer in time")
    assert r.headers["content-type"] == "text/plain; charset=utf-8"
    await conn.send(post(b"quick again"))  # still open
    assert (await conn.response()).status == 503
    conn.close()


async def test_aiohttp_s_client_keeps_one_connection_for_quick_and_other_requests(served: Served):
    base = f"http://127.0.0.1:{served.site.port}"
    connector = aiohttp.TCPConnector(limit=1)
    async with aiohttp.ClientSession(connector=connector) as http:
        statuses = []
        for body in (b"quick 1", b"quick 2", b"other", b"quick 3"):
            async with http.post(base + PATH, data=body) as r:
                statuses.append((r.status, await r.read()))
        async with http.get(base + "/healthz") as r:
            assert r.status == 200
    assert statuses == [(200, b""), (200, b""), (201, b"slow:other"), (201, b"slow:quick 3")]


async def test_idle_connections_are_closed_after_the_keep_alive_timeout(served: Served):
    site = FrontSite(served.runner, "127.0.0.1", 0, {PATH: served.route}, MAX_BODY, keepalive_s=0.2)
    await site.start()
    answered, stalled, fresh = [
        Conn(*await asyncio.open_connection("127.0.0.1", site.port)) for _ in range(3)
    ]
    await answered.send(post(b"quick"))
    assert (await answered.response()).status == 200
    await stalled.send(post(b"quick half")[:-3])
    loop = asyncio.get_running_loop()
    started = loop.time()
    for conn in (answered, stalled, fresh):
        assert await conn.closed()
    assert 0.15 < loop.time() - started < 1.0
    await site.stop()


async def test_stopping_answers_the_request_in_hand_then_closes(served: Served):
    served.route.hold = asyncio.Event()
    idle, busy = await served.connect(), await served.connect()
    await busy.send(post(b"quick in hand"))
    await asyncio.sleep(0.05)
    stopping = asyncio.create_task(served.site.stop())
    await asyncio.sleep(0.05)
    assert await idle.closed()
    served.route.hold.set()
    r = await busy.response()
    assert (r.status, r.headers.get("connection")) == (200, "close")
    assert await busy.closed()
    await stopping
