"""How a tool is declared once: a pydantic argument model gives the schema, the validation and the errors."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

from agent.messages import ToolSpec
from workflow.config import FieldDef, FieldType, OrgConfig, Person
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
    # The thread's drafts hash (agent/tools/drafts.py), read with its history at the turn's
    # start and kept current by the turn's own writes: only a turn of the thread writes it,
    # and its turns run one at a time (the queue's lease or the memory lock). None: read it.
    drafts: dict[str, str] | None = field(default=None, compare=False)


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
    actor: str = ""  # the id of the one person who may confirm it


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

    def spec(self, config: OrgConfig | None = None) -> ToolSpec:
        """The schema the model reads, lean: no titles, defaults, null unions or length limits.

        Every call carries the offered tools' schemas, so each token here is paid on every
        call; validation still applies all of the argument model's constraints. With `config`,
        arguments marked `org_schema(...)` take the organisation's leave types or processes.
        """
        schema = self.args.model_json_schema()
        properties = {k: _lean(v, config) for k, v in schema.get("properties", {}).items()}
        lean: dict[str, Any] = {"type": "object", "properties": properties}
        if schema.get("required"):
            lean["required"] = schema["required"]
        return ToolSpec(self.name, self.description, lean)

    def parse(self, arguments: Mapping[str, Any]) -> A:
        return self.args.model_validate(dict(arguments))


# Schema keys the model does not need: pydantic still validates them and reports field errors.
_DROPPED = frozenset(
    {"title", "default", "maxLength", "minLength", "maximum", "minimum", "exclusiveMinimum"}
    | {"exclusiveMaximum", "additionalProperties"}
)
# json_schema_extra key naming what an argument takes from the organisation's config.
ORG_KEY = "x-org"


# How the schema marks a `past` date field, for the model and for the planner that reads it.
PAST_MARK = "today or earlier"


def org_schema(source: str) -> dict[str, str]:
    """`json_schema_extra` for an argument whose choices come from the organisation's config.

    "leave_types": the keys of its leave types; "request_processes": the keys of its
    processes other than leave; "request_fields": a description of those processes' fields.
    """
    return {ORG_KEY: source}


def _lean(prop: dict[str, Any], config: OrgConfig | None) -> dict[str, Any]:
    """One property's schema made compact: `X | None` becomes X (absent means none)."""
    options = prop.get("anyOf")
    if isinstance(options, list):
        kept = [o for o in options if o != {"type": "null"}]
        if len(kept) == 1:
            prop = {**kept[0], **{k: v for k, v in prop.items() if k != "anyOf"}}
    source = prop.get(ORG_KEY)
    out = {k: v for k, v in prop.items() if k not in _DROPPED and k != ORG_KEY}
    if source is not None and config is not None:
        out.update(_from_config(source, config))
    return out


def _from_config(source: str, config: OrgConfig) -> dict[str, Any]:
    requests = [p for p in config.processes if p.kind != "leave"]
    if source == "leave_types":
        return {"enum": list(_leave_type_keys(config))}
    if source == "request_processes":
        return {"enum": [p.key for p in requests]}
    if source == "request_fields":
        forms = "; ".join(
            f"{p.key}: " + ", ".join(_field_text(f) for f in p.fields) for p in requests
        )
        return {"description": f"By name ({forms})."}
    raise ValueError(f"unknown organisation schema source {source!r}")


def _leave_type_keys(config: OrgConfig) -> tuple[str, ...]:
    for process in config.processes:
        for f in process.fields:
            if f.type is FieldType.LEAVE_TYPE and f.choices:
                return tuple(f.choices)
    return tuple(lt.key for lt in config.leave_types)


def _field_text(f: FieldDef) -> str:
    if f.past:
        return f"{f.name} ({PAST_MARK})"
    return f"{f.name} ({'|'.join(map(str, f.choices))})" if f.choices else f.name


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


def enum_errors(spec: ToolSpec, arguments: Mapping[str, Any]) -> dict[str, str]:
    """{field: problem} for arguments outside the choices the schema offers (the organisation's
    leave types and processes are plain strings to pydantic: their choices live in the schema)."""
    out: dict[str, str] = {}
    for name, prop in spec.parameters.get("properties", {}).items():
        choices = prop.get("enum")
        value = arguments.get(name)
        if choices and value is not None and value not in choices:
            out[name] = "should be one of " + ", ".join(map(str, choices))
    return out


@dataclass
class ToolRegistry:
    """The tools the agent may call, by name; their schemas are built once per organisation."""

    tools: dict[str, Tool[Any]] = field(default_factory=dict)
    _specs: dict[Hashable, dict[str, ToolSpec]] = field(default_factory=dict)

    def add(self, tool: Tool[Any]) -> None:
        self.tools[tool.name] = tool
        self._specs.clear()

    def get(self, name: str) -> Tool[Any] | None:
        return self.tools.get(name)

    def specs(
        self, config: OrgConfig | None = None, names: Iterable[str] | None = None
    ) -> list[ToolSpec]:
        """The schemas the model sees, in registry order: all of them, or those in `names`.

        Built once per organisation (pydantic's schema generation is not free) and then the
        very same objects every call, so the prompt's tool part stays byte-identical.
        """
        key = _org_key(config)
        built = self._specs.get(key)
        if built is None:
            built = self._specs[key] = {t.name: t.spec(config) for t in self.tools.values()}
        if names is None:
            return list(built.values())
        wanted = set(names)
        return [spec for name, spec in built.items() if name in wanted]

    def spec(self, name: str, config: OrgConfig | None = None) -> ToolSpec | None:
        """One tool's schema as the organisation's model sees it."""
        found = self.specs(config, (name,))
        return found[0] if found else None

    @property
    def names(self) -> Sequence[str]:
        return list(self.tools)


def _org_key(config: OrgConfig | None) -> Hashable:
    """What the schemas depend on: the organisation, its leave types and its processes' forms."""
    if config is None:
        return None
    return (
        config.organisation.id,
        tuple(lt.key for lt in config.leave_types),
        tuple(
            (p.key, p.kind, tuple((f.name, tuple(f.choices)) for f in p.fields))
            for p in config.processes
        ),
    )
