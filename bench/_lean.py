"""Lean stand-ins for the scale-out bench: the Slack Web API and the model, canned, in one process.

bench/_rig.py's usual stand-ins are the real thing in miniature — the Slack stand-in keeps
a workspace, checks every block and feeds the driver a change log; the fake model parses
each request with the stdlib and estimates its tokens — and together they cost ~5 ms of CPU a
turn on top of a runner's ~10. On 2 cores that caps how far a second runner can go, so the
scale-out bench would measure the stand-ins. Here both answer from a few lines of asyncio
(keep-alive HTTP/1.1, Content-Length bodies only, orjson), in a process of their own whose
CPU is reported:

- `/api/<method>`: `auth.test` says who the bot is; `chat.postMessage` and
  `chat.startStream` get a fresh `ts`; everything else `{"ok": true}`, its body unread (the
  head is searched for its length, not parsed header by header). It counts each method's
  calls (`slack_calls` in `GET /stats`) and, per
  thread, the streams started and stopped and the confirm cards posted (`GET /stats`).
  `GET /progress?until=N&wait_s=S` is the number of threads answered, once it reaches N or
  after S seconds (a long poll: the driver asks about once a second, not 20 times).
- `/v1/chat/completions`: after `--latency` seconds, a `propose_leave` call for a user
  message that states a leave, a short final answer for a tool result (as bench/fake_llm.py).

    python bench/_lean.py --latency 0.3 --team T0B… --bot-user U0BOT   # prints {"port": N}
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import signal
import sys
import time
from collections import Counter
from typing import Any
from urllib.parse import parse_qsl

import orjson
from fake_llm import FakeLLM  # bench/ is this script's directory, first on sys.path

MAX_BODY = 8 << 20
# the two headers read, found in the head's bytes (no per-header Python work a request)
LENGTH = re.compile(rb"\r\ncontent-length:[ \t]*(\d+)", re.I)
JSON_BODY = re.compile(rb"\r\ncontent-type:[^\r]*json", re.I)
OK = b'{"ok":true}'
# the methods whose parameters the answer or the counts need; the rest are answered unread
READS_PARAMS = frozenset({"chat.startStream", "chat.stopStream", "chat.postMessage"})


class Lean:
    """The canned answers and what they counted."""

    def __init__(self, latency_s: float, team: str, bot_user: str) -> None:
        self.latency_s = latency_s
        self.team = team
        self.bot_user = bot_user
        self.seq = 0
        self.calls: Counter[str] = Counter()
        self.started: Counter[str] = Counter()  # "channel:thread_ts" → streams started
        self.stopped: Counter[str] = Counter()
        self.stopped_at: dict[str, float] = {}  # time.perf_counter(): the driver's clock too
        self.cards: Counter[str] = Counter()
        self.stream_thread: dict[str, str] = {}  # stream message ts → its thread
        self.model_calls = 0
        self.until = 0  # a long poll's count to reach, and who waits for it
        self.waiting: list[tuple[Http, asyncio.TimerHandle]] = []
        self.replies = FakeLLM(latency_s=0.0)

    def next_ts(self) -> str:
        self.seq += 1
        return f"1900000000.{self.seq:06d}"

    def answer(self, path: str, body: bytes, is_json: bool) -> tuple[int, bytes]:
        """Any request but the model's, answered at once."""
        if path == "/stats":
            return 200, orjson.dumps(self.stats())
        if not path.startswith("/api/"):
            return 404, b'{"ok":false,"error":"unknown_path"}'
        method = path[5:]
        self.calls[method] += 1
        if method not in READS_PARAMS and method != "auth.test":
            return 200, OK
        params = _params(body, is_json)
        channel = str(params.get("channel") or "")
        if method == "auth.test":
            return 200, orjson.dumps(
                {
                    "ok": True,
                    "url": "https://bench.slack.example/",
                    "team": "bench",
                    "user": "bench-bot",
                    "team_id": self.team,
                    "user_id": self.bot_user,
                    "bot_id": "B0BENCH",
                    "is_enterprise_install": False,
                }
            )
        if method == "chat.startStream":
            ts = self.next_ts()
            thread = f"{channel}:{params.get('thread_ts')}"
            self.stream_thread[ts] = thread
            self.started[thread] += 1
            return 200, orjson.dumps({"ok": True, "channel": channel, "ts": ts})
        if method == "chat.stopStream":
            thread = self.stream_thread.get(str(params.get("ts")), "")
            self.stopped[thread] += 1
            if len(self.stopped) >= self.until:
                self.progressed()
            self.stopped_at.setdefault(thread, time.perf_counter())
            return 200, orjson.dumps({"ok": True, "channel": channel, "ts": params.get("ts")})
        if method == "chat.postMessage":
            ts = self.next_ts()
            blocks = params.get("blocks")
            if blocks and b"pending_confirm" in (
                blocks.encode() if isinstance(blocks, str) else orjson.dumps(blocks)
            ):
                self.cards[f"{channel}:{params.get('thread_ts')}"] += 1
            message = {"ts": ts, "text": params.get("text") or "", "user": self.bot_user}
            return 200, orjson.dumps({"ok": True, "channel": channel, "ts": ts, "message": message})
        return 200, OK

    def model(self, body: bytes) -> bytes:
        """The model's answer (sent `latency_s` after the request came in)."""
        request = orjson.loads(body)
        self.model_calls += 1
        self.replies.calls = self.model_calls  # (its call ids count calls)
        message = self.replies.reply_for(request)  # the same scripted flow as fake_llm.py
        tokens = len(body) // 4
        return orjson.dumps(
            {
                "id": f"chatcmpl-{self.model_calls}",
                "object": "chat.completion",
                "model": request.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": "tool_calls" if "tool_calls" in message else "stop",
                    }
                ],
                "usage": {"prompt_tokens": tokens, "completion_tokens": 20, "total_tokens": tokens},
            }
        )

    def progress(self, http: Http, query: str) -> None:
        """Answer GET /progress once `until` threads were answered, or after `wait_s`."""
        args = dict(parse_qsl(query))
        self.until = int(args.get("until") or 0)
        if len(self.stopped) >= self.until:
            http.respond(200, self.progress_body())
            return
        loop = asyncio.get_running_loop()
        timer = loop.call_later(float(args.get("wait_s") or 1.0), self.progressed)
        self.waiting.append((http, timer))

    def progressed(self) -> None:
        waiting, self.waiting = self.waiting, []
        for http, timer in waiting:
            timer.cancel()
            http.respond(200, self.progress_body())

    def progress_body(self) -> bytes:
        return b'{"stopped":%d}' % len(self.stopped)

    def stats(self) -> dict[str, Any]:
        return {
            "calls": self.model_calls,  # as bench/fake_llm.py's /stats
            "slack_calls": dict(self.calls),
            "started": dict(self.started),
            "stopped": dict(self.stopped),
            "stopped_at": self.stopped_at,
            "cards": dict(self.cards),
        }


