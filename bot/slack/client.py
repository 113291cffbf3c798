"""The Slack Web API client: retries on connection errors, rate limits (Retry-After) and 5xx.

Every failure is a typed `SlackCallFailed` (bot/slack/errors.py); calls that create something
(chat.postMessage…) are not retried blindly on a 5xx or a dropped connection.
"""

from __future__ import annotations

from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.metrics import CountingRetryHandler
from bot.slack.errors import CheckedWebClient, ConnectionErrorRetry, ServerErrorRetry

DEFAULT_API_URL = "https://slack.com/api/"


def make_client(token: str, api_url: str | None = None, timeout_s: int = 10) -> AsyncWebClient:
    """An AsyncWebClient with the retry handlers the default client lacks (it only retries connections)."""
    base = (api_url or DEFAULT_API_URL).rstrip("/") + "/"
    return CheckedWebClient(
        token=token,
        base_url=base,
        timeout=timeout_s,
        retry_handlers=[
            CountingRetryHandler(),
            ConnectionErrorRetry(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetry(max_retry_count=2),
        ],
    )
