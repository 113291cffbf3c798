"""Date arguments: the model passes words or ISO dates; code resolves them in the user's timezone."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from agent.dates import DateParseError, resolve_date
from agent.tools.base import ToolContext
from workflow import calendar
from workflow.errors import FieldProblem, ValidationFailed


@dataclass(frozen=True)
class Span:
    start: date
    end: date
    start_half: bool
    end_half: bool


def one_date(text: str, ctx: ToolContext, field: str, *, past: bool = False) -> date:
    """The day `text` names in the user's calendar; `past` for a field of something already done."""
    try:
        return resolve_date(text, ctx.today, past=past)
    except DateParseError as e:
        problem = FieldProblem("unread_date", str(e), value=e.text.strip(), detail=str(e))
        raise ValidationFailed(str(e), problems={field: problem}) from e


def span(
    ctx: ToolContext,
    start: str,
    end: str | None,
    days: float | None,
    start_half: bool,
    end_half: bool,
) -> Span:
    """Resolve start/end, or start plus a number of working days, into dates and half days."""
    first = one_date(start, ctx, "start")
    if end:
        return Span(first, one_date(end, ctx, "end"), start_half, end_half)
    if days:
        person = ctx.actor
        count = days + (0.5 if start_half else 0)
        try:
            s, e, end_am = calendar.add_working_days(
                first, count, person.country, person.subdivision
            )
        except calendar.CalendarError as err:
            problem = FieldProblem("calendar", str(err), detail=str(err))
            raise ValidationFailed(str(err), problems={"days": problem}) from err
        return Span(s, e, start_half and s == first, end_am or end_half)
    return Span(first, first, start_half, end_half)
