"""The organisation file: people, processes and leave types, validated by pydantic.

Loaded from one TOML file (APPROVALS_CONFIG, default: the demo organisation shipped in
`workflow/data/demo_org.toml`). Errors name the key and the line it is on.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from datetime import date
from enum import StrEnum
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from workflow import calendar
from workflow.clock import zone
from workflow.errors import ConfigError

Locale = Literal["en", "zh"]
_ID = r"^[a-z0-9][a-z0-9_.-]{0,63}$"
# Any date: building a country's holiday table once proves the country code is known.
_PROBE_DAY = date(2026, 1, 5)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


_LEGACY_ACCOUNTS = {"slack_user_id": "slack", "feishu_open_id": "feishu"}


class Person(_Strict):
    """One person in the directory."""

    id: str = Field(pattern=_ID)
    name: str = Field(min_length=1, max_length=100)
    aliases: tuple[str, ...] = ()
    email: str = Field(pattern=r"^[^@\s]+@[^@\s]+\.[^@\s]+$")
    title: str = ""
    title_zh: str = ""  # the title in Chinese, when the source has one (never translated here)
    manager: str | None = None
    team: str | None = None
    # the team as people read it when its key is not that ("Engineering" / "研发部"), from the
    # source's own names for it (Feishu's department i18n_name, a CSV's team_name columns)
    team_name: str = ""
    team_name_zh: str = ""
    roles: tuple[str, ...] = ()
    timezone: str
    country: str = Field(min_length=2, max_length=3)
    subdivision: str | None = None
    locale: Locale = "en"
    # the person's account on each chat platform: {"slack": "U0…", "feishu": "ou_…"}
    accounts: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _legacy_accounts(cls, data: Any) -> Any:
        """`slack_user_id = …` / `feishu_open_id = …` (older files) are accounts too."""
        if not isinstance(data, dict) or not data.keys() & _LEGACY_ACCOUNTS.keys():
            return data
        data, accounts = dict(data), dict(data.get("accounts") or {})
        for key, platform in _LEGACY_ACCOUNTS.items():
            if value := data.pop(key, None):
                accounts.setdefault(platform, value)
        return {**data, "accounts": accounts}

    def account(self, platform: str) -> str | None:
        """Their account id on `platform`, None when they are not on it."""
        return self.accounts.get(platform) or None

    @property
    def slack_user_id(self) -> str | None:
        return self.account("slack")

    @property
    def feishu_open_id(self) -> str | None:
        return self.account("feishu")

    def __hash__(self) -> int:
        return hash(self.id)

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, v: str) -> str:
        try:
            zone(v)
        except ConfigError as e:
            raise ValueError(str(e)) from e
        return v

    @field_validator("country")
    @classmethod
    def _known_country(cls, v: str) -> str:
        v = v.upper()
        try:
            calendar.is_working_day(_PROBE_DAY, v)
        except calendar.CalendarError as e:
            raise ValueError(str(e)) from e
        return v

    def title_in(self, locale: str) -> str:
        """The job title in `locale` when the directory has it in that language, else as the
        source wrote it (organisation data: shown as it is, not translated)."""
        return (self.title_zh or self.title) if locale == "zh" else self.title

    def team_in(self, locale: str) -> str | None:
        """The team's name in `locale` when the directory has one, else its own name or key."""
        if self.team is None:
            return None
        return (self.team_name_zh if locale == "zh" else "") or self.team_name or self.team


class FieldType(StrEnum):
    """The kinds of field a process form can hold."""

    TEXT = "text"
    DATE = "date"
    NUMBER = "number"
    MONEY = "money"
    CHOICE = "choice"
    LEAVE_TYPE = "leave_type"
    BOOL = "bool"


