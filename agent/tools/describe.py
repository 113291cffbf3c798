"""Requests described in a line a person reads, in their language (tools, cards and DMs use these)."""

from __future__ import annotations

from datetime import date
from typing import Any

from agent.catalogue import CATALOGUE, say
from agent.i18n import fmt_amount, fmt_day_month, fmt_days, fmt_range, in_sentence
from workflow.config import OrgConfig
from workflow.directory import Directory
from workflow.leave import Balance
from workflow.models import Request, RequestStatus, Step


def status_text(status: RequestStatus, locale: str) -> str:
    return say(f"status.{status.value}", locale)


def half_day(fields: dict[str, Any]) -> str:
    """none | morning | afternoon | start_afternoon | end_morning | both_ends."""
    start_half, end_half = bool(fields.get("start_half")), bool(fields.get("end_half"))
    if fields.get("start") == fields.get("end"):
        return "afternoon" if start_half else "morning" if end_half else "none"
    if start_half and end_half:
        return "both_ends"
    return "start_afternoon" if start_half else "end_morning" if end_half else "none"


def what(req: Request, config: OrgConfig, locale: str) -> str:
    """'Sick leave, Thu 3 Dec 2026 – Thu 10 Dec 2026 (6 working days)' or 'Expense claim: 320.00 CNY (meals)'."""
    return what_of(req.kind, req.process, req.fields, req.derived, config, locale)


def what_in_sentence(req: Request, config: OrgConfig, locale: str) -> str:
    """`what` inside a sentence: "Prepared sick leave, Thu 3 Dec 2026 (1 working day), …"
    (a leave type marked `proper_name` keeps its capital: "Prepared Christmas leave, …")."""
    described = what(req, config, locale)
    if req.kind == "leave" and config.leave_types_by_key[req.fields["leave_type"]].proper_name:
        return described
    return in_sentence(described, locale)


def what_of(
    kind: str,
    process_key: str,
    f: dict[str, Any],
    derived: dict[str, Any],
    config: OrgConfig,
    locale: str,
) -> str:
    """`what` from a request's parts, for lists read from stored records without a Request."""
    process = config.processes_by_key[process_key]
    if kind == "leave":
        lt = config.leave_types_by_key[f["leave_type"]].display_name(locale)
        dates = fmt_range(
            date.fromisoformat(f["start"]),
            date.fromisoformat(f["end"]),
            bool(f.get("start_half")),
            bool(f.get("end_half")),
            locale,
        )
        days = fmt_days(derived.get("working_days", 0), locale)
        return say("what.leave", locale, type=lt, dates=dates, days=days)
    name = process.display_name(locale)
    if process_key == "expense":
        return expense_what(name, f, fmt_amount(f.get("amount", 0), f.get("currency")), locale)
    if "start" in f and "end" in f:
        dates = fmt_range(
            date.fromisoformat(f["start"]), date.fromisoformat(f["end"]), False, False, locale
        )
        where = f.get("destination")
        return f"{name}: {where + ', ' if where else ''}{dates}"
    return name


def expense_what(name: str, f: dict[str, Any], amount: str, locale: str) -> str:
    """An expense's `what` with its amount as written (`fmt_amount`): a list makes it once per
    currency and category with a stand-in for the amount, which rarely repeats."""
    category = choice_text(f.get("category", ""), locale)
    return say(
        "what.expense",
        locale,
        name=name,
        amount=amount,
        currency=f.get("currency", ""),
        category=category,
    )


def choice_text(value: object, locale: str) -> str:
    """A choice field's value as a person reads it: 'Meals' / '餐饮'; others as written, a
    lower-case key capitalised ('business_class' → 'Business class', 'CNY' stays 'CNY')."""
    key = f"choice.{value}"
    if key in CATALOGUE:
        return say(key, locale)
    text = str(value).replace("_", " ")
    return text.capitalize() if text.islower() else text


def step_line(step: Step, total: int, directory: Directory, locale: str) -> str:
    holder = directory.get(step.assignee or step.approver).name
    name = step.name_zh if locale == "zh" else step.name
    if total == 1:  # "step 1 of 1" counts nothing: who has it, in which role
        return say("line.step_with.only", locale, name=name, who=holder)
    return say("line.step_with", locale, n=step.index + 1, total=total, name=name, who=holder)


def where_it_is(req: Request, directory: Directory, locale: str) -> str:
    """'Pending: step 1 of 2 (Manager) with 王芳' or the final status ('Approved')."""
    step = req.open_step()
    if step is not None:
        where = step_line(step, len(req.steps), directory, locale)
        return say("line.status_where", locale, status=status_text(req.status, locale), where=where)
    return status_text(req.status, locale)


def request_line(req: Request, config: OrgConfig, directory: Directory, locale: str) -> str:
    """'Annual leave, Mon 7 Dec 2026 (1 working day) — Approved (R-…)' / '…——已批准（R-…）'."""
    where = where_it_is(req, directory, locale)
    return say("read.request_line", locale, what=what(req, config, locale), where=where, id=req.id)


def request_row(
    req: Request, config: OrgConfig, directory: Directory, locale: str
) -> dict[str, Any]:
    """A compact row for lists the model reads (no reason: lists are not details)."""
    step = req.open_step()
    return {
        "request_id": req.id,
        "process": req.process,
        "requester": directory.get(req.requester).name,
        "what": what(req, config, locale),
        "status": req.status.value,
        "waiting_for": directory.get(step.assignee).name if step and step.assignee else None,
        "step": f"{step.index + 1}/{len(req.steps)}" if step else None,
    }


def carried_note(b: Balance, locale: str) -> str:
    """ ", of which 3 carried over, expiring 31 Mar" — empty when nothing carried over is left."""
    if not b.carried:
        return ""
    d = b.carried_expires
    if d is None:
        return say("balance.carried", locale, days=f"{b.carried:g}")
    return say(
        "balance.carried_expiring", locale, days=f"{b.carried:g}", on=fmt_day_month(d, locale)
    )


def accrual_note(b: Balance, locale: str, *, carry: bool = True) -> str:
    """ " (+1 a month; up to 5 carry into 2027 until 31 Mar)" — empty without accrual.

    `carry=False` leaves the carry-over rule out (the chat answer, which the model reads too).
    """
    if not b.monthly:
        return ""
    days = f"{b.monthly:g}"
    if not b.carry_cap or not carry:
        return say("balance.accrues", locale, days=days)
    cap, year = f"{b.carry_cap:g}", b.year + 1
    if b.carry_until is None:
        return say("balance.accrues_carry", locale, days=days, cap=cap, year=year)
    return say(
        "balance.accrues_carry_until",
        locale,
        days=days,
        cap=cap,
        year=year,
        on=fmt_day_month(b.carry_until, locale),
    )
