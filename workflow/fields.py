"""Validation of a process form: the one place that decides what a field may hold."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from workflow.config import FieldDef, FieldType, OrgConfig, ProcessDef
from workflow.errors import FieldProblem, ValidationFailed

__all__ = ["FieldProblem", "field_value", "validate_fields"]


def _as_date(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            pass
    raise FieldProblem("date", "must be a date written YYYY-MM-DD")


def _as_number(value: Any) -> float:
    if isinstance(value, bool):
        raise FieldProblem("number", "must be a number")
    try:
        number = (
            float(str(value).replace(",", "").strip()) if isinstance(value, str) else float(value)
        )
    except (TypeError, ValueError, OverflowError):
        raise FieldProblem("number", "must be a number") from None
    if not math.isfinite(number):
        raise FieldProblem("number", "must be a finite number")
    return number


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1"):
        return True
    if isinstance(value, str) and value.strip().lower() in ("false", "no", "0", ""):
        return False
    raise FieldProblem("bool", "must be true or false")


def field_value(f: FieldDef, value: Any, config: OrgConfig | None = None) -> Any:
    """The JSON-safe stored form of one field's value, or FieldProblem saying what is wrong
    (`config` names the leave types of a `leave_type` field without choices of its own)."""
    match f.type:
        case FieldType.TEXT:
            if not isinstance(value, str | int | float) or isinstance(value, bool):
                raise FieldProblem("text", "must be text")
            text = str(value).strip()
            if len(text) > f.max_length:
                raise FieldProblem(
                    "too_long",
                    f"is too long ({len(text)} characters; at most {f.max_length})",
                    max=f.max_length,
                )
            return text
        case FieldType.DATE:
            return _as_date(value).isoformat()
        case FieldType.NUMBER | FieldType.MONEY:
            number = _as_number(value)
            if f.min is not None and number < f.min:
                raise FieldProblem("min", f"must be at least {f.min:g}", min=f"{f.min:g}")
            if f.max is not None and number > f.max:
                raise FieldProblem("max", f"must be at most {f.max:g}", max=f"{f.max:g}")
            return round(number, 2) if f.type is FieldType.MONEY else number
        case FieldType.CHOICE:
            text = str(value).strip()
            match = next((c for c in f.choices if c.casefold() == text.casefold()), None)
            if match is None:
                raise FieldProblem(
                    "choice", f"must be one of {', '.join(f.choices)}", choices=f.choices
                )
            return match
        case FieldType.LEAVE_TYPE:
            allowed = f.choices or (tuple(config.leave_types_by_key) if config else ())
            text = str(value).strip().lower()
            if text not in allowed:
                raise FieldProblem(
                    "choice", f"must be one of {', '.join(allowed)}", choices=allowed
                )
            return text
        case FieldType.BOOL:
            return _as_bool(value)
    raise ValueError(f"has an unsupported type {f.type}")  # pragma: no cover - enum is closed


def validate_fields(
    process: ProcessDef, raw: Mapping[str, Any], config: OrgConfig, today: date | None = None
) -> dict[str, Any]:
    """Check every field of `raw` against the form; ValidationFailed lists all the problems.

    With `today` (the requester's), a `past` date field later than today is refused too.
    """
    problems: dict[str, FieldProblem] = {}
    clean: dict[str, Any] = {}
    for name in raw:
        if process.field(name) is None:
            known = tuple(f.name for f in process.fields)
            problems[name] = FieldProblem(
                "unknown",
                f"is not a field of {process.name} (fields: {', '.join(known)})",
                name=name,
                fields=known,
            )
    for f in process.fields:
        value = raw.get(f.name)
        if value is None or (isinstance(value, str) and not value.strip()):
            if f.required:
                problems[f.name] = _about(f, FieldProblem("required", "is required"), value)
            elif f.type is FieldType.BOOL:
                clean[f.name] = False
            continue
        try:
            clean[f.name] = field_value(f, value, config)
        except FieldProblem as problem:
            problems[f.name] = _about(f, problem, value)
    if problems:
        errors = {name: str(problem) for name, problem in problems.items()}
        detail = "; ".join(f"{k} {v}" for k, v in errors.items())
        raise ValidationFailed(f"Please fix the request: {detail}.", errors, problems=problems)
    if today is not None:
        _check_past(process, clean, today)
    return clean


def _about(f: FieldDef, problem: FieldProblem, value: Any) -> FieldProblem:
    """The problem tied to its field and the value given, so a sentence can name both."""
    problem.field = f
    problem.values.setdefault("value", "" if value is None else str(value).strip())
    return problem


def _check_past(process: ProcessDef, clean: Mapping[str, Any], today: date) -> None:
    """Refuse a day still to come in a field of something already done (an expense's date)."""
    for f in process.fields:
        day = clean.get(f.name)
        if f.past and day is not None and date.fromisoformat(day) > today:
            problem = FieldProblem(
                "past",
                f"must be today ({today}) or earlier",
                day=date.fromisoformat(day),
                today=today,
            )
            raise ValidationFailed(
                f"{f.label} {day} is still to come: give the day it happened, today "
                f"({today}) or earlier.",
                {f.name: str(problem)},
                problems={f.name: _about(f, problem, day)},
            )
