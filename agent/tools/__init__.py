"""The agent's tools: reads on behalf of the acting user, and proposals that wait for a click."""

from __future__ import annotations

from agent.tools.base import Observation, ProposalInfo, Tool, ToolContext, ToolRegistry
from agent.tools.counter import COUNTER_TOOLS
from agent.tools.propose import PROPOSE_TOOLS
from agent.tools.read import READ_TOOLS


def default_tools() -> ToolRegistry:
    """Every tool the agent has; there is no tool that submits, approves or messages anyone."""
    registry = ToolRegistry()
    for tool in (*READ_TOOLS, *PROPOSE_TOOLS, *COUNTER_TOOLS):
        registry.add(tool)
    return registry


__all__ = ["Observation", "ProposalInfo", "Tool", "ToolContext", "ToolRegistry", "default_tools"]
