"""Model clients: an OpenAI-compatible client over aiohttp, native tool calls or text-ReAct."""

from agent.llm.openai_compat import OpenAICompatModel
from agent.llm.options import PRESETS, LLMOptions, options_for
from agent.llm.trim import trim_for_context

__all__ = ["PRESETS", "LLMOptions", "OpenAICompatModel", "options_for", "trim_for_context"]
