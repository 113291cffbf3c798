"""The offline planner: rules in English and Chinese that stand in for an LLM.

The default model when no LLM is configured and the fallback when the LLM is unreachable.
"""

from agent.planner.planner import OfflinePlanner

__all__ = ["OfflinePlanner"]
