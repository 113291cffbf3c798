"""How a tool is declared once: a pydantic argument model gives the schema, the validation and the errors."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.messages import ToolSpec
from workflow.config import Person
from workflow.engine import Engine

A = TypeVar("A", bound=BaseModel)


class ToolArgs(BaseModel):
    """Base of every argument model: unknown arguments are errors (no 'user_id' smuggled in)."""

    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


@dataclass(frozen=True)
class ToolContext:
    """What every tool may use; the acting user and today come from here, never from arguments."""

    engine: Engine
    actor: Person
    today: date
    locale: str  # the language to answer in
    thread_key: str


@dataclass(frozen=True)
class ProposalInfo:
    """A pending action a tool created: the platform shows its confirm card."""

    pending_id: str
    kind: str
    request_id: str
    confirm_by: str
    fields: dict[str, Any]
    summary: str
    replaces: str | None = None  # the thread's earlier draft this one superseded


@dataclass(frozen=True)
class Observation:
    """A tool's result: `data` is what the model reads (always with ok and summary)."""

    data: dict[str, Any]
    proposal: ProposalInfo | None = None

    @property
    def ok(self) -> bool:
        return bool(self.data.get("ok"))

    @property
    def summary(self) -> str:
        return str(self.data.get("summary", ""))

    def to_json(self) -> str:
        return json.dumps(self.data, ensure_ascii=False, default=str, separators=(",", ":"))


def ok(summary: str, **data: Any) -> Observation:
    return Observation({"ok": True, "summary": summary, **data})


def failed(code: str, message: str, **data: Any) -> Observation:
    return Observation({"ok": False, "error": code, "message": message, "summary": message, **data})


Handler = Callable[[ToolContext, A], Awaitable[Observation]]
Title = Callable[[A, str], str]


@dataclass(frozen=True)
class Tool(Generic[A]):
    """One tool: its name, the description the model reads, its argument model and handler."""

    name: str
    description: str
    args: type[A]
    handler: Handler[A]
    title: Title[A]  # "Checking your annual leave balance": the step as a person reads it
    writes: bool = False  # a propose_* tool: creates a pending action, never changes state

    def spec(self) -> ToolSpec:
        """The schema the model reads, without pydantic's noise (titles, null unions, null defaults).

        Every call carries all the tools' schemas, so each token here is paid on every call.
        """
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        schema["properties"] = {k: _lean(v) for k, v in schema.get("properties", {}).items()}
        return ToolSpec(self.name, self.description, schema)

    def parse(self, arguments: Mapping[str, Any]) -> A:
        return self.args.model_validate(dict(arguments))


def _lean(prop: dict[str, Any]) -> dict[str, Any]:
    """One property's schema made compact: `X | None` becomes X (absent means none)."""
    prop = {k: v for k, v in prop.items() if k != "title"}
    options = prop.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            prop.pop("anyOf")
            prop = {**kept[0], **prop}
    if prop.get("default", ...) is None:
        prop.pop("default")
    return prop


def field_errors(e: ValidationError) -> dict[str, str]:
    """Pydantic errors as {field: problem}, the shape the model and the forms both use."""
    out: dict[str, str] = {}
    for err in e.errors():
        name = ".".join(str(p) for p in err["loc"]) or "arguments"
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "is not an argument of this tool"
        out[name] = msg
    return out


@dataclass
class ToolRegistry:
    """The tools the agent may call, by name."""

    tools: dict[str, Tool[Any]] = field(default_factory=dict)
    _specs: list[ToolSpec] | None = None

    def add(self, tool: Tool[Any]) -> None:
        self.tools[tool.name] = tool
        self._specs = None

    def get(self, name: str) -> Tool[Any] | None:
        return self.tools.get(name)

    def specs(self) -> list[ToolSpec]:
        """The schemas the model sees (built once: pydantic's schema generation is not free)."""
        if self._specs is None:
            self._specs = [t.spec() for t in self.tools.values()]
        return self._specs

    @property
    def names(self) -> Sequence[str]:
        return list(self.tools)
