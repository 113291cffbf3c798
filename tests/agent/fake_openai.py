"""A local stand-in for an OpenAI-compatible /v1/chat/completions server.

Each request gets the next scripted answer (status, JSON body, headers, delay) and is
recorded, so the real client is tested over real HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from agent.messages import ToolSpec

# The key the test clients send; no error or log line may repeat it.
API_KEY = "sk-test-0123456789-secret"


@dataclass
class Answer:
    """One scripted HTTP answer; a str body is sent as is, anything else as JSON."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


class FakeOpenAI:
    """Serves scripted answers on 127.0.0.1 at a free port and records every request."""

    def __init__(self) -> None:
        self.answers: deque[Answer] = deque()
        self.requests: list[dict[str, Any]] = []
        self.request_headers: list[dict[str, str]] = []
        self._released = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        """The URL to give the client, ending in /v1."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def last_request(self) -> dict[str, Any]:
        """The body of the newest request."""
        return self.requests[-1]

    def answer(
        self,
        body: Any = None,
        *,
        status: int = 200,
        headers: dict[str, str] | None = None,
        delay: float = 0.0,
    ) -> None:
        """Queue the answer to the next request."""
        self.answers.append(Answer(body, status, headers or {}, delay))

    def error(
        self, status: int, message: str, *, headers: dict[str, str] | None = None, **fields: Any
    ) -> None:
        """Queue an OpenAI-shaped error: {"error": {"message", "type", "code", ...}}."""
        error = {"message": message, "type": None, "param": None, "code": None, **fields}
        self.answer({"error": error}, status=status, headers=headers)

    async def start(self) -> None:
        """Listen on a free port."""
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        self._runner = web.AppRunner(app, shutdown_timeout=1.0)
        await self._runner.setup()
        # Bind the socket ourselves to learn the free port the OS picked.
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        await web.SockSite(self._runner, sock).start()

    async def stop(self) -> None:
        """Release handlers still delaying and stop listening."""
        self._released.set()
        if self._runner is not None:
            await self._runner.cleanup()

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.requests.append(await request.json())
        self.request_headers.append(dict(request.headers))
        if not self.answers:
            return web.json_response(
                {"error": {"message": "fake server: no scripted answer left", "code": None}},
                status=400,
            )
        answer = self.answers.popleft()
        if answer.delay:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._released.wait(), answer.delay)
        if isinstance(answer.body, str):
            return web.Response(text=answer.body, status=answer.status, headers=answer.headers)
        return web.Response(
            text=json.dumps(answer.body),
            status=answer.status,
            headers=answer.headers,
            content_type="application/json",
        )


def wire_call(name: str, arguments: Any, id: str | None = "call_abc123") -> dict[str, Any]:
    """A tool call as servers send it; a dict `arguments` is encoded to a JSON string once."""
    if not isinstance(arguments, str) and arguments is not None:
        arguments = json.dumps(arguments)
    return {"id": id, "type": "function", "function": {"name": name, "arguments": arguments}}


def completion(
    content: str | None = "",
    *,
    tool_calls: list[dict[str, Any]] | None = None,
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    model: str = "test-model",
    **message_fields: Any,
) -> dict[str, Any]:
    """A chat.completion body shaped like OpenAI's; extra message fields (reasoning_content…) as given."""
    message: dict[str, Any] = {"role": "assistant", "content": content, **message_fields}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    if finish_reason is None:
        finish_reason = "tool_calls" if tool_calls else "stop"
    return {
        "id": "chatcmpl-8abc",
        "object": "chat.completion",
        "created": 1_764_000_000,
        "model": model,
        "system_fingerprint": "fp_test",
        "choices": [
            {"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}
        ],
        "usage": usage or {"prompt_tokens": 12, "completion_tokens": 5, "total_tokens": 17},
    }


# Tools the tests offer: one with a single argument, one with several.
BALANCE = ToolSpec(
    name="get_leave_balance",
    description="Days of leave the person has left.",
    parameters={
        "type": "object",
        "properties": {"leave_type": {"type": "string"}},
        "required": ["leave_type"],
    },
)
PROPOSE = ToolSpec(
    name="propose_leave",
    description="Prepare a leave request for the person to confirm.",
    parameters={
        "type": "object",
        "properties": {
            "leave_type": {"type": "string"},
            "days": {"type": "array", "items": {"type": "string"}},
            "half_day": {"type": "boolean"},
            "reason": {"type": "string"},
        },
        "required": ["leave_type", "days"],
    },
)
WHO_IS_OUT = ToolSpec(
    name="who_is_out",
    description="People out of office today.",
    parameters={"type": "object", "properties": {}},
)
TOOLS = (BALANCE, PROPOSE, WHO_IS_OUT)
