"""The Slack Web API client: one shared HTTP session; retries on connection errors, rate limits (Retry-After) and 5xx.

Every failure is a typed `SlackCallFailed` (bot/slack/errors.py); calls that create something
(chat.postMessage…) are not retried blindly on a 5xx or a dropped connection.
"""

from __future__ import annotations

from typing import Any

import aiohttp
import orjson
from slack_sdk.http_retry.builtin_async_handlers import AsyncRateLimitErrorRetryHandler
from slack_sdk.web.async_client import AsyncWebClient

from bot.metrics import CountingRetryHandler
from bot.slack.errors import CheckedWebClient, ConnectionErrorRetry, ServerErrorRetry

DEFAULT_API_URL = "https://slack.com/api/"
MAX_CONNECTIONS = 200  # to the Web API, per process; the keep-alive pool is reused by every call


def shared_session() -> aiohttp.ClientSession:
    """One keep-alive HTTP session for every Web API call (call inside the running loop).

    Without it AsyncWebClient opens a new session and TCP connection per call: about six per
    turn, and a sixth of serve's CPU under a burst.
    """
    return aiohttp.ClientSession(
        connector=aiohttp.TCPConnector(limit=MAX_CONNECTIONS, ttl_dns_cache=300),
        json_serialize=_json_text,
    )


def _json_text(body: Any) -> str:
    # the calls' JSON bodies (blocks, stream chunks) with orjson: the stdlib's encoder was ~1.3%
    # of a turn runner's CPU under a burst (py-spy); UTF-8 as Slack reads it, not \u escapes
    return orjson.dumps(body).decode()


def make_client(
    token: str,
    api_url: str | None = None,
    timeout_s: int = 10,
    session: aiohttp.ClientSession | None = None,
) -> AsyncWebClient:
    """An AsyncWebClient with the retry handlers the default client lacks (it only retries connections).

    `session`: shared by every call (close it with `close_client`); None: a session per call.
    """
    base = (api_url or DEFAULT_API_URL).rstrip("/") + "/"
    return CheckedWebClient(
        token=token,
        base_url=base,
        timeout=timeout_s,
        session=session,
        retry_handlers=[
            CountingRetryHandler(),
            ConnectionErrorRetry(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            ServerErrorRetry(max_retry_count=2),
        ],
    )


async def close_client(client: AsyncWebClient) -> None:
    """Close the client's shared session, if it has one."""
    if client.session is not None and not client.session.closed:
        await client.session.close()
