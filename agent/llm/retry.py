"""What to do with a failed response: read the provider's error, decide retry or not, and how long to wait.

The policy is the official OpenAI SDK's, plus the provider shapes listed in LLM-COMPAT.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

MAX_HONOURED_RETRY_AFTER_S = 120.0
INITIAL_DELAY_S = 0.5
MAX_DELAY_S = 8.0


def is_retryable_status(status: int) -> bool:
    """408, 409, 429 and every 5xx are worth another attempt; other statuses are final."""
    return status in (408, 409, 429) or status >= 500


def retry_delay(
    headers: Mapping[str, str], retries_done: int, *, random: float, now: float
) -> float:
    """Seconds to wait before the next attempt.

    Args:
        headers: response headers with lower-case names (empty after a connection error).
        retries_done: retries already made (0 before the first retry).
        random: a number in [0, 1) for the jitter.
        now: the current Unix time, to read a `retry-after` HTTP date.
    """
    asked = _asked_delay(headers, now)
    if asked is not None and 0 < asked <= MAX_HONOURED_RETRY_AFTER_S:
        return asked
    return min(INITIAL_DELAY_S * 2.0**retries_done, MAX_DELAY_S) * (1 - 0.25 * random)


def _asked_delay(headers: Mapping[str, str], now: float) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        return parsedate_to_datetime(value).timestamp() - now
    except (TypeError, ValueError):
        return None


@dataclass(frozen=True)
class ProviderError:
    """The error a server reported, whatever shape it used."""

    status: int
    message: str
    code: str | None = None
    type: str | None = None
    param: str | None = None

    @property
    def is_context_overflow(self) -> bool:
        """The prompt is longer than the model's context (OpenAI, DeepSeek/vLLM, llama.cpp)."""
        text = self.message.lower()
        return (
            self.code == "context_length_exceeded"
            or self.type == "exceed_context_size_error"
            or "maximum context length" in text
            or "context_length_exceeded" in text
            # Beyond LLM-COMPAT's three shapes: Moonshot/Kimi and DashScope/Qwen.
            or "exceeded model token limit" in text
            or "range of input length should be" in text
        )

    @property
    def is_quota(self) -> bool:
        """Out of quota or balance: keyed on the code, never on the text (429 is also a rate limit)."""
        if self.status == 402:  # DeepSeek: insufficient balance
            return True
        return self.status == 429 and "insufficient_quota" in (self.code, self.type)

    @property
    def mentions_tool_choice(self) -> bool:
        """A 400 about tool_choice (vLLM without auto tool choice, Kimi, GLM, some Qwen)."""
        text = self.message.lower()
        return self.status == 400 and (
            self.param == "tool_choice" or "tool_choice" in text or "tool choice" in text
        )


def read_provider_error(status: int, body: Any) -> ProviderError:
    """Read `{"error": {...}}`, `{"error": "..."}`, `{"detail": ...}` or plain text."""
    error: Any = body
    if isinstance(body, Mapping):
        error = body.get("error", body.get("detail", body))
    if isinstance(error, Mapping):
        message = error.get("message") or error.get("msg") or error.get("detail") or ""
        code = error.get("code")
        return ProviderError(
            status=status,
            message=_short(message or error),
            code=str(code) if code is not None else None,
            type=str(error["type"]) if error.get("type") is not None else None,
            param=str(error["param"]) if error.get("param") is not None else None,
        )
    return ProviderError(status=status, message=_short(error) if error else "")


def embedded_status(error: Any) -> int:
    """The HTTP status an error sent inside a 200 body stands for (500 when it says none)."""
    code = error.get("code") if isinstance(error, Mapping) else None
    if isinstance(code, int) and 400 <= code <= 599:
        return code
    if isinstance(code, str) and code.isdigit() and 400 <= int(code) <= 599:
        return int(code)
    return 500


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
