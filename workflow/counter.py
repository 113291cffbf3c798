"""Counter-offers: an approver suggests other dates; the requester accepts or declines them.

The suggestion is stored on the request (`Request.counter`), checked by the same rules as a
new leave (working days in the requester's calendar, the date limits, overlaps, the balance
with this request's own days given back, and an unchanged approval chain). Accepting moves
the request to the new dates — its reserved days, leave calendar and history follow in the
same atomic step — and leaves the approver's step open, so the approver decides it on the
new dates with one click. Declining changes nothing but the record of the suggestion.
A suggestion left open when its step is decided, or the request ends, lapses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

import structlog

from workflow import away, leave, whos_out
from workflow.chain import resolve_chain
from workflow.errors import (
    FieldProblem,
    InsufficientBalance,
    InvalidState,
    NotAllowed,
    NotFound,
    OverlappingLeave,
    ValidationFailed,
)
from workflow.fields import validate_fields
from workflow.models import (
    CounterOffer,
    CounterStatus,
    Decision,
    EventType,
    PendingAction,
    Request,
    RequestStatus,
    StepStatus,
)
from workflow.store import hmget_record, versioned
from workflow.transitions import Change

if TYPE_CHECKING:
    from workflow.engine import Engine

log = structlog.get_logger("workflow")
_DATE_FIELDS = ("start", "end", "start_half", "end_half")


@dataclass(frozen=True)
class Dates:
    """Leave dates as a counter-offer proposes them."""

    start: date
    end: date
    start_half: bool = False
    end_half: bool = False

    @classmethod
    def of(cls, c: CounterOffer) -> Dates:
        """The dates a counter-offer suggests."""
        return cls(c.start, c.end, c.start_half, c.end_half)

    def fields(self) -> dict[str, Any]:
        """The dates as the leave form's fields."""
        return {
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "start_half": self.start_half,
            "end_half": self.end_half,
        }


def _released(ledger: Mapping[str, str], req: Request) -> dict[str, str]:
    """The requester's ledger as if this request's reserved days were given back."""
    out = dict(ledger)
    leave_type = req.fields["leave_type"]
    for year, days in req.derived.get("days_by_year", {}).items():
        key = leave.reserved_field(int(year), leave_type)
        out[key] = str(float(out.get(key, 0) or 0) - float(days))
    return out


def _same_dates(req: Request, dates: Dates) -> bool:
    return all(
        str(req.fields.get(k) or False) == str(v or False) for k, v in dates.fields().items()
    )


