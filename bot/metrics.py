"""Prometheus metrics of the bot and GET /metrics: outbox lag, notifier retries, Slack API errors."""

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


class CountingRetryHandler(AsyncRetryHandler):
    """Counts Slack API failures by method; never retries itself (the real handlers come after it)."""

    async def can_retry_async(
        self, *, state: Any, request: Any, response: Any = None, error: Any = None
    ) -> bool:
        method = str(getattr(request, "url", "")).rstrip("/").rsplit("/", 1)[-1] or "unknown"
        status = getattr(response, "status_code", None)
        SLACK_API_ERRORS.labels(method, f"http_{status}" if status else type(error).__name__).inc()
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
