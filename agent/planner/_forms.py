"""The form fields the organisation declares beyond those the planner reads from a message.

The planner reads an expense's amount or a trip's destination out of a sentence; a field an
organisation adds in its file (a project code, a cost centre) it cannot guess, so it reads
the form (`list_processes`), asks for each missing required field by its label, and takes
the answer as that field's value, checked by the engine's own rules (`workflow/fields.py`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from pydantic import ValidationError

from agent.catalogue import say
from agent.dates import find_dates
from agent.messages import ToolSpec
from agent.refusals import label_in_sentence, problem_text
from agent.tools.base import PAST_MARK
from workflow.config import FieldDef, FieldType
from workflow.fields import FieldProblem, field_value

__all__ = [
    "FORM",
    "READ_FORM",
    "ask_field",
    "declared_names",
    "declared_past",
    "extra_fields",
    "form_value",
    "read_forms",
]

# Slots holding a form field's answer are named "form.<field>", apart from the planner's own.
FORM = "form."
READ_FORM = "list_processes"
# The fields the planner fills from its reading of a message, by process (intent value).
KNOWN: dict[str, frozenset[str]] = {
    "expense": frozenset({"amount", "currency", "category", "spent_on", "description"}),
    "business_trip": frozenset({"destination", "start", "end", "purpose", "estimated_cost"}),
}
_FORMS = re.compile(r"\((?P<forms>.*)\)\.?\s*$", re.DOTALL)
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def declared_names(tools: Sequence[ToolSpec]) -> dict[str, tuple[str, ...]]:
    """Each process's field names as the `propose_request` schema lists them ("expense: amount, …")."""
    return {
        process: tuple(m.group() for part in parts if (m := _NAME.match(part)))
        for process, parts in _declared(tools).items()
    }


def declared_past(tools: Sequence[ToolSpec]) -> frozenset[str] | None:
    """The "process.field" dates the schema marks as already gone; None if it lists no forms."""
    forms = _declared(tools)
    if not forms:
        return None
    return frozenset(
        f"{process}.{m.group()}"
        for process, parts in forms.items()
        for part in parts
        if part.endswith(f"({PAST_MARK})") and (m := _NAME.match(part))
    )


def _declared(tools: Sequence[ToolSpec]) -> dict[str, tuple[str, ...]]:
    """Each process's field descriptions in the `propose_request` schema ("spent_on (…)")."""
    spec = next((t for t in tools if t.name == "propose_request"), None)
    properties = spec.parameters.get("properties", {}) if spec else {}
    description = str(properties.get("fields", {}).get("description", ""))
    found = _FORMS.search(description)
    forms: dict[str, tuple[str, ...]] = {}
    for form in found.group("forms").split("; ") if found else ():
        process, _, fields = form.partition(": ")
        forms[process.strip()] = tuple(part.strip() for part in fields.split(", "))
    return forms


def read_forms(results: Sequence[dict[str, Any]]) -> dict[str, tuple[FieldDef, ...]] | None:
    """The forms of the newest `list_processes` result among `results`, or None if none."""
    for result in reversed(results):
        processes = result.get("processes")
        if result.get("ok") is not True or not isinstance(processes, list):
            continue
        forms: dict[str, tuple[FieldDef, ...]] = {}
        for process in processes:
            try:
                fields = tuple(FieldDef.model_validate(f) for f in process.get("fields", ()))
            except (ValidationError, AttributeError, TypeError):
                continue  # a form described some other way is one the planner cannot fill
            forms[str(process.get("process"))] = fields
        return forms
    return None


def extra_fields(process: str, forms: dict[str, tuple[FieldDef, ...]]) -> tuple[FieldDef, ...]:
    """The required fields of `process` that the planner's reading does not fill."""
    known = KNOWN.get(process, frozenset())
    return tuple(f for f in forms.get(process, ()) if f.required and f.name not in known)


def form_value(f: FieldDef, answer: str, today: date) -> Any:
    """The answer as the field stores it (a date said in words is that day); FieldProblem if not."""
    if f.type is FieldType.DATE and (mentions := find_dates(answer, today, past=f.past)):
        return field_value(f, mentions[0].day.isoformat())
    return field_value(f, answer)


def ask_field(f: FieldDef, lang: str, answer: str = "", problem: FieldProblem | None = None) -> str:
    """The question for a field by its label; after an answer that did not fit, why first."""
    question = say("planner.field.ask", lang, label=label_in_sentence(f, lang))
    if problem is None:
        return question
    problem.field = f
    why = problem_text(problem, lang, value=answer)
    return why + ("" if lang == "zh" else " ") + question
