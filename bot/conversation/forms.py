"""The forms, once for every platform: the leave form and the delegation form.

Slack's /leave modal and Feishu's "Request leave" form card show the same fields (type,
first and last day, half days, reason) and submit through `submit_leave`: the form's
Submit is the person's confirmation, so the draft is prepared and confirmed at once, and
anything wrong comes back as a message per field, in the person's language. The delegation
form (Slack's Home tab) submits through `submit_delegation` the same way.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agent.catalogue import say
from agent.refusals import refusal_text, refused_fields
from workflow.chain import resolve_chain
from workflow.config import Person
from workflow.engine import Engine
from workflow.errors import InsufficientBalance, OverlappingLeave, ValidationFailed, WorkflowError
from workflow.models import Delegation, Request

FIELDS = ("leave_type", "start", "end", "start_half", "end_half", "reason")
DELEGATION_FIELDS = ("delegate", "start", "end", "reason")


@dataclass(frozen=True)
class FormResult:
    """A submitted request, or the errors by field name (the engine's names) and nothing changed."""

    request: Request | None
    errors: dict[str, str] = field(default_factory=dict)


def on_fields(
    e: ValidationFailed, locale: str, fields: tuple[str, ...], *, other: str, whole: str
) -> dict[str, str]:
    """A refusal's problems, each on the form's field it concerns: one about a field the form
    does not show lands on `other`; a refusal that names no field says its sentence on `whole`."""
    errors = {k if k in fields else other: v for k, v in refused_fields(e, locale).items()}
    return errors or {whole: refusal_text(e, locale)}


def approvers_preview(engine: Engine, person: Person) -> list[str]:
    """Who would approve a one-day leave, in order: the form says so before it is filled."""
    chain = resolve_chain(engine.process("leave"), person, {"working_days": 1}, engine.directory)
    return [engine.directory.get(s.approver).name for s in chain]


async def submit_leave(engine: Engine, person: Person, fields: dict[str, Any]) -> FormResult:
    """Validate, prepare and confirm a leave from the form; errors land on the field they concern."""
    locale = person.locale
    try:
        proposal = await engine.prepare_submit(person.id, "leave", fields)
        outcome = await engine.confirm(proposal.pending.id, person.id)
    except ValidationFailed as e:
        return FormResult(None, on_fields(e, locale, FIELDS, other="reason", whole="leave_type"))
    except InsufficientBalance as e:
        return FormResult(None, {"end": e.localized(locale)})
    except OverlappingLeave as e:
        return FormResult(None, {"start": refusal_text(e, locale)})
    except WorkflowError as e:
        return FormResult(None, {"leave_type": e.localized(locale)})
    return FormResult(outcome.request)


@dataclass(frozen=True)
class DelegationResult:
    """The delegation set, or the errors by field name and nothing changed."""

    delegation: Delegation | None
    errors: dict[str, str] = field(default_factory=dict)


async def submit_delegation(
    engine: Engine, person: Person, fields: dict[str, str | None]
) -> DelegationResult:
    """Set the delegation from the form; what is wrong lands on its field, in the person's words."""
    locale = person.locale
    missing = {
        k: say("form.required", locale) for k in ("delegate", "start", "end") if not fields.get(k)
    }
    if missing:
        return DelegationResult(None, missing)
    try:
        d = await engine.set_delegation(
            person.id,
            str(fields["delegate"]),
            date.fromisoformat(str(fields["start"])),
            date.fromisoformat(str(fields["end"])),
            fields.get("reason"),
        )
    except ValueError:  # a date picker always sends YYYY-MM-DD; a hand-made payload may not
        return DelegationResult(None, {"start": say("field.problem.pick_date", locale)})
    except ValidationFailed as e:
        errors = on_fields(e, locale, DELEGATION_FIELDS, other="delegate", whole="delegate")
        return DelegationResult(None, errors)
    except WorkflowError as e:
        return DelegationResult(None, {"delegate": refusal_text(e, locale)})
    return DelegationResult(d)