def _params(body: bytes, is_json: bool) -> dict[str, Any]:
    if not body:
        return {}
    if is_json:
        data = orjson.loads(body)
        return data if isinstance(data, dict) else {}
    return dict(parse_qsl(body.decode()))


class Http(asyncio.Protocol):
    """Keep-alive HTTP/1.1 with Content-Length bodies: all the bot's clients send.

    Answered from the protocol's callbacks, no task a request: the Slack methods at once, the
    model from a timer after its latency (a client sends the next request on a connection
    only once it has the answer, so answers cannot overtake each other).
    """

    def __init__(self, lean: Lean) -> None:
        self.lean = lean
        self.buf = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.buf += data
        while True:
            end = self.buf.find(b"\r\n\r\n")
            if end < 0:
                return
            head = bytes(self.buf[:end])
            found = LENGTH.search(head)
            length = int(found.group(1)) if found else 0
            if length > MAX_BODY:
                self.transport.close()  # type: ignore[union-attr]
                return
            if len(self.buf) < end + 4 + length:
                return
            body = bytes(self.buf[end + 4 : end + 4 + length])
            del self.buf[: end + 4 + length]
            path, _, query = (
                head[: head.find(b"\r\n")].decode("latin-1").split(" ")[1].partition("?")
            )
            if path == "/progress":
                self.lean.progress(self, query)
            elif path == "/v1/chat/completions":
                out = self.lean.model(body)
                asyncio.get_running_loop().call_later(self.lean.latency_s, self.respond, 200, out)
            else:
                self.respond(*self.lean.answer(path, body, JSON_BODY.search(head) is not None))

    def respond(self, status: int, out: bytes) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        reason = b"OK" if status == 200 else b"Not Found"
        self.transport.write(
            b"HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (status, reason, len(out), out)
        )


async def serve(latency_s: float, team: str, bot_user: str, port: int) -> None:
    lean = Lean(latency_s, team, bot_user)
    loop = asyncio.get_running_loop()
    server = await loop.create_server(lambda: Http(lean), "127.0.0.1", port, backlog=4096)
    print(json.dumps({"port": server.sockets[0].getsockname()[1]}), flush=True)
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    server.close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per model call")
    parser.add_argument("--team", required=True)
    parser.add_argument("--bot-user", required=True)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        import uvloop
    except ImportError:
        asyncio.run(serve(args.latency, args.team, args.bot_user, args.port))
        return
    uvloop.run(serve(args.latency, args.team, args.bot_user, args.port))


if __name__ == "__main__":
    sys.exit(main())
