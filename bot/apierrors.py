"""A failed call to a chat platform's API, whatever the platform: one typed error, reported once, said once.

Slack's `SlackCallFailed` (bot/slack/errors.py) and Feishu's `FeishuError`
(bot/feishu/errors.py) are both an `ApiCallFailed`: whatever came back — the platform's own
error code, an HTML page from a proxy, a 405, a 5xx, or nothing at all — the caller gets the
method, the code, the HTTP status and whether the call may have been applied although it
failed (`ambiguous`). A turn that fails on one reports it here (one log line; the traceback
only when the platform did not answer in its own words, so a strange answer is never
invisible and a plain one is not noise) and tells the person `apology`, in their language.
"""

from __future__ import annotations

from typing import Any

from bot.wording import platform_failed


class ApiCallFailed(Exception):
    """Base of every platform's failed-call error (the platforms set the attributes)."""

    platform: str = "?"
    method: str = "?"
    code: Any = None
    status: int | None = None
    ambiguous: bool = False

    @property
    def plain(self) -> bool:
        """The platform answered normally, with an error code of its own: the code says it all."""
        return False

    @property
    def retryable(self) -> bool:
        """Whether trying again later may succeed (rate limits, server errors, no answer)."""
        return self.ambiguous


def report(log: Any, event: str, error: ApiCallFailed, **fields: Any) -> None:
    """Log a failed call once: its traceback only when the answer was not the platform's own words."""
    log.error(
        event,
        platform=error.platform,
        method=error.method,
        code=error.code,
        status=error.status,
        error=str(error)[:300],
        exc_info=None if error.plain else error,
        **fields,
    )


def apology(locale: str, error: ApiCallFailed) -> str:
    """What the person is told when their turn failed on the platform's API."""
    return platform_failed(locale, error.platform)
