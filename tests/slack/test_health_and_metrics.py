"""/healthz tells ok or not without addresses; the Slack error counter counts errors; the worker's /metrics."""

from __future__ import annotations

import socket

import aiohttp
import redis.asyncio as aioredis
from aiohttp.test_utils import TestClient, TestServer
from prometheus_client import REGISTRY

from bot.metrics import NOTIFIER_RETRIES, serve_metrics
from bot.runtime import build_runtime
from bot.serve import make_app
from bot.settings import Settings
from bot.tasks import BackgroundTasks
from tests.slack.harness import SlackHarness

OLIVER = "U0OLIVER"


def _slack_errors() -> float:
    return sum(
        s.value
        for metric in REGISTRY.collect()
        if metric.name == "approvals_slack_api_errors"
        for s in metric.samples
        if s.name.endswith("_total")
    )


async def test_healthz_says_not_ok_without_the_store_s_address():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    settings = Settings(_env_file=None)
    runtime = build_runtime(settings)
    await runtime.redis.aclose()
    runtime.redis = aioredis.from_url(f"redis://127.0.0.1:{port}/0")  # the store went away
    runtime.turns.queue.ingress = runtime.redis  # (/healthz asks through the ingress client)
    async with TestClient(TestServer(make_app(runtime, [], BackgroundTasks()))) as c:
        resp = await c.get("/healthz")
        text = await resp.text()
    await runtime.close()
    assert resp.status == 503 and (await resp.json()) == {"ok": False, "redis": "unreachable"}
    assert "127.0.0.1" not in text and str(port) not in text


async def test_the_slack_error_counter_counts_only_failures(slack: SlackHarness):
    """A whole turn of successful calls adds nothing; one ok:false answer adds one."""
    h = slack
    before = _slack_errors()
    await h.dm(OLIVER, "annual leave next Monday to Wednesday")
    await h.settle()
    assert _slack_errors() == before
    h.standin.fail_next("assistant.threads.setStatus", error="not_allowed")
    await h.dm(OLIVER, "what is my balance?")
    await h.settle()
    assert _slack_errors() == before + 1


async def test_the_worker_serves_its_metrics_on_its_own_port():
    """The notifier's counters live in the worker: METRICS_PORT serves them."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    NOTIFIER_RETRIES.inc()
    runner = await serve_metrics(port, None)
    try:
        async with (
            aiohttp.ClientSession() as http,
            http.get(f"http://127.0.0.1:{port}/metrics") as resp,
        ):
            body = await resp.text()
    finally:
        await runner.cleanup()
    assert resp.status == 200
    line = next(x for x in body.splitlines() if x.startswith("approvals_notifier_retries_total"))
    assert float(line.split()[-1]) >= 1
