"""Prometheus metrics of the agent: turns by stop reason, model-call latency, tool calls by outcome."""

from __future__ import annotations

from prometheus_client import Counter, Histogram

AGENT_TURNS = Counter(
    "approvals_agent_turns_total", "Agent turns, by why they ended.", ["stop_reason"]
)
MODEL_CALL_SECONDS = Histogram(
    "approvals_model_call_seconds",
    "Latency of one model call.",
    ["model"],
    buckets=(0.005, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
)
TOOL_CALLS = Counter(
    "approvals_tool_calls_total",
    "Tool calls, by tool and outcome (ok or the error code).",
    ["tool", "outcome"],
)
