"""LLM options and provider presets."""

from __future__ import annotations

import pytest

from agent.llm.options import PRESETS, options_for


def test_openai_preset_uses_max_completion_tokens():
    """OpenAI's preset sends max_completion_tokens and no temperature."""
    options = options_for("openai", model="gpt-5-mini", api_key="sk-1")
    assert options.base_url == "https://api.openai.com/v1"
    assert options.max_tokens_param == "max_completion_tokens"
    assert options.temperature is None


@pytest.mark.parametrize(
    ("preset", "field", "value"),
    [
        ("deepseek", "max_tokens_param", "max_tokens"),
        ("deepseek", "send_reasoning", False),
        ("dashscope", "supports_required_tool_choice", False),
        ("moonshot", "supports_required_tool_choice", False),
        ("glm", "supports_required_tool_choice", False),
        ("ollama", "assistant_empty_content", "empty"),
        ("llamacpp", "parallel_tool_calls", True),
        ("vllm", "base_url", "http://localhost:8000/v1"),
    ],
)
def test_presets_carry_each_providers_quirk(preset, field, value):
    """Each preset sets what its provider needs, aliases included."""
    assert getattr(options_for(preset, model="m"), field) == value


def test_overrides_win_over_the_preset():
    """Keyword overrides replace preset values; a trailing slash on base_url is dropped."""
    options = options_for(
        "ollama", model="qwen3", base_url="http://gpu:11434/v1/", tool_mode="react"
    )
    assert (options.base_url, options.tool_mode) == ("http://gpu:11434/v1", "react")


def test_unknown_preset_lists_the_known_ones():
    """An unknown preset name raises ValueError naming every preset."""
    with pytest.raises(ValueError, match="Unknown LLM preset 'gpt'") as caught:
        options_for("gpt", model="m")
    assert all(name in str(caught.value) for name in PRESETS)


def test_unknown_option_and_missing_model_are_refused():
    """A misspelt option or no model name raises ValueError saying what to set."""
    with pytest.raises(ValueError, match="max_token"):
        options_for("ollama", model="m", max_token=5)
    with pytest.raises(ValueError, match="LLM_MODEL"):
        options_for("ollama")
    with pytest.raises(ValueError, match="LLM_BASE_URL"):
        options_for("generic", model="m")


def test_api_key_is_not_in_the_repr():
    """Printing or logging the options never shows the API key."""
    assert "sk-secret" not in repr(options_for("openai", model="m", api_key="sk-secret"))