class FieldDef(_Strict):
    """One field of a process form."""

    name: str = Field(pattern=r"^[a-z][a-z0-9_]{0,39}$")
    type: FieldType
    label: str
    label_zh: str
    required: bool = True
    choices: tuple[str, ...] = ()
    min: float | None = None
    max: float | None = None
    max_length: int = 500
    # A date of something already done (the day money was spent): words such as "1 Dec" read
    # as the nearest such day on or before today, and a later day is refused.
    past: bool = False

    @model_validator(mode="after")
    def _choices_for_choice(self) -> FieldDef:
        if self.type is FieldType.CHOICE and not self.choices:
            raise ValueError(f"field {self.name!r} of type choice needs `choices`")
        if self.past and self.type is not FieldType.DATE:
            raise ValueError(f"field {self.name!r}: `past` applies only to a field of type date")
        return self


class Op(StrEnum):
    """Comparison operators of a condition."""

    EQ = "eq"
    NE = "ne"
    GT = "gt"
    GE = "ge"
    LT = "lt"
    LE = "le"
    IN = "in"
    NOT_IN = "not_in"


class Condition(_Strict):
    """`field op value`, evaluated on a request's fields and derived values; data, never eval."""

    field: str
    op: Op
    value: Any


class ApproverKind(StrEnum):
    """Who approves a step."""

    MANAGER = "manager"
    MANAGER_OF_MANAGER = "manager_of_manager"
    ROLE = "role"
    PERSON = "person"


class StepDef(_Strict):
    """One step of an approval chain."""

    name: str
    name_zh: str
    approver: str = Field(description="manager | manager_of_manager | role:<role> | person:<id>")
    when: tuple[Condition, ...] = ()
    auto_approve_when: tuple[Condition, ...] = ()
    sla_hours: float = Field(
        default=48, gt=0, description="working hours before the step escalates"
    )
    remind_after_hours: float = Field(
        default=24, gt=0, description="working hours before each reminder"
    )
    max_reminders: int = Field(default=2, ge=0)
    escalate_to: str = Field(
        default="manager", description="manager (of the current approver) | role:<role>"
    )

    @field_validator("approver")
    @classmethod
    def _approver_form(cls, v: str) -> str:
        kind, _, arg = v.partition(":")
        if kind not in ApproverKind.__members__.values():
            raise ValueError(
                "approver must be manager, manager_of_manager, role:<role> or person:<id>"
            )
        if kind in (ApproverKind.ROLE, ApproverKind.PERSON) and not arg:
            raise ValueError(f"approver {v!r} needs a name after the colon")
        return v

    @property
    def approver_kind(self) -> ApproverKind:
        return ApproverKind(self.approver.partition(":")[0])

    @property
    def approver_arg(self) -> str:
        return self.approver.partition(":")[2]


# Values computed by the engine that conditions may use besides the form's fields.
DERIVED_FIELDS = frozenset({"working_days", "calendar_days"})


class ProcessDef(_Strict):
    """A kind of request (leave, expense, business trip) with its form and approval chain."""

    key: str = Field(pattern=_ID)
    kind: Literal["leave", "generic"] = "generic"
    name: str
    name_zh: str
    fields: tuple[FieldDef, ...]
    steps: tuple[StepDef, ...] = Field(min_length=1)
    reminder_min_interval_hours: float = 4

    @model_validator(mode="after")
    def _check(self) -> ProcessDef:
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            raise ValueError(f"process {self.key!r} has duplicate field names")
        known = set(names) | DERIVED_FIELDS
        for step in self.steps:
            for cond in (*step.when, *step.auto_approve_when):
                if cond.field not in known:
                    raise ValueError(
                        f"step {step.name!r} has a condition on unknown field {cond.field!r}"
                        f" (fields: {', '.join(sorted(known))})"
                    )
        if self.kind == "leave":
            required = {"leave_type", "start", "end"}
            if missing := required - set(names):
                raise ValueError(f"a leave process needs the fields {sorted(missing)}")
        return self

    def field(self, name: str) -> FieldDef | None:
        return next((f for f in self.fields if f.name == name), None)

    def display_name(self, locale: str) -> str:
        return self.name_zh if locale == "zh" else self.name


