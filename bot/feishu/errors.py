"""What can go wrong talking to Feishu: a refused callback, or an open-API call that failed."""

from __future__ import annotations


class FeishuError(Exception):
    """An open-API call failed; `code` and `msg` are Feishu's own (code -1: no answer at all)."""

    def __init__(
        self, code: int, msg: str, *, http_status: int | None = None, log_id: str | None = None
    ) -> None:
        self.code = code
        self.msg = msg
        self.http_status = http_status
        self.log_id = log_id
        where = f" (HTTP {http_status}" + (f", log_id {log_id})" if log_id else ")")
        super().__init__(f"Feishu error {code}: {msg}" + (where if http_status else ""))

    @property
    def retryable(self) -> bool:
        """Whether trying again later may succeed (rate limits, server errors, no answer)."""
        return False


class FeishuRateLimited(FeishuError):
    """Feishu kept answering "too many requests" (HTTP 429 or a frequency-limit code)."""

    @property
    def retryable(self) -> bool:
        return True


class FeishuUnavailable(FeishuError):
    """Feishu did not answer in time, the connection failed, or it kept answering 5xx."""

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
