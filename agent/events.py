"""Step events: what a turn yields as it goes, for the chat platforms to render and traces to keep."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any


class StopReason(StrEnum):
    """Why a turn ended; every turn ends with one."""

    FINAL = "final"  # the model answered
    MAX_STEPS = "max_steps"
    REPEATED_CALL = "repeated_call"
    DEADLINE = "deadline"
    MODEL_ERROR = "model_error"
    EMPTY_REPLY = "empty_reply"
    BUSY = "busy"  # the thread's previous turn still holds the lock


@dataclass(frozen=True)
class StepEvent:
    """Base of the events; `to_dict` is the --json and trace form."""

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.kind, **asdict(self)}

    @property
    def kind(self) -> str:
        return _KINDS[type(self)]


@dataclass(frozen=True)
class TurnStarted(StepEvent):
    thread: str
    actor: str
    model: str


@dataclass(frozen=True)
class ModelStep(StepEvent):
    """One model call: its thought (text written beside tool calls), tokens and latency."""

    step: int
    model: str
    thought: str | None
    tool_calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    tools_offered: int = 0  # how many tool schemas the call carried
    # The model asked for tools it was not offered (more_tools): it is asked again with all.
    escape: bool = False


@dataclass(frozen=True)
class ToolStarted(StepEvent):
    step: int
    call_id: str
    tool: str
    title: str  # "Checking your annual leave balance"
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolFinished(StepEvent):
    step: int
    call_id: str
    tool: str
    title: str
    ok: bool
    summary: str  # the one-line output a person sees under the task
    latency_ms: float
    error: str | None = None


@dataclass(frozen=True)
class ProposalReady(StepEvent):
    """A pending action awaits a click: the platform shows its confirm card."""

    pending_id: str
    action: str  # submit | decide | withdraw | remind
    request_id: str
    confirm_by: str
    summary: str
    fields: dict[str, Any] = field(default_factory=dict)
    replaces: str | None = None  # the earlier draft of this thread it superseded
    # the id of the one person who may confirm it: the card reads the request as them
    actor: str = ""


@dataclass(frozen=True)
class Notice(StepEvent):
    """Something the person should know about how they are being answered (e.g. the fallback)."""

    text: str


@dataclass(frozen=True)
class FinalAnswer(StepEvent):
    text: str
    stop_reason: StopReason
    steps: int
    model_calls: int
    prompt_tokens: int
    completion_tokens: int
    latency_ms: float
    overhead_ms: float  # time in the loop itself, model time excluded


_KINDS: dict[type, str] = {
    TurnStarted: "turn_started",
    ModelStep: "model_step",
    ToolStarted: "tool_started",
    ToolFinished: "tool_finished",
    ProposalReady: "proposal",
    Notice: "notice",
    FinalAnswer: "final",
}
