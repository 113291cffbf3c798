"""Resolving a process's approval chain into the steps of one request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workflow.conditions import all_hold
from workflow.config import ApproverKind, Person, ProcessDef, StepDef
from workflow.directory import Directory
from workflow.errors import ConfigError
from workflow.models import Step

# Who approves when the chain names nobody else (the top of the organisation asks for leave).
FALLBACK_ROLE = "hr"


def _named(step: StepDef, requester: Person, directory: Directory) -> Person | None:
    kind, arg = step.approver_kind, step.approver_arg
    match kind:
        case ApproverKind.MANAGER:
            return directory.manager_of(requester.id)
        case ApproverKind.MANAGER_OF_MANAGER:
            line = directory.managers_above(requester.id)
            return line[1] if len(line) > 1 else (line[0] if line else None)
        case ApproverKind.ROLE:
            holders = [p for p in directory.with_role(arg) if p.id != requester.id]
            return holders[0] if holders else None
        case ApproverKind.PERSON:
            return directory.get(arg)
    return None  # pragma: no cover - enum is closed


def _approver(step: StepDef, requester: Person, directory: Directory) -> Person:
    """The step's approver; never the requester, since nobody approves their own request."""
    person = _named(step, requester, directory)
    if person is not None and person.id != requester.id:
        return person
    for above in directory.managers_above(requester.id):
        if above.id != requester.id:
            return above
    for holder in directory.with_role(FALLBACK_ROLE):
        if holder.id != requester.id:
            return holder
    raise ConfigError(
        f"Nobody can approve {requester.name}'s request at step {step.name!r}: give them a "
        f"manager or give someone the role {FALLBACK_ROLE!r} in the organisation file."
    )


def resolve_chain(
    process: ProcessDef, requester: Person, values: Mapping[str, Any], directory: Directory
) -> list[Step]:
    """The steps that apply to these values, each with its approver; one person appears once."""
    steps: list[Step] = []
    seen: set[str] = set()
    for step_def in process.steps:
        if not all_hold(step_def.when, values):
            continue
        approver = _approver(step_def, requester, directory)
        if approver.id in seen:  # a manager who is also HR signs once
            continue
        seen.add(approver.id)
        steps.append(
            Step(
                index=len(steps),
                name=step_def.name,
                name_zh=step_def.name_zh,
                approver=approver.id,
                auto_approve=bool(step_def.auto_approve_when)
                and all_hold(step_def.auto_approve_when, values),
                sla_hours=step_def.sla_hours,
                remind_after_hours=step_def.remind_after_hours,
                max_reminders=step_def.max_reminders,
                escalate_to=step_def.escalate_to,
            )
        )
    return steps
