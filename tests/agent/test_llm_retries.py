"""Retries, terminal errors and logging of the OpenAI-compatible client, over HTTP."""

from __future__ import annotations

import socket
import time
from email.utils import formatdate

import pytest
from fake_openai import API_KEY, TOOLS, completion
from structlog.testing import capture_logs

from agent.errors import (
    ContextTooLong,
    ModelQuotaExceeded,
    ModelRejected,
    ModelUnavailable,
)
from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for
from agent.llm.retry import retry_delay
from agent.messages import Message

USER = [Message(role="user", content="I'm sick, off tomorrow")]


async def test_429_with_retry_after_is_honoured(fake_openai, make_model, sleeps):
    """A 429 with retry-after: 2 waits 2 s, then the retry succeeds."""
    fake_openai.error(
        429, "Rate limit reached", headers={"retry-after": "2"}, code="rate_limit_exceeded"
    )
    fake_openai.answer(completion("ok"))
    response = await make_model().complete(USER, TOOLS)
    assert response.content == "ok"
    assert sleeps == [2.0]
    assert len(fake_openai.requests) == 2


async def test_retry_after_ms_wins_over_retry_after(fake_openai, make_model, sleeps):
    """retry-after-ms is read first, in milliseconds."""
    fake_openai.error(429, "slow down", headers={"retry-after-ms": "250", "retry-after": "9"})
    fake_openai.answer(completion("ok"))
    await make_model().complete(USER, TOOLS)
    assert sleeps == [0.25]


async def test_retry_after_as_http_date(fake_openai, make_model, sleeps):
    """retry-after given as an HTTP date waits until that time."""
    fake_openai.error(
        503, "busy", headers={"retry-after": formatdate(time.time() + 30, usegmt=True)}
    )
    fake_openai.answer(completion("ok"))
    await make_model().complete(USER, TOOLS)
    assert 28 <= sleeps[0] <= 30


async def test_retry_after_beyond_two_minutes_falls_back_to_backoff(
    fake_openai, make_model, sleeps
):
    """A retry-after above 120 s is ignored for the exponential backoff."""
    fake_openai.error(429, "slow down", headers={"retry-after": "600"})
    fake_openai.answer(completion("ok"))
    await make_model().complete(USER, TOOLS)
    assert sleeps == [0.5]


async def test_500_then_200_succeeds(fake_openai, make_model, sleeps):
    """One server error is retried after the first backoff step."""
    fake_openai.error(500, "The server had an error while processing your request.")
    fake_openai.answer(completion("ok"))
    assert (await make_model().complete(USER, TOOLS)).content == "ok"
    assert sleeps == [0.5]


@pytest.mark.parametrize("status", [408, 409, 502])
async def test_timeout_conflict_and_gateway_statuses_are_retried(fake_openai, make_model, status):
    """408, 409 and 5xx answers are retried."""
    fake_openai.answer("<html>Bad Gateway</html>", status=status)
    fake_openai.answer(completion("ok"))
    assert (await make_model().complete(USER, TOOLS)).content == "ok"
    assert len(fake_openai.requests) == 2


async def test_503_three_times_is_model_unavailable(fake_openai, make_model, sleeps):
    """Three 503s exhaust the 2 retries and raise ModelUnavailable naming the status."""
    for _ in range(3):
        fake_openai.error(503, "Service Unavailable", type="server_error")
    with pytest.raises(ModelUnavailable) as caught:
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 3
    assert sleeps == [0.5, 1.0]
    message = str(caught.value)
    assert f"The LLM at {fake_openai.base_url} did not answer after 3 attempts" in message
    assert "HTTP 503" in message
    assert "offline planner" in message
    assert caught.value.status == 503


