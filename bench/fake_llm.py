"""A fake OpenAI-compatible server for benchmarks: a fixed latency and a scripted leave flow.

It answers like a competent model: a user message that states a leave gets one
propose_leave call; a tool result gets a short final answer. Usage is estimated from the
request (4 characters a token) so token figures compare designs, not tokenizers.

In-process (`await FakeLLM(latency_s=0.3).start()`) or as its own process, so that it takes
no CPU from the process being measured:

    python bench/fake_llm.py --latency 0.3 [--port 0]   # prints {"port": N}; GET /stats
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import re
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

LEAVE = re.compile(
    r"(annual|sick|personal) leave from (\d{4}-\d\d-\d\d) to (\d{4}-\d\d-\d\d)(?:, reason: (.*))?",
    re.I,
)


def estimate_tokens(payload: Any) -> int:
    return max(1, len(json.dumps(payload, ensure_ascii=False)) // 4)


@dataclass
class FakeLLM:
    """Serves /v1/chat/completions on 127.0.0.1 with `latency_s` per call."""

    latency_s: float = 0.3
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    bodies: list[dict[str, Any]] = field(default_factory=list)
    keep_bodies: bool = False
    _runner: web.AppRunner | None = None
    port: int = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def reply_for(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        last = messages[-1]
        if last["role"] == "tool":
            data = json.loads(last["content"])
            text = data.get("summary", "Done.") + " Click Submit on the card to send it."
            return {"role": "assistant", "content": text}
        m = LEAVE.search(last.get("content") or "")
        if m is None:
            return {"role": "assistant", "content": "Which days, and which kind of leave?"}
        args = {"leave_type": m.group(1).lower(), "start": m.group(2), "end": m.group(3)}
        if m.group(4):
            args["reason"] = m.group(4)
        call = {
            "id": f"call_{self.calls}",
            "type": "function",
            "function": {"name": "propose_leave", "arguments": json.dumps(args)},
        }
        return {"role": "assistant", "content": "", "tool_calls": [call]}

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.json()
        await asyncio.sleep(self.latency_s)
        message = self.reply_for(body)
        prompt = estimate_tokens({"messages": body["messages"], "tools": body.get("tools", [])})
        completion = estimate_tokens(message)
        self.calls += 1
        self.prompt_tokens += prompt
        self.completion_tokens += completion
        if self.keep_bodies:
            self.bodies.append(body)
        finish = "tool_calls" if message.get("tool_calls") else "stop"
        return web.json_response(
            {
                "id": f"chatcmpl-{self.calls}",
                "object": "chat.completion",
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                },
            }
        )

    async def _stats(self, _: web.Request) -> web.Response:
        return web.json_response(self.stats())

    def stats(self) -> dict[str, Any]:
        """Calls served and tokens estimated so far."""
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }

    async def start(self, port: int = 0) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_get("/stats", self._stats)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        return self.base_url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()


async def _serve(latency_s: float, port: int) -> None:
    llm = FakeLLM(latency_s=latency_s)
    await llm.start(port)
    print(json.dumps({"port": llm.port}), flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await llm.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible server.")
    parser.add_argument("--latency", type=float, default=0.3, help="seconds per call")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    args = parser.parse_args(argv)
    asyncio.run(_serve(args.latency, args.port))


if __name__ == "__main__":
    sys.exit(main())