def check_dates(
    engine: Engine, req: Request, dates: Dates, ledger: Mapping[str, str], *, for_approver: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The request's fields and derived values on `dates`, if every leave rule allows them.

    `for_approver` words a refusal for the approver suggesting them ("张三 has only…"),
    else for the requester accepting them ("You have only…").

    Raises:
        ValidationFailed: no working day, outside the date limits, or a different chain.
        OverlappingLeave: the requester has other leave on some of those days.
        InsufficientBalance: the requester's balance does not cover them.
    """
    person = engine.person(req.requester)
    process = engine.process(req.process)
    clean = validate_fields(process, {**req.fields, **dates.fields()}, engine.config)
    derived = leave.derive(clean, person)
    leave.check_dates(clean, derived, engine.today_for(req.requester), engine.config)
    leave_type = engine.config.leave_types_by_key[clean["leave_type"]]
    entry = leave.entry_for(req.id, req.requester, clean, RequestStatus.PENDING)
    try:
        leave.check_overlap(entry, ledger)
        leave.check_balance(_released(ledger, req), leave_type, person, derived["days_by_year"])
    except OverlappingLeave as e:
        if not for_approver:
            raise
        other = e.details.get("request_id")
        raise OverlappingLeave(
            f"{person.name} already has leave on some of those days (request {other}); "
            "suggest other days.",
            zh=f"{person.name}在这些日期中已有请假（申请 {other}），请建议其他日期。",
            request_id=other,
        ) from e
    except InsufficientBalance as e:
        if not for_approver:
            raise
        left, asked = e.details.get("available"), e.details.get("asked")
        raise InsufficientBalance(
            f"{person.name} has {left:g} working days of {leave_type.name.lower()} left, and "
            f"those dates take {asked:g}; suggest fewer days.",
            zh=f"{person.name}的{leave_type.name_zh}只剩 {left:g} 个工作日，这些日期需要 {asked:g} 天；"
            "请建议更少的天数。",
            asked=asked,
            available=left,
        ) from e
    steps = resolve_chain(
        process, person, {**clean, **derived}, engine.directory, filed_by=req.filed_by
    )
    if [(s.approver, s.auto_approve) for s in steps] != [
        (s.approver, s.auto_approve) for s in req.steps
    ]:
        raise ValidationFailed(
            f"Those dates ({derived['working_days']:g} working days) would change who has to "
            f"approve request {req.id}; suggest dates of a similar length, or ask "
            f"{person.name} to file a new request.",
            zh=f"这些日期（{derived['working_days']:g} 个工作日）会改变申请 {req.id} 的审批人；"
            f"请建议天数相近的日期，或请{person.name}重新提交申请。",
            problems={
                "start": FieldProblem(
                    "chain_changes",
                    "the dates change the approval chain",
                    days=f"{derived['working_days']:g}",
                    name=person.name,
                )
            },
        )
    return clean, derived


def _open_leave(engine: Engine, req: Request | None, request_id: str) -> Request:
    """The request, if it is a submitted leave still awaiting a decision."""
    if req is None or req.status is RequestStatus.DRAFT:
        raise NotFound(f"There is no submitted request {request_id}.")
    if not req.is_leave:
        raise InvalidState(
            f"Request {req.id} has no dates to suggest instead; approve or reject it.",
            zh=f"申请 {req.id} 没有可以改的日期；请批准或驳回。",
        )
    if req.status is not RequestStatus.PENDING:
        raise InvalidState(
            f"Request {req.id} is already {req.status.value}; its dates can no longer change.",
            zh=f"申请 {req.id} 已{engine.status_zh(req.status)}，日期不能再更改。",
        )
    return req


def check_proposal(
    engine: Engine, req: Request, index: int, actor: str, avail: Any, dates: Dates
) -> None:
    """Refuse a suggestion by someone who may not decide the open step, or of the same dates."""
    if req.current_step != index:
        raise engine.step_not_open(req.id, index)
    engine._check_decider(req, index, actor, Decision.APPROVE, None, avail)
    if dates.end < dates.start:
        raise ValidationFailed(
            f"The last day {dates.end} is before the first day {dates.start}.",
            zh=f"结束日期 {dates.end} 早于开始日期 {dates.start}。",
            problems={
                "end": FieldProblem(
                    "before_start", f"is before the first day {dates.start}", start=dates.start
                )
            },
        )
    if _same_dates(req, dates):
        raise ValidationFailed(
            "Those are the dates already asked for; approve them instead, or suggest other days.",
            zh="这就是申请里的日期；请直接批准，或建议其他日期。",
            problems={"start": FieldProblem("same_dates", "is the date already asked for")},
        )


async def propose_once(
    engine: Engine,
    request_id: str,
    index: int,
    actor: str,
    dates: Dates,
    comment: str | None,
    pending: PendingAction | None,
) -> Request:
    """Record the approver's suggestion of other dates (a second identical one returns the request)."""
    found, avail = await away.read_with_reach(engine.store, engine.keys, request_id, [actor])
    req = _open_leave(engine, found, request_id)
    c = req.counter
    if (
        c is not None
        and c.status is CounterStatus.OPEN
        and c.by == actor
        and c.step == index
        and Dates.of(c) == dates
    ):
        await engine._close_pending(pending, req)
        return req  # the same suggestion again: already recorded
    check_proposal(engine, req, index, actor, avail, dates)
    [ledger] = await engine.store.read(("hgetall", [engine.keys.ledger(req.requester)]))
    _, derived = check_dates(engine, req, dates, ledger, for_approver=True)
    change = Change(req, engine._now(actor))
    note = (comment or "").strip() or None
    req.counter = CounterOffer(
        by=actor,
        at=change.now,
        step=index,
        start=dates.start,
        end=dates.end,
        start_half=dates.start_half,
        end_half=dates.end_half,
        working_days=derived["working_days"],
        comment=note,
    )
    change.log(actor, "countered", step=index, comment=note)
    change.emit(
        EventType.COUNTER_PROPOSED,
        step=index,
        by=actor,
        **dates.fields(),
        working_days=derived["working_days"],
        comment=note,
    )
    engine._confirm_into(change.tx, pending, req)
    await engine.store.apply(change.finish(engine.setting))
    log.info("counter_proposed", request_id=req.id, step=index, actor=actor)
    return req


def _check_answer(engine: Engine, req: Request, actor: str, accept: bool) -> CounterOffer | None:
    """The open suggestion `actor` may answer; None when this answer was already recorded."""
    if actor != req.requester:
        name = engine.person(req.requester).name
        raise NotAllowed(
            f"Only {name} can accept or decline other dates for request {req.id}.",
            zh=f"只有{name}可以接受或拒绝申请 {req.id} 的建议日期。",
        )
    c = req.counter
    if c is None:
        raise InvalidState(
            f"Nobody has suggested other dates for request {req.id}; nothing changed.",
            zh=f"没有人为申请 {req.id} 建议其他日期，未做任何更改。",
        )
    if c.status is (CounterStatus.ACCEPTED if accept else CounterStatus.DECLINED):
        return None  # the same click again
    if c.status is not CounterStatus.OPEN:
        who = engine.person(c.by).name
        said = {
            CounterStatus.ACCEPTED: ("you already accepted them", "你已接受"),
            CounterStatus.DECLINED: ("you already declined them", "你已拒绝"),
            CounterStatus.LAPSED: (
                "the request was decided or moved on since",
                "此后申请已被处理",
            ),
        }[c.status]
        raise InvalidState(
            f"{who}'s suggested dates for request {req.id} no longer apply: {said[0]}; "
            "nothing changed.",
            zh=f"{who}为申请 {req.id} 建议的日期已不再适用（{said[1]}），未做任何更改。",
        )
    return c


async def answer_once(engine: Engine, request_id: str, actor: str, accept: bool) -> Request:
    """Accept (the request moves to the suggested dates) or decline the open suggestion."""
    req_key = engine.keys.request(request_id)
    [raw] = await engine.store.read(hmget_record(req_key))
    req = versioned(Request, raw)
    if req is None or req.status is RequestStatus.DRAFT:
        raise NotFound(f"There is no submitted request {request_id}.")
    c = _check_answer(engine, req, actor, accept)
    if c is None:
        return req
    change = Change(req, engine._now(actor))
    c.answered_at = change.now
    if accept:
        req = _open_leave(engine, req, request_id)
        [ledger] = await engine.store.read(("hgetall", [engine.keys.ledger(req.requester)]))
        clean, derived = check_dates(engine, req, Dates.of(c), ledger, for_approver=False)
        c.was = {k: req.fields.get(k) for k in _DATE_FIELDS}
        _redate(engine, change, clean, derived, int(ledger.get("v", 0)))
        c.status = CounterStatus.ACCEPTED
        c.working_days = derived["working_days"]
        change.log(actor, "counter_accepted", step=c.step)
    else:
        c.status = CounterStatus.DECLINED
        change.log(actor, "counter_declined", step=c.step)
    step = req.steps[c.step]
    change.emit(
        EventType.COUNTER_ANSWERED,
        step=c.step,
        by=c.by,
        accepted=accept,
        assignee=step.assignee if step.status is StepStatus.PENDING else None,
    )
    await engine.store.apply(change.finish(engine.setting))
    log.info("counter_answered", request_id=req.id, accepted=accept)
    return req


def _redate(
    engine: Engine,
    change: Change,
    clean: dict[str, Any],
    derived: dict[str, Any],
    ledger_version: int,
) -> None:
    """Move a pending leave to new dates: reserved days, ledger entry and week buckets follow."""
    req, keys, tx = change.request, engine.keys, change.tx
    ledger = keys.ledger(req.requester)
    tx.expect(ledger, ledger_version).hincrby(ledger, "v", 1)
    leave_type = req.fields["leave_type"]
    for year, days in req.derived.get("days_by_year", {}).items():
        tx.hincrbyfloat(ledger, leave.reserved_field(int(year), leave_type), -float(days))
    for year, days in derived["days_by_year"].items():
        tx.hincrbyfloat(ledger, leave.reserved_field(int(year), leave_type), float(days))
    common = {
        "person": req.requester,
        "name": engine.directory.get(req.requester).name,
        "team": engine.directory.team_of(req.requester),
        "request_id": req.id,
        "now": change.now,
    }
    whos_out.write(tx, keys, **common, fields=req.fields, booked=False, tentative=True)
    req.fields, req.derived = clean, derived
    entry = leave.entry_for(req.id, req.requester, clean, RequestStatus.PENDING)
    tx.hset(ledger, leave.LEAVE_PREFIX + req.id, leave.ledger_value(entry))
    whos_out.write(tx, keys, **common, fields=clean, booked=True, tentative=True)
