"""A workflow refusal as a person reads it: names and readable dates, never ids or ISO dates.

The engine's own message (`str(e)`) stays as it is for the admin CLI and the logs; what the
person sees in a chat, a step line or a form comes from here, in their language.
"""

from __future__ import annotations

from datetime import date, datetime

from agent.catalogue import CATALOGUE, say
from agent.i18n import fmt_date, fmt_moment, fmt_range, in_sentence
from workflow.config import FieldDef
from workflow.errors import (
    FieldProblem,
    OverlappingLeave,
    TooSoon,
    ValidationFailed,
    WorkflowError,
)
from workflow.models import LeaveEntry


def refusal_text(e: WorkflowError, locale: str) -> str:
    """The sentence that says what was refused and what to do instead."""
    leave = e.details.get("leave")
    if isinstance(e, OverlappingLeave) and isinstance(leave, LeaveEntry):
        dates = fmt_range(leave.start, leave.end, leave.start_half, leave.end_half, locale)
        code = "refusal.overlap.approved" if leave.status.value == "approved" else "refusal.overlap"
        return say(code, locale, dates=dates)
    next_at, now = e.details.get("next_at"), e.details.get("now")
    if isinstance(e, TooSoon) and isinstance(next_at, datetime):
        at = fmt_moment(next_at, locale, now if isinstance(now, datetime) else None)
        return say("refusal.too_soon", locale, at=at, hours=e.details.get("hours", "?"))
    if isinstance(e, ValidationFailed) and e.problems:
        return "\n".join(problem_text(p, locale) for p in e.problems.values())
    return e.localized(locale)


def refused_fields(e: WorkflowError, locale: str) -> dict[str, str]:
    """{field name: why, in the reader's words} for a refusal over fields (empty for others)."""
    if not isinstance(e, ValidationFailed):
        return {}
    return {
        name: problem_text(e.problems[name], locale) if name in e.problems else text
        for name, text in e.field_errors.items()
    }


def problem_text(problem: FieldProblem, locale: str, value: str | None = None) -> str:
    """Why a value does not fit its field, naming the field by its label and any day as the
    reader's cards write it ("The date spent, Sat 5 Dec 2026, is still to come: …")."""
    values: dict[str, object] = {"value": "", **problem.values}
    if value is not None:
        values["value"] = value.strip()
    for key, item in values.items():
        if isinstance(item, date):
            values[key] = fmt_date(item, locale)
        elif isinstance(item, tuple | list):
            values[key] = say("word.list_sep", locale).join(map(str, item))
    label = label_in_sentence(problem.field, locale) if problem.field else ""
    return say(f"field.problem.{problem.code}", locale, label=label, **values)


def label_in_sentence(f: FieldDef, locale: str) -> str:
    """A field's label as it reads inside a sentence: '项目编号', 'project code', 'PO number'."""
    return in_sentence(f.label_zh if locale == "zh" else f.label, locale)


def refusal_step(e: WorkflowError, locale: str) -> str:
    """The short line under a refused step: the answer below says the whole sentence once."""
    code = f"step.refused.{e.code}"
    return say(code if code in CATALOGUE else "step.refused", locale)
