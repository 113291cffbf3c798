"""The leave form, once for every platform: its fields, who would approve, and its submission.

Slack's /leave modal and Feishu's "Request leave" form card show the same fields (type,
first and last day, half days, reason) and submit through `submit_leave`: the form's
Submit is the person's confirmation, so the draft is prepared and confirmed at once, and
anything wrong comes back as a message per field, in the person's language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.refusals import refusal_text, refused_fields
from workflow.chain import resolve_chain
from workflow.config import Person
from workflow.engine import Engine
from workflow.errors import InsufficientBalance, OverlappingLeave, ValidationFailed, WorkflowError
from workflow.models import Request

FIELDS = ("leave_type", "start", "end", "start_half", "end_half", "reason")


@dataclass(frozen=True)
class FormResult:
    """A submitted request, or the errors by field name (the engine's names) and nothing changed."""

    request: Request | None
    errors: dict[str, str] = field(default_factory=dict)


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
        errors = {k if k in FIELDS else "reason": v for k, v in refused_fields(e, locale).items()}
        return FormResult(None, errors or {"leave_type": refusal_text(e, locale)})
    except InsufficientBalance as e:
        return FormResult(None, {"end": e.localized(locale)})
    except OverlappingLeave as e:
        return FormResult(None, {"start": refusal_text(e, locale)})
    except WorkflowError as e:
        return FormResult(None, {"leave_type": e.localized(locale)})
    return FormResult(outcome.request)
