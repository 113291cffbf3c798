"""Leave rules: how many working days, whether the dates make sense, balances, overlaps."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from workflow import calendar
from workflow.config import LeaveType, OrgConfig, Person
from workflow.errors import FieldProblem, InsufficientBalance, OverlappingLeave, ValidationFailed
from workflow.models import LeaveEntry, RequestStatus

LEAVE_PREFIX = "leave:"


def reserved_field(year: int, leave_type: str) -> str:
    return f"{year}:{leave_type}:reserved"


def used_field(year: int, leave_type: str) -> str:
    return f"{year}:{leave_type}:used"


# Accrual's day counts of a year, beside `used` and `reserved` (workflow/accrual.py): days earned
# by monthly accrual, days carried in from the year before, carried days that lapsed untaken.
ACCRUED, CARRIED, LAPSED = "accrued", "carried", "lapsed"


def year_field(year: int, leave_type: str, kind: str) -> str:
    """A ledger field holding one of accrual's day counts (ACCRUED, CARRIED, LAPSED) for a year."""
    return f"{year}:{leave_type}:{kind}"


def accrual_done_field(period: str) -> str:
    """Set in a ledger in the same write as an accrual period's days: the period is done for them."""
    return f"accrual:{period}"


def derive(fields: Mapping[str, Any], person: Person) -> dict[str, Any]:
    """Working days (total and per year) and calendar days for dated requests."""
    if "start" not in fields or "end" not in fields:
        return {}
    start, end = date.fromisoformat(fields["start"]), date.fromisoformat(fields["end"])
    if end < start:
        raise ValidationFailed(
            f"The last day {end} is before the first day {start}.",
            zh=f"结束日期 {end} 早于开始日期 {start}。",
            problems={
                "end": FieldProblem("before_start", f"is before the first day {start}", start=start)
            },
        )
    halves = {"start_pm": bool(fields.get("start_half")), "end_am": bool(fields.get("end_half"))}
    try:
        by_year = calendar.working_days_by_year(
            start, end, person.country, person.subdivision, **halves
        )
    except calendar.CalendarError as e:
        # noon to noon of one day is the one a person can make on a form; the rest are out-of-range
        # dates, said in English by the calendar and in general words in Chinese
        code = "no_time" if start == end and halves["start_pm"] and halves["end_am"] else "calendar"
        raise ValidationFailed(
            str(e),
            problems={"start_half": FieldProblem(code, str(e), day=start, detail=str(e))},
        ) from e
    return {
        "working_days": sum(by_year.values()),
        "days_by_year": {str(y): d for y, d in by_year.items()},
        "calendar_days": (end - start).days + 1,
    }


def check_dates(
    fields: Mapping[str, Any], derived: Mapping[str, Any], today: date, config: OrgConfig
) -> None:
    """Refuse a leave with no working day, too far ahead, or too far in the past."""
    start, end = date.fromisoformat(fields["start"]), date.fromisoformat(fields["end"])
    if derived["working_days"] <= 0:
        raise ValidationFailed(
            f"{start} to {end} has no working day in it (weekends and public holidays are not "
            "counted), so there is nothing to take leave for.",
            zh=f"{start} 至 {end} 没有工作日（周末和法定假日不计），无需请假。",
            problems={
                "start": FieldProblem(
                    "no_working_day", "the range has no working day", start=start, end=end
                )
            },
        )
    ahead = config.policy.max_days_ahead
    if start > today + timedelta(days=ahead):
        raise ValidationFailed(
            f"Leave can be requested at most {ahead} days ahead; {start} is later than that.",
            zh=f"最多只能提前 {ahead} 天请假；{start} 超出了范围。",
            problems={
                "start": FieldProblem(
                    "too_far_ahead", f"is more than {ahead} days ahead", days=ahead, start=start
                )
            },
        )
    back = config.policy.max_days_back
    if start < today - timedelta(days=back):
        raise ValidationFailed(
            f"Leave can be recorded at most {back} days after the fact; {start} is earlier.",
            zh=f"最多只能补请 {back} 天内的假；{start} 太早了。",
            problems={
                "start": FieldProblem(
                    "too_far_back", f"is more than {back} days ago", days=back, start=start
                )
            },
        )


def check_reason(leave_type: LeaveType, fields: Mapping[str, Any]) -> None:
    if leave_type.reason_required and not fields.get("reason"):
        raise ValidationFailed(
            f"{leave_type.name} needs a reason.",
            zh=f"{leave_type.name_zh}需要填写事由。",
            problems={
                "reason": FieldProblem("reason_required", f"is required for {leave_type.name}")
            },
        )


def entry_for(
    request_id: str, person: str, fields: Mapping[str, Any], status: RequestStatus
) -> LeaveEntry:
    return LeaveEntry(
        request_id=request_id,
        person=person,
        start=fields["start"],
        end=fields["end"],
        start_half=bool(fields.get("start_half")),
        end_half=bool(fields.get("end_half")),
        status=status,
    )


def ledger_value(e: LeaveEntry) -> str:
    """A ledger entry as stored: `end|start|halves|status`, its last day first so Lua can prune it."""
    halves = ("s" if e.start_half else "") + ("e" if e.end_half else "")
    return f"{e.end.isoformat()}|{e.start.isoformat()}|{halves}|{e.status.value}"