class Accrual(_Strict):
    """Leave earned month by month, and how much of a year's rest carries into the next.

    Applied by the scheduler once per month (workflow/accrual.py). What is left of a year
    carries into the next up to `carry_over_cap` days; carried days not taken by
    `carry_over_expires` (month-day, e.g. "03-31") lapse.
    """

    monthly_days: float = Field(gt=0, le=31, description="days earned on the 1st of each month")
    carry_over_cap: float = Field(default=0, ge=0, le=366, description="most days carried over")
    carry_over_expires: str | None = Field(
        default=None, description="MM-DD: carried days not taken by this day lapse"
    )

    @field_validator("carry_over_expires")
    @classmethod
    def _month_day(cls, v: str | None) -> str | None:
        if v is None:
            return v
        if not re.fullmatch(r"\d\d-\d\d", v):
            raise ValueError(f'{v!r} is not a month-day like "03-31"')
        try:
            date.fromisoformat(f"2001-{v}")  # not a leap year: 02-29 would lapse on no day
        except ValueError:
            raise ValueError(f'{v!r} is not a day of the year (month-day, like "03-31")') from None
        return v

    def expiry(self, year: int) -> date | None:
        """The day carried days lapse after, in `year`."""
        return (
            date.fromisoformat(f"{year}-{self.carry_over_expires}")
            if self.carry_over_expires
            else None
        )


class LeaveType(_Strict):
    """A type of leave with its yearly allowance (None: no allowance, e.g. unpaid), and its accrual."""

    key: str = Field(pattern=_ID)
    name: str
    name_zh: str
    allowance_days: float | None = Field(default=None, ge=0)
    allowance_by_country: dict[str, float] = Field(default_factory=dict)
    reason_required: bool = False
    # a name that keeps its capital inside a sentence ("Christmas leave"); others read as running
    # text ("Prepared sick leave, …")
    proper_name: bool = False
    # with accrual, the allowance is allowance_days (0 if unset) + what was earned and carried
    accrual: Accrual | None = None

    @field_validator("accrual", mode="wrap")
    @classmethod
    def _name_the_type(cls, v: Any, handler: Any, info: ValidationInfo) -> Accrual | None:
        """A bad accrual value is reported with the leave type's key and the field's name."""
        try:
            return handler(v)
        except ValidationError as e:
            key = info.data.get("key", "?")
            what = "; ".join(
                f"accrual.{_dotted(err['loc']) if err['loc'] else '(table)'}: {err['msg'].removeprefix('Value error, ')}"
                for err in e.errors()
            )
            raise ValueError(f"leave type {key!r}: {what}") from None

    def allowance_for(self, country: str) -> float | None:
        if self.allowance_days is None:
            return None
        return self.allowance_by_country.get(country, self.allowance_days)

    def display_name(self, locale: str) -> str:
        return self.name_zh if locale == "zh" else self.name


class Policy(_Strict):
    """Organisation-wide limits."""

    max_days_ahead: int = 365
    max_days_back: int = 30
    pending_action_ttl_hours: float = 24
    draft_ttl_days: int = 7
    working_hours: str = Field(default="09:00-18:00", pattern=r"^\d\d:\d\d-\d\d:\d\d$")
    expire_after_days: int = Field(
        default=30, ge=1, description="a request still pending this long expires"
    )
    digest_time: str = Field(
        default="09:00", pattern=r"^\d\d:\d\d$", description="approvers' daily digest, local time"
    )
    weekly_out_day: int = Field(
        default=4, ge=0, le=6, description="weekday of the managers' who's-out DM (0 = Monday)"
    )
    weekly_out_time: str = Field(default="15:00", pattern=r"^\d\d:\d\d$")
    retention_months: int | None = Field(
        default=None,
        ge=1,
        description="decided requests older than this move to the archive (`requests archive`)",
    )

    @model_validator(mode="after")
    def _hours_make_sense(self) -> Policy:
        start, end = self.working_hours.split("-")
        if not start < end:
            raise ValueError(f"working_hours {self.working_hours!r} must end after it starts")
        return self


