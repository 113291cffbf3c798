"""Every failed Slack Web API call as one typed error, whatever came back (JSON or not, any status).

slack_sdk raises `SlackApiError` for an `ok: false` answer, but on an HTML 502 from a proxy its
`response.data` is a string (code doing `e.response.get("error")` crashed on it), and a lost
connection is an aiohttp error instead. `CheckedWebClient` turns all of them into
`SlackCallFailed`: still a `SlackApiError` (so existing handlers catch it), whose `response`
is always a dict-like `{"ok": false, "error": code}`, with the method, the HTTP status and
whether the call may have been applied although it failed (`ambiguous`: a 5xx or a
connection lost after the request was sent), which a caller resolves by reading back.

The SDK's own retries on a 5xx or a dropped connection would re-post a message blindly:
`WRITES` are never retried by them; their callers decide (the notifier looks in the DM history).
"""

from __future__ import annotations

from typing import Any

import aiohttp
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.apierrors import ApiCallFailed

# calls that create something each time they run: a blind retry could do it twice
WRITES = frozenset(
    {
        "chat.postMessage",
        "chat.postEphemeral",
        "chat.startStream",
        "chat.appendStream",
        "chat.stopStream",
    }
)
# ok:false codes that mean Slack failed on its side (it may or may not have acted)
SERVER_CODES = frozenset(
    {"internal_error", "fatal_error", "request_timeout", "service_unavailable"}
)


def method_of(url: Any) -> str:
    """The Web API method a request URL calls (`…/api/chat.postMessage` → `chat.postMessage`)."""
    return str(url or "").split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1] or "unknown"


class FailedResponse(dict[str, Any]):
    """What a failed call answered, always readable as `{"ok": False, "error": code}`."""

    def __init__(self, code: str, status: int | None) -> None:
        super().__init__(ok=False, error=code)
        self.status_code = status
        self.data = self
        self.headers: dict[str, str] = {}


class SlackCallFailed(SlackApiError, ApiCallFailed):
    """A Web API call failed: `code` is Slack's error, `http_<status>`, or `unreachable`."""

    platform = "slack"

    def __init__(self, method: str, code: str, status: int | None, *, ambiguous: bool) -> None:
        self.method = method
        self.code = code
        self.status = status
        self.ambiguous = ambiguous
        where = f" (HTTP {status})" if status else ""
        super().__init__(f"Slack {method} failed: {code}{where}", FailedResponse(code, status))

    @property
    def plain(self) -> bool:
        """Slack answered normally with an error code (HTTP 200, `ok: false`): the code says it all."""
        return self.status == 200

    @property
    def retryable(self) -> bool:
        """Whether trying again later may succeed (rate limits, server errors, no answer)."""
        return self.ambiguous or self.code in ("ratelimited", "unreachable") or self.status == 429

    @classmethod
    def of(cls, method: str, error: Exception) -> SlackCallFailed:
        """The typed error for whatever a call raised."""
        if isinstance(error, SlackCallFailed):
            return error
        if isinstance(error, SlackApiError):
            response = error.response
            status = getattr(response, "status_code", None)
            data = getattr(response, "data", None)
            code = data.get("error") if isinstance(data, dict) else None
            if not isinstance(code, str) or not code:
                code = f"http_{status}" if status else "no_answer"
            server = (status or 0) >= 500 or code in SERVER_CODES
            return cls(method, code, status, ambiguous=server)
        # never connected: nothing was sent; anything else may have reached Slack
        sent = not isinstance(error, aiohttp.ClientConnectorError)
        return cls(method, "unreachable", None, ambiguous=sent)


class CheckedWebClient(AsyncWebClient):
    """An AsyncWebClient whose every failure is a `SlackCallFailed`."""

    async def api_call(self, api_method: str, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        try:
            return await super().api_call(api_method, *args, **kwargs)
        except (SlackApiError, aiohttp.ClientError, TimeoutError) as e:
            raise SlackCallFailed.of(api_method, e) from e


class ServerErrorRetry(AsyncServerErrorRetryHandler):
    """The SDK's 5xx retry, except for calls that create something (see `WRITES`)."""

    async def _can_retry_async(self, *, state, request, response=None, error=None) -> bool:  # type: ignore[no-untyped-def, override]
        if method_of(getattr(request, "url", None)) in WRITES:
            return False
        return await super()._can_retry_async(
            state=state, request=request, response=response, error=error
        )


class ConnectionErrorRetry(AsyncConnectionErrorRetryHandler):
    """The SDK's dropped-connection retry, except for calls that create something."""

    async def _can_retry_async(self, *, state, request, response=None, error=None) -> bool:  # type: ignore[no-untyped-def, override]
        if method_of(getattr(request, "url", None)) in WRITES and not isinstance(
            error, aiohttp.ClientConnectorError
        ):
            return False
        return await super()._can_retry_async(
            state=state, request=request, response=response, error=error
        )