async def test_connection_refused_is_model_unavailable(sleeps):
    """A port nobody listens on gives ModelUnavailable after the retries."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]

    async def record(seconds: float) -> None:
        sleeps.append(seconds)

    options = options_for("generic", base_url=f"http://127.0.0.1:{port}/v1", model="m")
    async with OpenAICompatModel(options, sleep=record, rand=lambda: 0.0) as model:
        with pytest.raises(ModelUnavailable, match="connection failed"):
            await model.complete(USER, TOOLS)
    assert sleeps == [0.5, 1.0]


async def test_timeout_is_model_unavailable(fake_openai, make_model):
    """A server slower than timeout_s times out on each attempt, then ModelUnavailable."""
    for _ in range(3):
        fake_openai.answer(completion("too late"), delay=5.0)
    started = time.perf_counter()
    with pytest.raises(ModelUnavailable, match=r"timed out after 0\.05 s"):
        await make_model(timeout_s=0.05).complete(USER, TOOLS)
    assert len(fake_openai.requests) == 3
    assert time.perf_counter() - started < 2


async def test_400_is_not_retried(fake_openai, make_model):
    """A plain 400 is sent once and raised as ModelRejected with the provider's words."""
    fake_openai.error(
        400,
        "Unsupported parameter: 'max_tokens' is not supported with this model.",
        type="invalid_request_error",
        param="max_tokens",
        code="unsupported_parameter",
    )
    with pytest.raises(ModelRejected) as caught:
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 1
    assert caught.value.status == 400
    assert "'max_tokens' is not supported" in caught.value.provider_message
    assert str(caught.value).startswith("LLM_MODEL 'test-model' was refused by the server:")


async def test_404_names_the_model_and_base_url(fake_openai, make_model):
    """An unknown model says which setting to check."""
    fake_openai.error(404, "model 'llama9' not found", type="not_found_error")
    with pytest.raises(ModelRejected, match="LLM_MODEL 'test-model' was refused") as caught:
        await make_model().complete(USER, TOOLS)
    assert "LLM_BASE_URL" in str(caught.value)


async def test_401_never_repeats_the_api_key(fake_openai, make_model):
    """A server quoting the key back has it redacted from the error and from the logs."""
    fake_openai.error(401, f"Incorrect API key provided: {API_KEY}.", code="invalid_api_key")
    with capture_logs() as logs, pytest.raises(ModelRejected, match="LLM_API_KEY") as caught:
        await make_model().complete(USER, TOOLS)
    assert API_KEY not in str(caught.value)
    assert API_KEY not in caught.value.provider_message
    assert API_KEY not in repr(logs)


async def test_429_insufficient_quota_is_terminal(fake_openai, make_model, sleeps):
    """429 with code insufficient_quota is not retried and raises ModelQuotaExceeded."""
    fake_openai.error(
        429,
        "You exceeded your current quota, please check your plan and billing details.",
        type="insufficient_quota",
        code="insufficient_quota",
    )
    with pytest.raises(ModelQuotaExceeded, match="out of quota or balance"):
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 1
    assert sleeps == []


async def test_deepseek_402_is_terminal(fake_openai, make_model):
    """DeepSeek's 402 Insufficient Balance raises ModelQuotaExceeded after one request."""
    fake_openai.error(402, "Insufficient Balance", type="unknown_error")
    with pytest.raises(ModelQuotaExceeded) as caught:
        await make_model().complete(USER, TOOLS)
    assert caught.value.status == 402
    assert len(fake_openai.requests) == 1


async def test_deepseek_422_is_terminal(fake_openai, make_model):
    """DeepSeek's 422 (invalid parameters) is not retried."""
    fake_openai.error(422, "Invalid Parameters", type="invalid_request_error")
    with pytest.raises(ModelRejected):
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 1


async def test_error_json_with_http_200_is_an_error(fake_openai, make_model, sleeps):
    """{"error": …} with status 200 is a failure, judged by its own code and retried here."""
    fake_openai.answer({"error": {"message": "Upstream overloaded", "code": 502}})
    fake_openai.answer(completion("ok"))
    assert (await make_model().complete(USER, TOOLS)).content == "ok"
    assert sleeps == [0.5]