class Organisation(_Strict):
    """Name and identity of the organisation (its id is the Redis hash tag)."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,31}$")
    name: str


def check_people(by_id: Mapping[str, Person]) -> None:
    """Managers exist and form no loop; Slack ids, Feishu ids and emails are unique.

    Linear in the number of people: each person's management line is walked once, since a
    line already proven to reach the top is remembered.
    """
    for p in by_id.values():
        if p.manager is not None and p.manager not in by_id:
            raise ValueError(f"person {p.id!r} has manager {p.manager!r}, who is not in people")
        if p.manager == p.id:
            raise ValueError(f"person {p.id!r} is their own manager")
    reaches_top: set[str] = set()
    for p in by_id.values():  # a manager loop would make escalation go round forever
        line, seen, cur = [], {p.id}, p.manager
        while cur is not None and cur not in reaches_top:
            if cur in seen:
                loop = [p.id, *line]
                loop = [*loop[loop.index(cur) :], cur]
                raise ValueError(
                    f"the managers of {p.id!r} form a loop through {cur!r}: "
                    + " → ".join(repr(x) for x in loop)
                )
            seen.add(cur)
            line.append(cur)
            cur = by_id[cur].manager
        reaches_top.update(line)
        reaches_top.add(p.id)
    for field_name in ("slack_user_id", "feishu_open_id", "email"):
        counts = Counter(v for p in by_id.values() if (v := getattr(p, field_name)))
        if dupes := sorted(v for v, n in counts.items() if n > 1):
            raise ValueError(f"{field_name} used by more than one person: {dupes}")


class PersonOverride(_Strict):
    """A correction the organisation file makes to a person of the synced directory."""

    email: str | None = None
    id: str | None = None
    roles: tuple[str, ...] | None = None
    manager: str | None = None
    team: str | None = None
    team_name: str | None = None
    team_name_zh: str | None = None
    title: str | None = None
    title_zh: str | None = None
    locale: Locale | None = None
    timezone: str | None = None
    country: str | None = None
    subdivision: str | None = None

    @model_validator(mode="after")
    def _names_someone(self) -> PersonOverride:
        if not (self.email or self.id):
            raise ValueError("an override names its person by `email` or `id`")
        return self

    def matches(self, person: Mapping[str, Any]) -> bool:
        if self.id is not None:
            return person.get("id") == self.id
        return str(person.get("email", "")).casefold() == (self.email or "").casefold()

    def changes(self) -> dict[str, Any]:
        return self.model_dump(exclude={"email", "id"}, exclude_none=True)


class OrgConfig(_Strict):
    """The whole organisation file."""

    organisation: Organisation
    policy: Policy = Policy()
    people: tuple[Person, ...] = Field(min_length=1)
    overrides: tuple[PersonOverride, ...] = ()
    leave_types: tuple[LeaveType, ...] = Field(min_length=1)
    processes: tuple[ProcessDef, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _cross_references(self) -> OrgConfig:
        # linear in the number of people: one lookup table, duplicates counted once
        by_id = {p.id: p for p in self.people}
        if len(by_id) != len(self.people):
            counts = Counter(p.id for p in self.people)
            raise ValueError(
                f"duplicate person ids: {sorted(i for i, n in counts.items() if n > 1)}"
            )
        check_people(by_id)
        known = by_id.keys()
        roles = {r for p in self.people for r in p.roles}
        leave_keys = {t.key for t in self.leave_types}
        for proc in self.processes:
            for step in proc.steps:
                kind, arg = step.approver_kind, step.approver_arg
                if kind is ApproverKind.ROLE and arg not in roles:
                    raise ValueError(
                        f"process {proc.key!r} step {step.name!r}: nobody has the role {arg!r}"
                    )
                if kind is ApproverKind.PERSON and arg not in known:
                    raise ValueError(f"process {proc.key!r} step {step.name!r}: no person {arg!r}")
            for f in proc.fields:
                if f.type is FieldType.LEAVE_TYPE and f.choices and set(f.choices) - leave_keys:
                    raise ValueError(f"process {proc.key!r}: unknown leave types in choices")
        keys = [p.key for p in self.processes]
        if len(set(keys)) != len(keys):
            raise ValueError("duplicate process keys")
        return self

    @cached_property
    def processes_by_key(self) -> dict[str, ProcessDef]:
        return {p.key: p for p in self.processes}

    @cached_property
    def leave_types_by_key(self) -> dict[str, LeaveType]:
        return {t.key: t for t in self.leave_types}


DEMO_CONFIG = "demo_org.toml"


def load_config(path: str | Path | None = None) -> OrgConfig:
    """Read and validate the organisation file; None means the shipped demo organisation."""
    if path is None:
        text = resources.files("workflow.data").joinpath(DEMO_CONFIG).read_text("utf-8")
        source = f"(built-in) {DEMO_CONFIG}"
    else:
        try:
            text = Path(path).read_text("utf-8")
        except OSError as e:
            raise ConfigError(f"Cannot read APPROVALS_CONFIG={str(path)!r}: {e.strerror}.") from e
        source = str(path)
    return parse_config(text, source)


def parse_config(text: str, source: str = "<config>") -> OrgConfig:
    """Validate TOML text; a ConfigError names the file, the key and its line."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{source}: not valid TOML: {e}") from e
    try:
        return OrgConfig.model_validate(data)
    except ValidationError as e:
        lines = []
        for err in e.errors()[:5]:
            loc = err["loc"]
            where = _dotted(loc)
            line = _line_of(text, loc, err["msg"])
            at = f" (line {line})" if line else ""
            lines.append(f"{where}{at}: {err['msg']}")
        more = f" (+{e.error_count() - 5} more)" if e.error_count() > 5 else ""
        raise ConfigError(f"{source}: " + "; ".join(lines) + more) from e


