"""The offline planner: rules in English and Chinese that stand in for an LLM.

The default model when no LLM is configured and the fallback when the LLM is unreachable.
"""

from agent.planner._draft import reads_as_correction
from agent.planner.planner import OfflinePlanner

# reads_as_correction: the agent loop asks it too (a correction typed as a new message)
__all__ = ["OfflinePlanner", "reads_as_correction"]
