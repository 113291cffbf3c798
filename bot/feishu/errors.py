"""What can go wrong talking to Feishu: a refused callback, or an open-API call that failed."""

from __future__ import annotations

from bot.apierrors import ApiCallFailed


class FeishuError(ApiCallFailed):
    """An open-API call failed; `code` and `msg` are Feishu's own (code -1: no JSON answer at all).

    Whatever came back (Feishu's JSON with a code, an HTML page from a proxy, a 405, a 5xx,
    nothing) the client raises one of these, with the path it called and the HTTP status.
    """

    platform = "feishu"

    def __init__(
        self,
        code: int,
        msg: str,
        *,
        http_status: int | None = None,
        log_id: str | None = None,
        method: str = "?",
    ) -> None:
        self.code = code
        self.msg = msg
        self.http_status = self.status = http_status
        self.log_id = log_id
        self.method = method
        where = f" (HTTP {http_status}" + (f", log_id {log_id})" if log_id else ")")
        super().__init__(f"Feishu error {code}: {msg}" + (where if http_status else ""))

    @property
    def plain(self) -> bool:
        """Feishu answered in its own words (JSON with a code), not a proxy page, a 5xx or silence."""
        return self.code != -1 and self.status is not None and self.status < 500

    @property
    def retryable(self) -> bool:
        return False


class FeishuRateLimited(FeishuError):
    """Feishu kept answering "too many requests" (HTTP 429 or a frequency-limit code)."""

    @property
    def retryable(self) -> bool:
        return True


class FeishuUnavailable(FeishuError):
    """Feishu did not answer in time, the connection failed, or it kept answering 5xx."""

    ambiguous = True  # a send may have been applied (its uuid makes sending it again safe)

    @property
    def retryable(self) -> bool:
        return True


class CallbackRejected(Exception):
    """An event or card callback that is not Feishu's: bad signature, token, timestamp or body.

    `status` is the HTTP status to answer with (401 for authentication, 400 for a bad body).
    """

    def __init__(self, reason: str, status: int = 401) -> None:
        self.reason = reason
        self.status = status
        super().__init__(reason)