def parse_ledger_value(request_id: str, person: str, value: str) -> LeaveEntry:
    """A stored ledger entry: the compact form, or the JSON of the older layout."""
    if value.startswith("{"):
        return LeaveEntry.model_validate_json(value)
    end, start, halves, status = value.split("|")
    return LeaveEntry(
        request_id=request_id,
        person=person,
        start=start,
        end=end,
        start_half="s" in halves,
        end_half="e" in halves,
        status=RequestStatus(status),
    )


def ledger_entries(ledger: Mapping[str, str], person: str = "") -> list[LeaveEntry]:
    """The pending and approved leaves recorded in a person's ledger."""
    return [
        parse_ledger_value(k[len(LEAVE_PREFIX) :], person, v)
        for k, v in ledger.items()
        if k.startswith(LEAVE_PREFIX)
    ]


def check_overlap(entry: LeaveEntry, ledger: Mapping[str, str]) -> None:
    """Refuse leave that overlaps the person's own pending or approved leave."""
    for other in ledger_entries(ledger, entry.person):
        if other.request_id != entry.request_id and entry.overlaps(other):
            raise OverlappingLeave(
                f"You already have {other.status.value} leave from {other.start} to {other.end} "
                f"(request {other.request_id}); withdraw it or choose other days.",
                zh=f"你在 {other.start} 至 {other.end} 已有请假（申请 {other.request_id}），请先撤回或换其他日期。",
                request_id=other.request_id,
                leave=other,  # the agent and the forms say it with dates a person reads
            )


@dataclass(frozen=True)
class Balance:
    """One leave type's allowance for a year and what is used and reserved of it.

    With accrual, `carried` is what is left of the days carried over from last year (they are
    taken first) and `carried_expires` the day they lapse after, while some are left to lapse.
    """

    leave_type: str
    year: int
    allowance: float | None
    used: float
    reserved: float
    carried: float = 0.0
    carried_expires: date | None = None
    # the accrual rule, so a balance can say how it grows: days a month, and what carries over
    monthly: float = 0.0
    carry_cap: float = 0.0
    carry_until: date | None = None  # the day next year's carried days lapse after

    @property
    def available(self) -> float | None:
        if self.allowance is None:
            return None
        return self.allowance - self.used - self.reserved

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "leave_type": self.leave_type,
            "year": self.year,
            "allowance": self.allowance,
            "used": self.used,
            "pending": self.reserved,
            "available": self.available,
        }
        if self.carried:
            out["carried_over"] = self.carried
            if self.carried_expires is not None:
                out["carried_over_expires"] = self.carried_expires.isoformat()
        return out


def ledger_days(ledger: Mapping[str, str], name: str) -> float:
    """The day count in one ledger field (0 when unset)."""
    return float(ledger.get(name, 0) or 0)


def balance(ledger: Mapping[str, str], leave_type: LeaveType, person: Person, year: int) -> Balance:
    used = ledger_days(ledger, used_field(year, leave_type.key))
    reserved = ledger_days(ledger, reserved_field(year, leave_type.key))
    allowance = leave_type.allowance_for(person.country)
    accrual = leave_type.accrual
    if accrual is None:
        return Balance(leave_type.key, year, allowance, used, reserved)
    carried = ledger_days(ledger, year_field(year, leave_type.key, CARRIED))
    lapsed = ledger_days(ledger, year_field(year, leave_type.key, LAPSED))
    allowance = (
        (allowance or 0.0)
        + ledger_days(ledger, year_field(year, leave_type.key, ACCRUED))
        + carried
        - lapsed
    )
    # carried days are taken (and booked) first; after the lapse none are left, since the lapse
    # took what was carried and not yet used
    carried_left = max(0.0, carried - lapsed - used - reserved)
    expires = accrual.expiry(year) if carried_left else None
    return Balance(
        leave_type.key,
        year,
        allowance,
        used,
        reserved,
        carried_left,
        expires,
        accrual.monthly_days,
        accrual.carry_over_cap,
        accrual.expiry(year + 1),
    )


def check_balance(
    ledger: Mapping[str, str],
    leave_type: LeaveType,
    person: Person,
    days_by_year: Mapping[str, float],
) -> None:
    """Refuse leave beyond what is left of the allowance, with the numbers."""
    for year, days in days_by_year.items():
        b = balance(ledger, leave_type, person, int(year))
        if b.available is not None and days > b.available + 1e-9:
            raise InsufficientBalance(
                f"You asked for {days:g} working days of {leave_type.name.lower()} in {year}, but "
                f"only {b.available:g} are left ({b.allowance:g} a year, {b.used:g} taken, "
                f"{b.reserved:g} awaiting approval).",
                zh=f"你在 {year} 年申请 {days:g} 个工作日的{leave_type.name_zh}，但只剩 {b.available:g} 天"
                f"（每年 {b.allowance:g} 天，已用 {b.used:g} 天，审批中 {b.reserved:g} 天）。",
                asked=days,
                available=b.available,
                year=int(year),
            )
