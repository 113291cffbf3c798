"""How to talk to one OpenAI-compatible endpoint, and presets for the providers we know."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal


@dataclass(frozen=True)
class LLMOptions:
    """Settings of an OpenAI-compatible chat endpoint; build them with `options_for`.

    `base_url` ends in the API version, e.g. http://localhost:11434/v1.
    """

    base_url: str
    # Kept out of repr so that logging the options never prints the key.
    api_key: str | None = field(repr=False)
    model: str
    # "react" renders the tools into the prompt for servers without tool calling.
    tool_mode: Literal["native", "react"] = "native"
    max_tokens: int = 1024
    # OpenAI's newer models reject max_tokens with 400 unsupported_parameter.
    max_tokens_param: Literal["max_tokens", "max_completion_tokens"] = "max_tokens"
    # Send reasoning back on assistant tool-call turns (DeepSeek thinking mode, Kimi need it;
    # most others reject it).
    send_reasoning: bool = False
    # Content of an assistant message that only has tool calls: Ollama and LM Studio reject
    # null, some others reject "".
    assistant_empty_content: Literal["empty", "null"] = "empty"
    # When False, tool_choice "required" (or a named tool) is sent as "auto" and enforced by
    # the loop instead.
    supports_required_tool_choice: bool = True
    # None leaves the field out; llama.cpp only makes parallel calls when it is True.
    parallel_tool_calls: bool | None = None
    timeout_s: float = 30.0
    # Retries after the first attempt: 2 means 3 attempts, as in the official SDK.
    max_retries: int = 2
    # None leaves the field out: some reasoning models reject any temperature but the default.
    temperature: float | None = 0.2
    # Whether the server accepts `stop` (react mode only); some reasoning models reject it.
    stop_supported: bool = True


PRESETS: dict[str, dict[str, Any]] = {
    # Newer models take max_completion_tokens only; reasoning models (o-series, gpt-5) reject
    # a non-default temperature and `stop`.
    "openai": {
        "base_url": "https://api.openai.com/v1",
        "max_tokens_param": "max_completion_tokens",
        "temperature": None,
        "stop_supported": False,
    },
    # deepseek-chat takes everything here. For thinking mode with tool calls, DeepSeek needs
    # reasoning_content back on the tool-call turns: pass send_reasoning=True for that model.
    "deepseek": {"base_url": "https://api.deepseek.com/v1"},
    # Several Qwen models (thinking mode) refuse tool_choice "required".
    "qwen": {
        "base_url": "https://dashscope.aliyuncs.com/compatible-mode/v1",
        "supports_required_tool_choice": False,
    },
    # Kimi refuses tool_choice "required"; kimi thinking models also need send_reasoning=True.
    "kimi": {"base_url": "https://api.moonshot.cn/v1", "supports_required_tool_choice": False},
    # GLM accepts only tool_choice "auto".
    "glm": {
        "base_url": "https://open.bigmodel.cn/api/paas/v4",
        "supports_required_tool_choice": False,
    },
    # Ollama and LM Studio reject content null on assistant tool-call messages: keep "".
    "ollama": {"base_url": "http://localhost:11434/v1", "assistant_empty_content": "empty"},
    "lmstudio": {"base_url": "http://localhost:1234/v1", "assistant_empty_content": "empty"},
    # Without --enable-auto-tool-choice vLLM answers 400 to tool_choice; the client degrades.
    "vllm": {"base_url": "http://localhost:8000/v1"},
    # llama.cpp server makes parallel tool calls only when asked to.
    "llamacpp": {"base_url": "http://localhost:8080/v1", "parallel_tool_calls": True},
    # Any other OpenAI-compatible server: give base_url yourself.
    "generic": {},
}
PRESET_ALIASES: dict[str, str] = {
    "dashscope": "qwen",
    "moonshot": "kimi",
    "zhipu": "glm",
    "llama.cpp": "llamacpp",
    "lm-studio": "lmstudio",
    "openai-compatible": "generic",
}
_FIELDS = frozenset(f.name for f in fields(LLMOptions))


def options_for(preset: str, **overrides: Any) -> LLMOptions:
    """Options for a known provider, with `overrides` (model, api_key, …) applied on top.

    Raises:
        ValueError: unknown preset, unknown option name, or no model / base_url given.
    """
    key = PRESET_ALIASES.get(preset.lower(), preset.lower())
    if key not in PRESETS:
        known = ", ".join(sorted([*PRESETS, *PRESET_ALIASES]))
        raise ValueError(f"Unknown LLM preset {preset!r}. Known presets: {known}.")
    unknown = sorted(set(overrides) - _FIELDS)
    if unknown:
        raise ValueError(
            f"Unknown LLM option(s) {', '.join(unknown)}. Known: {', '.join(sorted(_FIELDS))}."
        )
    values: dict[str, Any] = {"api_key": None, **PRESETS[key], **overrides}
    if not values.get("model"):
        raise ValueError(f"The {key!r} LLM preset needs a model name (LLM_MODEL).")
    if not values.get("base_url"):
        raise ValueError(f"The {key!r} LLM preset needs a base URL (LLM_BASE_URL).")
    values["base_url"] = str(values["base_url"]).rstrip("/")
    return LLMOptions(**values)