async def test_error_json_with_http_200_and_a_client_code_is_rejected(fake_openai, make_model):
    """An error in a 200 body that carries a 4xx code is terminal."""
    fake_openai.answer({"error": {"message": "Invalid model", "code": 400}})
    with pytest.raises(ModelRejected, match="Invalid model"):
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 1


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (
            400,
            {
                "message": "This model's maximum context length is 128000 tokens. However, "
                "your messages resulted in 130000 tokens.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            },
        ),
        (
            400,
            {
                "message": "This model's maximum context length is 65536 tokens. However, you "
                "requested 70000 tokens (69000 in the messages, 1000 in the completion).",
                "type": "invalid_request_error",
                "code": "invalid_request_error",
            },
        ),
        (
            400,
            {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 9000,
                "n_ctx": 8192,
            },
        ),
        (
            500,
            {
                "code": 500,
                "message": "the request exceeds the available context size",
                "type": "exceed_context_size_error",
            },
        ),
        (
            400,
            {
                "message": "Invalid request: Your request exceeded model token limit: 262144 "
                "(requested: 269030)",
                "type": "invalid_request_error",
            },
        ),
        (
            400,
            {
                "code": "invalid_parameter_error",
                "message": "<400> InternalError.Algo.InvalidParameter: Range of input length "
                "should be [1, 983616]",
                "param": None,
                "type": "invalid_request_error",
            },
        ),
    ],
    ids=[
        "openai-code",
        "deepseek-vllm-text",
        "llamacpp-400",
        "llamacpp-500",
        "moonshot-text",
        "dashscope-text",
    ],
)
async def test_context_overflow_shapes_raise_context_too_long(
    fake_openai, make_model, status, error
):
    """Every known context-overflow shape raises ContextTooLong without a retry."""
    fake_openai.answer({"error": error}, status=status)
    with pytest.raises(ContextTooLong, match="Trim the history"):
        await make_model().complete(USER, TOOLS)
    assert len(fake_openai.requests) == 1


async def test_an_empty_503_reads_without_a_message(fake_openai, make_model):
    """A 5xx with an empty body is reported by its status alone."""
    for _ in range(3):
        fake_openai.answer("", status=503)
    with pytest.raises(ModelUnavailable, match=r"\(HTTP 503\)\. The offline planner"):
        await make_model().complete(USER, TOOLS)


async def test_a_200_that_is_not_json_is_model_unavailable(fake_openai, make_model):
    """A proxy page served with 200 is an unusable answer, raised as ModelUnavailable."""
    fake_openai.answer("<html>Please log in</html>")
    with pytest.raises(ModelUnavailable, match="not JSON"):
        await make_model().complete(USER, TOOLS)


def test_backoff_doubles_from_half_a_second_up_to_eight_with_jitter():
    """Without retry-after the delay is min(0.5·2^n, 8)·(1 − 0.25·random)."""
    assert [retry_delay({}, n, random=0.0, now=0) for n in range(6)] == [0.5, 1, 2, 4, 8, 8]
    assert retry_delay({}, 0, random=1.0, now=0) == 0.375
    assert retry_delay({"retry-after": "0"}, 1, random=0.0, now=0) == 1.0
    assert retry_delay({"retry-after": "soon"}, 0, random=0.0, now=0) == 0.5


async def test_one_log_event_per_attempt_without_key_or_contents(fake_openai, make_model):
    """Each HTTP attempt logs model, status, latency, tokens and attempt, and no secrets or text."""
    fake_openai.error(503, "busy")
    fake_openai.answer(
        completion(
            "SECRET-ANSWER",
            usage={
                "prompt_tokens": 30,
                "completion_tokens": 4,
                "prompt_tokens_details": {"cached_tokens": 16},
            },
        )
    )
    with capture_logs() as logs:
        await make_model().complete([Message(role="user", content="SECRET-QUESTION")], TOOLS)
    assert [(e["event"], e["attempt"], e["status"]) for e in logs] == [
        ("llm_call_failed", 1, 503),
        ("llm_call", 2, 200),
    ]
    assert logs[1]["model"] == "test-model"
    assert (logs[1]["prompt_tokens"], logs[1]["completion_tokens"], logs[1]["cached_tokens"]) == (
        30,
        4,
        16,
    )
    assert isinstance(logs[1]["latency_ms"], int)
    text = repr(logs)
    assert API_KEY not in text
    assert "SECRET" not in text
    assert "busy" not in text


@pytest.mark.parametrize("base_url", ["localhost:11434/v1", "ftp://host/v1", "http://"])
def test_a_base_url_that_is_not_http_is_refused_at_start(base_url):
    """A malformed LLM_BASE_URL is a settings error raised when the model is built."""
    options = options_for("generic", base_url=base_url, model="m")
    with pytest.raises(ValueError, match="is not an http\\(s\\) URL"):
        OpenAICompatModel(options)
