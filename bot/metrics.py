"""Prometheus metrics of the bot and GET /metrics: outbox lag, notifier retries, Slack API errors.

`serve` answers GET /metrics on its own port; `worker` (where the notifier's counters live)
on METRICS_PORT when that is set.
"""

from __future__ import annotations

from typing import Any

import redis.exceptions
import structlog
from aiohttp import web
from prometheus_client import CONTENT_TYPE_LATEST, Counter, Gauge, generate_latest
from slack_sdk.http_retry.async_handler import AsyncRetryHandler

import agent.metrics  # noqa: F401 - registers the agent's metrics with the default registry
from workflow.outbox import Outbox

log = structlog.get_logger("metrics")

NOTIFIER_RETRIES = Counter(
    "approvals_notifier_retries_total", "Outbox events delivered again after a failure or a crash."
)
NOTIFIER_FAILURES = Counter(
    "approvals_notifier_failures_total", "Deliveries that failed and were left for a retry."
)
SLACK_API_ERRORS = Counter(
    "approvals_slack_api_errors_total",
    "Slack Web API calls that failed (HTTP or ok:false), by method.",
    ["method", "error"],
)
OUTBOX_LAG = Gauge(
    "approvals_outbox_lag",
    "Outbox events not yet acked by the notifier group (read at scrape time).",
)


def failure_of(response: Any = None, error: Any = None) -> str | None:
    """What failed in one Slack answer (an exception, an HTTP error, `ok: false`), or None."""
    if error is not None:
        return type(error).__name__
    status = getattr(response, "status_code", None)
    if status is not None and status >= 400:
        return f"http_{status}"
    body = getattr(response, "body", None)
    if isinstance(body, dict) and body.get("ok") is False:
        code = body.get("error")
        return code if isinstance(code, str) and len(code) <= 64 else "ok_false"
    return None


class CountingRetryHandler(AsyncRetryHandler):
    """Counts failed Slack API calls by method and error (the SDK asks it about every answer,
    successes included); never retries itself (the real handlers come after it)."""

    async def can_retry_async(
        self, *, state: Any, request: Any, response: Any = None, error: Any = None
    ) -> bool:
        failure = failure_of(response, error)
        if failure is not None:
            url = str(getattr(request, "url", "")).split("?", 1)[0]
            SLACK_API_ERRORS.labels(url.rstrip("/").rsplit("/", 1)[-1] or "unknown", failure).inc()
        return False


def metrics_handler(outbox: Outbox | None):
    """GET /metrics in the Prometheus text format."""

    async def handle(_: web.Request) -> web.Response:
        if outbox is not None:
            try:
                OUTBOX_LAG.set(await outbox.lag())
            except (redis.exceptions.RedisError, OSError) as e:
                # the gauge keeps its last value; /healthz reports the store as down
                log.warning("outbox_lag_unreadable", error=repr(e)[:200])
        body = generate_latest()
        return web.Response(body=body, headers={"Content-Type": CONTENT_TYPE_LATEST})

    return handle


async def serve_metrics(port: int, outbox: Outbox | None) -> web.AppRunner:
    """GET /metrics on its own port (the worker's: METRICS_PORT); `cleanup()` the runner to stop."""
    app = web.Application()
    app.router.add_get("/metrics", metrics_handler(outbox))
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "0.0.0.0", port).start()
    log.info("metrics_serving", port=port)
    return runner
