"""A ChatModel for any OpenAI-compatible /chat/completions endpoint, over aiohttp.

No vendor SDK: the request and response shapes are in `wire`, the retry policy in `retry`,
the quirks of real servers in `normalize` and `react_format`.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

import aiohttp
import structlog

from agent.errors import (
    ContextTooLong,
    ModelError,
    ModelQuotaExceeded,
    ModelRejected,
    ModelUnavailable,
)
from agent.llm.options import LLMOptions
from agent.llm.retry import (
    ProviderError,
    embedded_status,
    is_retryable_status,
    read_provider_error,
    retry_delay,
)
from agent.llm.wire import build_body, response_from_wire, usage_from_wire
from agent.messages import Message, ModelResponse, ToolSpec

Sleep = Callable[[float], Awaitable[None]]


@dataclass
class _Failure:
    """One HTTP attempt that produced no response to return."""

    reason: str  # for the person reading the error: "HTTP 503: …", "timed out after 30 s"
    kind: str  # for the log, without provider text: "timeout", "connection", "http"
    retryable: bool
    status: int | None = None
    headers: dict[str, str] = field(default_factory=dict)
    error: ProviderError | None = None
    cause: BaseException | None = None


class OpenAICompatModel:
    """ChatModel over an OpenAI-compatible endpoint (OpenAI, DeepSeek, Qwen, Kimi, GLM, Ollama,
    vLLM, llama.cpp), with native tool calls or the text-ReAct mode.

    Pass `session` to share one aiohttp session; otherwise one is created on first use and
    closed by `close()`. `sleep`, `rand` and `clock` are injectable so tests do not wait.
    A base URL that is not http(s) raises ValueError here, at start-up.
    """

    def __init__(
        self,
        options: LLMOptions,
        *,
        session: aiohttp.ClientSession | None = None,
        sleep: Sleep = asyncio.sleep,
        rand: Callable[[], float] = random.random,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.options = options
        self.name = options.model
        self._session = session
        self._owns_session = session is None
        self._sleep = sleep
        self._rand = rand
        self._clock = clock
        # Flips to False after the server refuses a forced tool_choice; the loop enforces it.
        self._forcing_supported = options.supports_required_tool_choice
        self._url = f"{options.base_url.rstrip('/')}/chat/completions"
        url = urlsplit(self._url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError(
                f"LLM_BASE_URL {options.base_url!r} is not an http(s) URL: give the server's "
                "address with its API version, e.g. http://localhost:11434/v1."
            )

    async def __aenter__(self) -> OpenAICompatModel:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the HTTP session if this model created it."""
        if self._owns_session and self._session is not None:
            await self._session.close()
            self._session = None

    async def complete(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolSpec],
        *,
        tool_choice: str = "auto",
    ) -> ModelResponse:
        """Ask the endpoint for the next reply, retrying what is worth retrying.

        Raises:
            ModelUnavailable: no answer after all attempts (connection, timeout, 429, 5xx).
            ModelQuotaExceeded: the account is out of quota or balance.
            ContextTooLong: the prompt exceeds the model's context; trim and ask again.
            ModelRejected: the server refused the request; the settings need fixing.
        """
        data = await self._post(
            lambda: build_body(
                messages,
                tools,
                tool_choice,
                self.options,
                forcing_supported=self._forcing_supported,
            )
        )
        return response_from_wire(data, tools, self.options)

    async def _post(self, build: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        body = build()
        retries = 0
        attempt = 0
        while True:
            attempt += 1
            outcome = await self._attempt(body, attempt)
            if isinstance(outcome, dict):
                return outcome
            if self._refused_forced_tool_choice(body, outcome):
                # Degrade once and remember: later calls send "auto" and the loop enforces.
                self._forcing_supported = False
                body = build()
                continue
            if not outcome.retryable:
                raise self._terminal(outcome) from outcome.cause
            if retries >= self.options.max_retries:
                raise ModelUnavailable(
                    f"The LLM at {self.options.base_url} did not answer after {attempt} "
                    f"attempt{'s' if attempt > 1 else ''} ({outcome.reason}). "
                    "The offline planner will answer instead.",
                    status=outcome.status,
                    provider_message=outcome.error.message if outcome.error else "",
                ) from outcome.cause
            delay = retry_delay(outcome.headers, retries, random=self._rand(), now=self._clock())
            retries += 1
            await self._sleep(delay)

    def _refused_forced_tool_choice(self, body: dict[str, Any], outcome: _Failure) -> bool:
        forced = body.get("tool_choice") not in (None, "auto", "none")
        return forced and outcome.error is not None and outcome.error.mentions_tool_choice

    async def _attempt(self, body: dict[str, Any], attempt: int) -> dict[str, Any] | _Failure:
        """One HTTP request: the response body on success, else what went wrong."""
        if self._session is None:
            self._session = aiohttp.ClientSession()
        headers = {"Content-Type": "application/json"}
        if self.options.api_key:
            headers["Authorization"] = f"Bearer {self.options.api_key}"
        started = time.perf_counter()
        status: int | None = None
        outcome: dict[str, Any] | _Failure
        try:
            async with (
                asyncio.timeout(self.options.timeout_s),
                self._session.post(self._url, json=body, headers=headers) as resp,
            ):
                status = resp.status
                resp_headers = {k.lower(): v for k, v in resp.headers.items()}
                text = await resp.text()
        except TimeoutError as e:
            outcome = _Failure(
                f"timed out after {self.options.timeout_s:g} s", "timeout", True, cause=e
            )
        except aiohttp.InvalidURL as e:
            raise ModelRejected(
                f"LLM_BASE_URL {self.options.base_url!r} is not a valid URL: give the server's "
                "address with its API version, e.g. http://localhost:11434/v1."
            ) from e
        except aiohttp.ClientError as e:
            outcome = _Failure(
                f"connection failed: {type(e).__name__}: {self._redact(str(e))}",
                "connection",
                True,
                cause=e,
            )
        else:
            outcome = self._read(resp.status, resp_headers, text)
        self._log(attempt, started, status, outcome)
        return outcome

    def _read(self, status: int, headers: dict[str, str], text: str) -> dict[str, Any] | _Failure:
        """The body of a usable response, or the failure it reports."""
        try:
            data: Any = json.loads(text) if text.strip() else None
        except (ValueError, RecursionError):  # JSONDecodeError, huge ints, deep nesting
            data = text
        if status < 300:
            if not isinstance(data, dict):
                return _Failure(
                    f"HTTP {status} with a body that is not JSON: {self._redact(text)[:200]}",
                    "http",
                    False,
                    status=status,
                )
            if not data.get("error"):
                if data.get("choices"):
                    return data
                return _Failure(f"HTTP {status} with no choices", "http", False, status=status)
            # An error inside a 200 (proxies, streaming servers): judge it by its own code.
            status = embedded_status(data["error"])
        error = read_provider_error(status, data)
        error = replace(error, message=self._redact(error.message))
        return _Failure(
            f"HTTP {status}: {error.message}" if error.message else f"HTTP {status}",
            "http",
            is_retryable_status(status) and not (error.is_quota or error.is_context_overflow),
            status=status,
            headers=headers,
            error=error,
        )

    def _terminal(self, outcome: _Failure) -> ModelError:
        """The exception for an answer that retrying will not change."""
        base_url, model = self.options.base_url, self.options.model
        error = outcome.error
        if error is None:
            return ModelUnavailable(
                f"The LLM at {base_url} gave no usable answer ({outcome.reason}). "
                "The offline planner will answer instead.",
                status=outcome.status,
            )
        kwargs: dict[str, Any] = {"status": error.status, "provider_message": error.message}
        if error.is_context_overflow:
            return ContextTooLong(
                f"The conversation is longer than model {model!r} accepts "
                f"({outcome.reason}). Trim the history and ask again.",
                **kwargs,
            )
        if error.is_quota:
            return ModelQuotaExceeded(
                f"The LLM account at {base_url} is out of quota or balance ({outcome.reason}). "
                "Top it up or point LLM_BASE_URL elsewhere; the offline planner answers meanwhile.",
                **kwargs,
            )
        return ModelRejected(self._rejection(error), **kwargs)

    def _rejection(self, error: ProviderError) -> str:
        base_url, model = self.options.base_url, self.options.model
        said = f"{error.message} (HTTP {error.status})" if error.message else f"HTTP {error.status}"
        if error.status in (401, 403):
            return f"The LLM at {base_url} refused the API key: {said}. Check LLM_API_KEY."
        if error.status == 404:
            return (
                f"LLM_MODEL {model!r} was refused by the server: {said}. Check LLM_MODEL, and "
                f"that LLM_BASE_URL ({base_url}) ends with the API version, e.g. /v1."
            )
        hint = ""
        if error.mentions_tool_choice:
            hint = " If this server has no tool calling, use the text-ReAct tool mode."
        return f"LLM_MODEL {model!r} was refused by the server: {said}.{hint}"

    def _redact(self, text: str) -> str:
        # Some servers quote the key they were given in their error message.
        key = self.options.api_key
        return text.replace(key, "***") if key else text

    def _log(
        self, attempt: int, started: float, status: int | None, outcome: dict[str, Any] | _Failure
    ) -> None:
        """One event per HTTP attempt: no API key, no message contents, no provider text."""
        # Fetched per call, not at import: a module-level proxy cached under
        # cache_logger_on_first_use keeps its first configuration and escapes capture_logs.
        log = structlog.get_logger(__name__)
        fields: dict[str, Any] = {
            "model": self.options.model,
            "base_url": self.options.base_url,
            "tool_mode": self.options.tool_mode,
            "attempt": attempt,
            "status": status,
            "latency_ms": round((time.perf_counter() - started) * 1000),
        }
        if isinstance(outcome, dict):
            usage = usage_from_wire(outcome.get("usage"))
            log.info(
                "llm_call",
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_tokens=usage.cached_tokens,
                **fields,
            )
            return
        error = outcome.error
        log.warning(
            "llm_call_failed",
            error=outcome.kind,
            error_code=(error.code or error.type) if error else None,
            retryable=outcome.retryable,
            **fields,
        )
