"""Fixtures for the model-client tests: a fake OpenAI-compatible server and clients aimed at it."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
import structlog
from fake_openai import API_KEY, FakeOpenAI

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import options_for


@pytest.fixture(autouse=True)
def default_structlog() -> None:
    """Start each test from structlog's defaults, whatever another test configured before."""
    structlog.reset_defaults()


@pytest.fixture
async def fake_openai() -> AsyncIterator[FakeOpenAI]:
    """A fake /v1/chat/completions server on a free port."""
    server = FakeOpenAI()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def sleeps() -> list[float]:
    """The delays the client asked to sleep, in order (nothing really sleeps)."""
    return []


@pytest.fixture
async def make_model(
    fake_openai: FakeOpenAI, sleeps: list[float]
) -> AsyncIterator[Callable[..., OpenAICompatModel]]:
    """Build clients for the fake server; options override the generic preset."""
    made: list[OpenAICompatModel] = []

    async def record_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    def make(**overrides: Any) -> OpenAICompatModel:
        values: dict[str, Any] = {
            "base_url": fake_openai.base_url,
            "model": "test-model",
            "api_key": API_KEY,
            **overrides,
        }
        model = OpenAICompatModel(
            options_for("generic", **values), sleep=record_sleep, rand=lambda: 0.0
        )
        made.append(model)
        return model

    yield make
    for model in made:
        await model.close()