def _dotted(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _line_of(text: str, loc: tuple[Any, ...], message: str) -> int | None:
    """Best-effort line of the error in the TOML text (tomllib keeps no positions).

    Follows the key path through `[[array]]` blocks to the key's own line; for an error on a
    whole block (a cross-reference), the line in that block quoting a value the message names.
    """
    lines = text.splitlines()
    start, end, path, block = 0, len(lines), [], None

    def key_line(key: str) -> int | None:
        pattern = re.compile(r"^\s*" + re.escape(key) + r"\s*=")
        return next((n + 1 for n in range(start, end) if pattern.match(lines[n])), None)

    i = 0
    while i < len(loc):
        part = loc[i]
        nxt = loc[i + 1] if i + 1 < len(loc) else None
        if not isinstance(part, str):
            break
        if isinstance(nxt, int):
            path.append(part)
            header = re.compile(r"^\s*\[\[\s*" + re.escape(".".join(path)) + r"\s*\]\]")
            hits = [n for n in range(start, end) if header.match(lines[n])]
            if nxt >= len(hits):  # an inline array: its key's line is as close as we get
                return key_line(part) or block
            start, block = hits[nxt], hits[nxt] + 1
            table = re.compile(r"^\s*\[\[?\s*([A-Za-z0-9_.]+)")
            for n in range(start + 1, end):
                m = table.match(lines[n])
                if m and not m.group(1).startswith(".".join(path) + "."):
                    end = n
                    break
            i += 2
            continue
        found = key_line(part)
        if found is not None:
            return found
        table = re.compile(r"^\s*\[\s*" + re.escape(".".join([*path, part])) + r"\s*\]")
        hit = next((n for n in range(start, end) if table.match(lines[n])), None)
        if hit is None:
            break
        start, block = hit, hit + 1
        path.append(part)
        i += 1
    for value in reversed(re.findall(r"'([^']+)'", message)):
        quoted = re.compile(r'"[^"]*' + re.escape(value) + r'[^"]*"')
        for n in range(start, end):
            if quoted.search(lines[n]):
                return n + 1
    return block
