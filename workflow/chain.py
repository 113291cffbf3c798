"""Resolving a process's approval chain into the steps of one request."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from workflow.conditions import all_hold
from workflow.config import ApproverKind, Person, ProcessDef, StepDef
from workflow.directory import Directory
from workflow.errors import ConfigError, SeparationOfDuties
from workflow.models import Step

# Who approves when the chain names nobody else (the top of the organisation asks for leave).
FALLBACK_ROLE = "hr"
# Who approves a step in place of the person who filed the request for someone (HR acting).
STAND_IN_ROLE = "admin"


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


def _instead_of_filer(step: StepDef, requester: Person, directory: Directory, filer: str) -> Person:
    """Who approves a step that would go to the person who filed the request for `requester`.

    Nobody decides what they filed: another holder of the step's role (or the next manager
    up, for a manager step), else someone with the `admin` role.

    Raises:
        SeparationOfDuties: the organisation has nobody else who could approve the step.
    """
    mine = {requester.id, filer}
    if step.approver_kind is ApproverKind.ROLE:
        others = [p for p in directory.with_role(step.approver_arg) if p.id not in mine]
    elif step.approver_kind is ApproverKind.PERSON:
        others = []
    else:
        line = directory.managers_above(requester.id)  # the managers above the filer
        ids = [p.id for p in line]
        others = line[ids.index(filer) + 1 :] if filer in ids else []
    others += [p for p in directory.with_role(STAND_IN_ROLE) if p.id not in mine]
    if others:
        return others[0]
    name, who = requester.name, directory.get(filer).name
    if step.approver_kind is ApproverKind.ROLE:
        other, other_zh = (
            f"another {step.approver_arg!r} role holder",
            f"其他 {step.approver_arg} 角色的人",
        )
    else:
        other, other_zh = "a manager above", "更高一级的经理"
    raise SeparationOfDuties(
        f"{who} filed this leave for {name}, so {who} cannot also approve its {step.name} step, "
        f"and there is nobody else to approve it ({other}, or someone with the "
        f"{STAND_IN_ROLE!r} role); nothing changed. Ask {name} to file it themselves, or give "
        "a second person that role in the organisation file.",
        zh=f"{who}代{name}提交此请假，不能再审批其「{step.name_zh or step.name}」步骤；"
        f"组织中也没有其他人可以审批（{other_zh}，或 {STAND_IN_ROLE} 角色的人），未做任何更改。"
        f"请{name}本人提交，或在组织文件中给另一人这个角色。",
        step=step.name,
    )


def _approver(
    step: StepDef, requester: Person, directory: Directory, filer: str | None = None
) -> Person:
    """The step's approver; never the requester, since nobody approves their own request,
    and never the person who filed it for them (HR acting for someone)."""
    person = _named(step, requester, directory)
    if filer is not None and person is not None and person.id == filer:
        return _instead_of_filer(step, requester, directory, filer)
    if person is not None and person.id != requester.id:
        return person
    for above in directory.managers_above(requester.id):
        if above.id not in (requester.id, filer):
            return above
    for holder in directory.with_role(FALLBACK_ROLE):
        if holder.id not in (requester.id, filer):
            return holder
    raise ConfigError(
        f"Nobody can approve {requester.name}'s request at step {step.name!r}: give them a "
        f"manager or give someone the role {FALLBACK_ROLE!r} in the organisation file."
    )


def resolve_chain(
    process: ProcessDef,
    requester: Person,
    values: Mapping[str, Any],
    directory: Directory,
    *,
    filed_by: str | None = None,
) -> list[Step]:
    """The steps that apply to these values, each with its approver; one person appears once.

    `filed_by`: HR who files the request for `requester`; they approve none of its steps.
    """
    steps: list[Step] = []
    seen: set[str] = set()
    for step_def in process.steps:
        if not all_hold(step_def.when, values):
            continue
        approver = _approver(step_def, requester, directory, filed_by)
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
