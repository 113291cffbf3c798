"""What the bot says about requests, in English and Chinese, for every platform.

Plain sentences (no markup): each adapter escapes and formats them for its own cards.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import date
from typing import Any

from agent.catalogue import say
from agent.events import ProposalReady
from agent.i18n import fmt_amount, fmt_date, fmt_days, fmt_range, names
from agent.tools.describe import choice_text, status_text, what, what_in_sentence, where_it_is
from bot.presentation.model import Reader
from bot.presentation.model import reader as as_reader
from bot.presentation.times import at_text
from workflow.config import FieldDef, FieldType, Person
from workflow.engine import Engine
from workflow.models import (
    HistoryEntry,
    Request,
    RequestStatus,
    RoutedReason,
    RoutingCode,
    Step,
    StepStatus,
)
from workflow.queries import OutEntry


def name_of(engine: Engine, person_id: str | None) -> str:
    """A person's display name; the id itself for someone no longer in the directory."""
    if not person_id:
        return "?"
    person = engine.directory.find(person_id)
    return person.name if person is not None else person_id


def team_text(engine: Engine, person_id: str, locale: str) -> str:
    """A person's team as the reader names it: the directory's name for it in `locale`
    ("研发部" / "Engineering"), else its own; a team of a manager's reports, "Emma Clarke's team"."""
    person = engine.directory.get(person_id)
    if (team := person.team_in(locale)) is not None:
        return team
    return say("team.reports_of", locale, name=name_of(engine, person.manager or person.id))


def person_label(person: Person, locale: str) -> str:
    """'张三 · 软件工程师' / 'Oliver Smith · Account Executive': a name and, when the directory
    has one, the job title in the reader's language (else as the directory has it)."""
    title = person.title_in(locale)
    return f"{person.name} · {title}" if title else person.name


def in_zone(reader: Reader | str, engine: Engine, person_id: str | None) -> Reader:
    """`reader`, with `person_id`'s time zone when it names none (times in one zone per card)."""
    rd = as_reader(reader)
    if rd.tz is not None or not person_id or engine.directory.find(person_id) is None:
        return rd
    return Reader(rd.locale, engine.directory.timezone_of(person_id))


def days_text(days: float, locale: str) -> str:
    """'1 day', '2.5 days' / '2.5 天'."""
    return say("days.one" if days == 1 else "days.many", locale, n=f"{days:g}")


def leave_type_name(engine: Engine | None, key: str, locale: str) -> str:
    if engine is not None and (lt := engine.config.leave_types_by_key.get(key)) is not None:
        return lt.display_name(locale)
    return key.replace("_", " ").capitalize()


def step_name(step: Step, locale: str) -> str:
    return step.name_zh if locale == "zh" else step.name


def step_of(index: int, total: int, name: str | None, locale: str) -> str:
    """'Step 1 of 2 (Manager)' / '第 1/2 步（直属主管）'; of a one-step chain, 'Manager approval'."""
    if total == 1 and name:  # "step 1 of 1" counts nothing a reader needs
        return say("wording.step_of.only", locale, name=name)
    if name:
        return say("wording.step_of.step_of", locale, index_1=index + 1, total=total, name=name)
    return say("wording.step_of.step_of_", locale, index_1=index + 1, total=total)


def whose(who: str, what: str, locale: str) -> str:
    """'Priya Patel: Annual leave, …' / '张三：年假，…' (a Chinese colon in Chinese)."""
    return say("line.whose", locale, who=who, what=what)


def request_named(req: Request, engine: Engine, locale: str, viewer: str | None = None) -> str:
    """A request as a person names it — its type and dates, and whose when not the viewer's
    ("Priya Patel: Annual leave, Mon 7 Dec 2026 – …"); never its id."""
    it = what(req, engine.config, locale)
    if viewer is None or viewer == req.requester:
        return it
    return whose(name_of(engine, req.requester), it, locale)


def process_name(engine: Engine, req: Request, locale: str) -> str:
    process = engine.config.processes_by_key.get(req.process)
    return process.display_name(locale) if process else req.process


def title_of(req: Request, engine: Engine, locale: str) -> str:
    """'Leave request · 张三' / '请假申请 · 张三'."""
    kind, who = process_name(engine, req, locale), name_of(engine, req.requester)
    return say("wording.title_of.request", locale, kind=kind, who=who)


def id_line(req: Request, engine: Engine, reader: Reader | str) -> str:
    """'Submitted Wed 2 Dec, 09:00 (London time) · R-XXXXXXXX': the id last, for whoever needs it."""
    rd = as_reader(reader)
    at = at_text(req.submitted_at or req.created_at, rd, engine.clock.now())
    return say("line.submitted", rd.locale, at=at, id=req.id)


def field_label(fd: FieldDef, locale: str) -> str:
    return fd.label_zh if locale == "zh" else fd.label


def field_value(
    fd: FieldDef | None,
    value: Any,
    engine: Engine | None,
    locale: str,
    currency: str | None = None,
) -> str:
    """A form value as a person reads it (raw: escape before putting it in mrkdwn); an amount
    of money with the minor units of `currency` (the form's currency field)."""
    kind = fd.type if fd is not None else None
    if isinstance(value, bool) or kind is FieldType.BOOL:
        return say("value.yes" if value else "value.no", locale)
    if kind is FieldType.DATE and isinstance(value, str | date):
        try:
            return fmt_date(date.fromisoformat(str(value)), locale)
        except ValueError:
            return str(value)
    if kind is FieldType.MONEY and isinstance(value, int | float):
        return fmt_amount(value, currency)
    if kind is FieldType.NUMBER and isinstance(value, int | float):
        return f"{value:g}"
    if kind is FieldType.LEAVE_TYPE:
        return leave_type_name(engine, str(value), locale)
    if kind is FieldType.CHOICE:
        return choice_text(value, locale)
    return str(value)


def leave_dates(fields: dict[str, Any], locale: str) -> str:
    """A leave's dates (the form's start, end and halves) as a person reads them."""
    return fmt_range(
        date.fromisoformat(str(fields["start"])),
        date.fromisoformat(str(fields["end"])),
        bool(fields.get("start_half")),
        bool(fields.get("end_half")),
        locale,
    )


def _leave_type(
    f: Mapping[str, Any], d: Mapping[str, Any], engine: Engine | None, locale: str
) -> str | None:
    return leave_type_name(engine, str(f["leave_type"]), locale) if f.get("leave_type") else None


def _leave_dates(
    f: Mapping[str, Any], d: Mapping[str, Any], engine: Engine | None, locale: str
) -> str | None:
    try:
        return leave_dates(f, locale)
    except (KeyError, ValueError):  # a proposal's dates the model left out or garbled
        return None


def _working_days(
    f: Mapping[str, Any], d: Mapping[str, Any], engine: Engine | None, locale: str
) -> str | None:
    days = d.get("working_days")
    return fmt_days(days, locale) if isinstance(days, int | float) else None


# The facts every card of a leave shows, in order: (label code, the value from the leave's
# fields and the values the engine derived for it, None when it has none). The confirm card,
# the approver's card and the requester's cards all read this one list.
LeaveFact = Callable[[Mapping[str, Any], Mapping[str, Any], Engine | None, str], str | None]
LEAVE_FACTS: tuple[tuple[str, LeaveFact], ...] = (
    ("label.type", _leave_type),
    ("label.dates", _leave_dates),
    ("label.working_days", _working_days),
)


def leave_facts(
    fields: Mapping[str, Any], derived: Mapping[str, Any], engine: Engine | None, locale: str
) -> list[tuple[str, str]]:
    """A leave's (label, value) pairs from `LEAVE_FACTS`, in the reader's language."""
    pairs = []
    for code, fact in LEAVE_FACTS:
        if (value := fact(fields, derived, engine, locale)) is not None:
            pairs.append((say(code, locale), value))
    return pairs


def request_facts(
    req: Request, engine: Engine, locale: str, balance_after: float | None = None
) -> list[tuple[str, str]]:
    """(label, value) pairs: requester, type, dates, working days, balance after; or the form's fields."""
    pairs = [(say("wording.request_facts.requester", locale), name_of(engine, req.requester))]
    if req.filed_by:  # HR filed it: every card of it says so
        by, who = name_of(engine, req.filed_by), name_of(engine, req.requester)
        pairs.append((say("label.filed_by", locale), say("value.filed_by", locale, by=by, who=who)))
    pairs += subject_facts(req, engine, locale)
    if req.is_leave and balance_after is not None:
        left = days_text(balance_after, locale)
        pairs.append(
            (
                say("wording.request_facts.balance_after", locale),
                say("wording.request_facts.left", locale, left=left),
            )
        )
    return pairs[:10]


def subject_facts(req: Request, engine: Engine, locale: str) -> list[tuple[str, str]]:
    """What a request is about: a leave's type, dates and working days, or its form's fields."""
    if req.is_leave:
        return leave_facts(req.fields, req.derived, engine, locale)
    pairs = []
    process = engine.config.processes_by_key.get(req.process)
    for fd in process.fields if process else ():
        value = req.fields.get(fd.name)
        if value is None or value == "":
            continue
        currency = req.fields.get("currency")
        shown = field_value(
            fd, value, engine, locale, currency if isinstance(currency, str) else None
        )
        pairs.append((field_label(fd, locale), shown))
    return pairs


# Proposal fields shown on their own line, not among the facts; fields only the model needs.
LONG_FIELDS = ("reason", "comment", "note")
_INTERNAL = {
    "process",
    "approver",
    "approvers",
    "half_day",
    "balance_after",
    "working_days",
    "on_behalf_of",
}


def _form_proposal_facts(
    f: dict[str, Any], engine: Engine | None, locale: str
) -> list[tuple[str, str]]:
    """A form's fields in the process's order, with its labels and values in the reader's language."""
    process = engine.config.processes_by_key.get(str(f.get("process"))) if engine else None
    defs = {fd.name: fd for fd in process.fields} if process else {}
    names = [n for n in defs if n in f] + [n for n in f if n not in defs]
    pairs = []
    for name in names:
        value = f[name]
        if name in _INTERNAL or name in LONG_FIELDS or value is None or value == "":
            continue
        fd = defs.get(name)
        if fd is None:  # a field the process does not define: shown, labelled as well as we can
            pairs.append((name.replace("_", " ").capitalize(), str(value)))
            continue
        currency = f.get("currency") if isinstance(f.get("currency"), str) else None
        shown = field_value(fd, value, engine, locale, currency)
        if fd.type is FieldType.MONEY and currency:
            shown = f"{shown} {currency}"
        elif fd.name == "currency" and "amount" in defs:
            continue  # said with the amount
        pairs.append((field_label(fd, locale), shown))
    return pairs


def proposal_facts(
    action: str, request_id: str, f: dict[str, Any], engine: Engine | None, locale: str
) -> list[tuple[str, str]]:
    """What a confirm card lists for a pending action, as (label, value) pairs (plain text)."""
    match action:
        case "submit":
            if "leave_type" in f:
                pairs = leave_facts(f, f, engine, locale)  # the derived values are among its fields
            else:
                pairs = _form_proposal_facts(f, engine, locale)
            if f.get("on_behalf_of"):  # HR's card for someone else's leave
                pairs.insert(0, (say("label.on_behalf_of", locale), str(f["on_behalf_of"])))
            if approvers := [str(a) for a in f.get("approvers") or []]:
                pairs.append((say("label.approval", locale), " → ".join(approvers)))
            if isinstance(after := f.get("balance_after"), int | float):
                left = say("value.days_left", locale, days=days_text(after, locale))
                pairs.append((say("label.balance_after_submit", locale), left))
            return pairs
        case "decide":
            pairs = []
            if f.get("requester"):
                pairs.append((say("label.requester", locale), str(f["requester"])))
            verb = say(
                "button.reject" if f.get("decision") == "reject" else "button.approve", locale
            )
            pairs.append((say("label.decision", locale), verb))
            return pairs
        case "remind":
            return [(say("label.to", locale), str(f["to"]))] if f.get("to") else []
        case "counter":  # the approver's suggestion of other dates, before it goes to the requester
            return _counter_proposal_facts(f, locale)
        case "delegate":
            pairs = [(say("label.delegate", locale), str(f.get("delegate") or "?"))]
            try:
                start, end = date.fromisoformat(str(f["start"])), date.fromisoformat(str(f["end"]))
                pairs.append(
                    (say("label.dates", locale), fmt_range(start, end, False, False, locale))
                )
            except (KeyError, ValueError):
                pass
            return pairs
    return []


def about_request_facts(
    action: str, req: Request, viewer: str, engine: Engine, reader: Reader | str
) -> list[tuple[str, str]]:
    """What a decide, withdraw or remind confirm card lists: the request as the engine has it now.

    The request's own facts (whose it is, when that is not the reader), then what the action
    is about: the step to decide, where the request is, or who is reminded and since when.
    """
    rd = in_zone(reader, engine, viewer)
    locale = rd.locale
    pairs = []
    if req.requester != viewer:  # an approver's decision, or HR withdrawing someone's leave
        pairs.append((say("label.requester", locale), name_of(engine, req.requester)))
    pairs += subject_facts(req, engine, locale)
    step = req.open_step()
    match action:
        case "decide" if step is not None:
            where = step_of(step.index, len(req.steps), step_name(step, locale), locale)
            pairs.append((say("label.step", locale), where))
        case "withdraw":
            pairs.append((say("label.status", locale), where_it_is(req, engine.directory, locale)))
        case "remind":
            if step is not None:
                pairs.append(
                    (say("label.to", locale), name_of(engine, step.assignee or step.approver))
                )
            at = rd.local(req.submitted_at or req.created_at)  # a day: no zone to name
            pairs.append((say("label.submitted_on", locale), fmt_date(at.date(), locale)))
    return pairs


def _counter_proposal_facts(f: dict[str, Any], locale: str) -> list[tuple[str, str]]:
    pairs = [(say("label.requester", locale), str(f.get("requester") or "?"))]
    for label, start, end in (
        ("label.asked_dates", "asked_start", "asked_end"),
        ("label.suggested_dates", "start", "end"),
    ):
        try:
            first, last = date.fromisoformat(str(f[start])), date.fromisoformat(str(f[end]))
        except (KeyError, ValueError):
            continue
        pairs.append((say(label, locale), fmt_range(first, last, False, False, locale)))
    if isinstance(f.get("working_days"), int | float):
        pairs.append((say("label.working_days", locale), fmt_days(f["working_days"], locale)))
    return pairs


def long_label(key: str, action: str, locale: str) -> str:
    """The label over a reason, comment or note on a confirm card."""
    if key == "comment":
        labels = {"decide": "label.comment", "counter": "label.note"}
        return say(labels.get(action, "label.reason"), locale)
    return say("label.note" if key == "note" else "label.reason", locale)


def out_line(o: OutEntry, locale: str) -> str:
    """'李四: Thu 3 Dec 2026 – Fri 4 Dec 2026 (pending)'."""
    dates = fmt_range(o.start, o.end, o.start_half, o.end_half, locale)
    pending = say("wording.out_line.pending", locale) if o.tentative else ""
    return say("wording.out_line.2", locale, o_name=o.name, dates=dates, pending=pending)


# Sentences the scheduler stored before reasons were codes: read back into codes (names, not ids).
_LEGACY_REASONS = (
    (
        RoutingCode.DELEGATED,
        re.compile(r"(?P<from_>.+) delegated approvals to (?P<to>.+) until (?P<until>[\d-]+)\.?"),
    ),
    (
        RoutingCode.ON_LEAVE,
        re.compile(r"(?P<from_>.+) is on leave until (?P<until>[\d-]+); sent to (?P<to>.+?)\.?"),
    ),
    (
        RoutingCode.ESCALATED,
        re.compile(
            r"No decision by (?P<from_>.+) within (?P<hours>[\d.]+) working hours;"
            r" escalated to (?P<to>.+?)\.?"
        ),
    ),
)


def routed_reason(step: Step) -> RoutedReason | None:
    """The step's routing reason as a code, reading old prose records too (None: not routed/unknown)."""
    reason = step.routed_reason
    if reason is None or isinstance(reason, RoutedReason):
        return reason
    for code, pattern in _LEGACY_REASONS:
        if (m := pattern.fullmatch(reason.strip())) is not None:
            try:
                return RoutedReason(code=code, **m.groupdict())
            except ValueError:
                return None
    return None


def reason_text(reason: RoutedReason, engine: Engine, locale: str) -> str:
    """A routing reason as a sentence in the reader's language (a stored name shows as itself)."""
    return say(
        f"routed.{reason.code.value}",
        locale,
        from_=name_of(engine, reason.from_),
        to=name_of(engine, reason.to),
        until=fmt_date(reason.until, locale) if reason.until else "?",
        hours=f"{reason.hours:g}" if reason.hours is not None else "?",
    )


def routed_text(step: Step, engine: Engine, locale: str) -> str | None:
    """Why a step went to a delegate or a manager, in the reader's language, or None."""
    if not step.routed_reason:
        return None
    reason = routed_reason(step)
    if reason is not None:
        return reason_text(reason, engine, locale)
    # prose we cannot read back: say only who has it, never guess why
    return say("routed.unknown", locale, to=name_of(engine, step.assignee))


def history_note(entry: HistoryEntry, engine: Engine, locale: str) -> str | None:
    """What a history line adds after its action: the comment, or why it was routed."""
    if entry.comment:
        return entry.comment
    return reason_text(entry.reason, engine, locale) if entry.reason is not None else None


def decision_text(
    req: Request, index: int, engine: Engine, reader: Reader | str
) -> tuple[str, str]:
    """(outcome, sentence) for what became of step `index`, times in the reader's zone, the
    approver's comment after it ("Approved by Emma Clarke on … — Fine by me").

    outcome is approved | rejected | withdrawn | expired | reassigned | open.
    """
    outcome, said, comment = decision_parts(req, index, engine, reader)
    return outcome, said + comment


def decision_parts(
    req: Request, index: int, engine: Engine, reader: Reader | str
) -> tuple[str, str, str]:
    """`decision_text` in its parts: (outcome, what the bot says, the approver's comment as it
    follows that — "" without one). What a card decides on is the bot's part alone: a comment
    is the approver's own text ("Fine by me - 刘洋 please check cover") and names nobody."""
    rd = in_zone(reader, engine, req.requester)
    locale = rd.locale
    if not 0 <= index < len(req.steps):
        return "open", status_text(req.status, locale), ""
    step = req.steps[index]
    by, at = name_of(engine, step.decided_by), at_text(step.decided_at, rd, engine.clock.now())
    for_whom = ""
    if step.decided_by and step.assignee and step.decided_by != step.assignee:
        holder = name_of(engine, step.assignee)
        for_whom = say("wording.decision_text.for", locale, holder=holder)
    comment = (step.comment or "").strip()
    tail = say("wording.decision_text.3", locale, comment=comment) if comment else ""
    match step.status:
        case StepStatus.APPROVED:
            key = "wording.decision_text.approved_by_at"
            return "approved", say(key, locale, by=by, for_whom=for_whom, at=at), tail
        case StepStatus.REJECTED:
            key = "wording.decision_text.rejected_by_at"
            return "rejected", say(key, locale, by=by, for_whom=for_whom, at=at), tail
        case StepStatus.AUTO_APPROVED:
            return (
                "approved",
                say("wording.decision_text.approved_automatically_by_the", locale),
                "",
            )
        case StepStatus.CANCELLED if req.status is RequestStatus.EXPIRED:
            return "expired", say("wording.decision_text.expired_without_a_decision", locale), ""
        case StepStatus.CANCELLED if req.status is RequestStatus.WITHDRAWN:
            return "withdrawn", say("wording.decision_text.withdrawn_by_the_requester", locale), ""
        case StepStatus.CANCELLED if req.status is RequestStatus.REJECTED:
            rejected = next((s for s in req.steps if s.status is StepStatus.REJECTED), None)
            if rejected is not None:
                return decision_parts(req, rejected.index, engine, rd)
        case StepStatus.PENDING if req.current_step == index:
            holder = name_of(engine, step.assignee)
            routed = routed_text(step, engine, locale)
            if routed is not None and names(routed, holder):  # "…; escalated to David Chen."
                return "reassigned", routed, ""
            text = say(
                "wording.decision_text.reassigned_to", locale, name_of_engine_step_assignee=holder
            )
            if routed is not None:
                text += say("wording.decision_text.10", locale, routed=routed)
            return "reassigned", text, ""
    return "open", where_it_is(req, engine.directory, locale), ""


def step_phrase(index: int, total: int, name: str | None, locale: str) -> str:
    """'step 1 of 2 (Manager)' / '第 1/2 步，直属主管': a step inside a sentence."""
    code = "wording.step_phrase.named" if name else "wording.step_phrase"
    return say(code, locale, n=index + 1, total=total, name=name)


def _open_step_line(req: Request, engine: Engine, locale: str) -> str | None:
    step = req.open_step()
    if step is None:
        return None
    holder = name_of(engine, step.assignee or step.approver)
    if len(req.steps) == 1:
        return say(
            "wording.open_step_line.only", locale, holder=holder, name=step_name(step, locale)
        )
    phrase = step_phrase(step.index, len(req.steps), step_name(step, locale), locale)
    return say("wording.open_step_line.1", locale, holder=holder, phrase=phrase)


def chain_rest(
    req: Request, step: Step, engine: Engine, locale: str, sentence: str
) -> tuple[str, ...]:
    """What a request's chain adds to a sentence that names who has its open `step`: the count
    ('Step 1 of 2 (Manager)') when the sentence leaves it out, and who comes next ('Then: 刘洋
    (HR)'); nothing on a one-step chain."""
    total, lines = len(req.steps), []
    if total > 1 and step_phrase(step.index, total, None, locale) not in sentence:
        lines.append(step_of(step.index, total, step_name(step, locale), locale))
    later = req.steps[step.index + 1 :]
    nxt = next((s for s in later if s.status is StepStatus.WAITING and not s.auto_approve), None)
    if nxt is not None:
        who = name_of(engine, nxt.approver)
        lines.append(say("line.then", locale, who=who, step=step_name(nxt, locale)))
    return tuple(lines)


def headline(
    event_type: str, req: Request, engine: Engine, locale: str, data: dict[str, Any]
) -> tuple[str, str]:
    """(outcome, sentence) heading a requester notice; outcome picks the card's colour."""
    now = _open_step_line(req, engine, locale)
    by = name_of(engine, data.get("by")) if data.get("by") else "?"
    match event_type:
        case "request_submitted":
            if now is None and req.status is RequestStatus.APPROVED:
                return "approved", say("wording.headline.your_request_was_submitted", locale)
            if now is None:
                return "info", say("wording.headline.your_request_was_submitted_", locale)
            return "info", say("wording.headline.your_request_went_to", locale, now=now)
        case "step_approved":
            index = int(data.get("step", 0))
            name = step_name(req.steps[index], locale) if index < len(req.steps) else None
            if len(req.steps) == 1:
                text = say("wording.headline.approved_your_request", locale, by=by)
            else:
                where = step_phrase(index, len(req.steps), name, locale)
                text = say("wording.headline.approved_of_your_request", locale, by=by, where=where)
            if now is not None:
                text += say("wording.headline.next", locale, now=now)
            return "approved", text
        case "counter_answered":  # to the approver who suggested the dates
            key = (
                "headline.counter.accepted" if data.get("accepted") else "headline.counter.declined"
            )
            who = name_of(engine, req.requester)
            return "info", say(key, locale, who=who, dates=leave_dates(req.fields, locale))
        case "acted_for" if data.get("action") == "withdrawn":
            return "withdrawn", say("headline.acted_for.withdrawn", locale, by=by)
        case "acted_for":
            text = say("headline.acted_for.submitted", locale, by=by)
            if now is not None:
                text += say("headline.acted_for.went_to", locale, now=now)
            return "info", text
        case "request_approved":
            return "approved", say("wording.headline.your_request_is_approved", locale)
        case "request_rejected":
            return "rejected", say("wording.headline.rejected_your_request", locale, by=by)
        case "request_withdrawn":
            return "withdrawn", say("wording.headline.this_request_was_withdrawn", locale)
        case "reminder_sent":
            to = name_of(engine, data.get("assignee")) if data.get("assignee") else now or "?"
            return "info", say("wording.headline.reminder_sent_to", locale, to=to)
        case "task_assigned" | "step_escalated" if now is not None:
            return "info", say("wording.headline.your_request_is_now", locale, now=now)
    where = where_it_is(req, engine.directory, locale)
    return "info", say("wording.headline.your_request_is", locale, where=where)


def detail(event_type: str, locale: str, data: dict[str, Any]) -> tuple[str, str] | None:
    """(label, text) of the comment, reason or note that comes with an event, if any."""
    key = {"request_withdrawn": "reason", "reminder_sent": "note"}.get(event_type, "comment")
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        return None
    if key == "note":
        label = say("wording.detail.note", locale)
    elif key == "reason" or event_type == "request_rejected":
        label = say("wording.detail.reason", locale)
    else:
        label = say("wording.detail.comment", locale)
    return label, value.strip()


_VERBS = {
    "submit": "submit",
    "withdraw": "withdraw",
    "remind": "remind",
    "delegate": "delegate",
    "counter": "counter",
}


def confirm_label(p: ProposalReady, locale: str) -> tuple[str, str]:
    """The confirm button's text and style: Submit, Approve, Reject, Withdraw, Send reminder, …"""
    if p.action == "decide":
        if p.fields.get("decision") == "reject":
            return say("button.reject", locale), "danger"
        return say("button.approve", locale), "primary"
    verb = _VERBS.get(p.action, "confirm")
    return say(f"button.{verb}", locale), "danger" if verb == "withdraw" else "primary"


def waiting_for(request: Request, engine: Engine, locale: str) -> str | None:
    """'waiting for Emma Clarke (step 1 of 2)'; None when no step is open."""
    step = request.open_step()
    if step is None:
        return None
    holder = name_of(engine, step.assignee or step.approver)
    if len(request.steps) == 1:
        return say("wording.outcome_text.waiting_for_only", locale, holder=holder)
    n = step_phrase(step.index, len(request.steps), None, locale)
    return say("wording.outcome_text.waiting_for", locale, holder=holder, n=n)


def outcome_text(kind: str, request: Request | None, engine: Engine, locale: str) -> str:
    """What a click on a confirm card did (kind: submit, decide, withdraw, remind, cancel)."""
    if kind in ("cancel", "cancelled") or request is None:
        return say("wording.outcome_text.cancelled_nothing_was_sent", locale)
    step = request.open_step()
    where = waiting_for(request, engine, locale) or ""
    match kind:
        case "submit":
            if where:
                return say("wording.outcome_text.submitted", locale, where=where)
            if request.status is RequestStatus.APPROVED:
                return say("wording.outcome_text.submitted_and_approved_automatically", locale)
            return say("wording.outcome_text.submitted_", locale)
        case "decide":
            if request.status is RequestStatus.REJECTED:
                return say("wording.outcome_text.rejected", locale)
            return (
                say("wording.outcome_text.approved_now", locale, where=where)
                if where
                else say("wording.outcome_text.approved", locale)
            )
        case "withdraw":
            return say("wording.outcome_text.withdrawn", locale)
        case "remind":
            if step is not None:
                holder = name_of(engine, step.assignee or step.approver)
                return say("wording.outcome_text.reminder_sent_to", locale, holder=holder)
            return say("wording.outcome_text.reminder_sent", locale)
        case "counter" if request.counter is not None:
            c = request.counter
            dates = fmt_range(c.start, c.end, c.start_half, c.end_half, locale)
            who = name_of(engine, request.requester)
            return say("answer.counter.sent", locale, dates=dates, who=who)
    return say("wording.outcome_text.done", locale)


def not_in_directory(locale: str, hr: str, platform: str = "Feishu") -> str:
    """The polite answer to someone the directory does not know; `platform` names their account."""
    if locale == "zh":  # the platform's own Chinese name
        platform = {"Feishu": "飞书", "Slack": " Slack "}.get(platform, platform)
    return say("wording.not_in_directory.sorry_your_account_is", locale, platform=platform, hr=hr)


# --- the worker's notices (plain sentences; each platform adds its markup) --------------------


def expired_text(request: Request, engine: Engine, locale: str, *, for_requester: bool) -> str:
    days = engine.config.policy.expire_after_days
    subject = what_in_sentence(request, engine.config, locale)
    if for_requester:
        return say(
            "wording.expired_text.your_request_had_no",
            locale,
            subject=subject,
            days=days,
        )
    name = engine.person(request.requester).name
    return say(
        "wording.expired_text.s_request_expired_before",
        locale,
        name=name,
        subject=subject,
    )


def escalated_text(request: Request, engine: Engine, locale: str, to: str, sla_hours: float) -> str:
    """To the approver the step was taken from: who has it now, and why."""
    who = engine.person(to).name
    requester = engine.person(request.requester).name
    return say(
        "wording.escalated_text.s_request_had_no",
        locale,
        requester=requester,
        subject=what_in_sentence(request, engine.config, locale),
        sla_hours=sla_hours,
        who=who,
    )


def digest_title(count: int, locale: str) -> str:
    code = "wording.digest_title.one" if count == 1 else "wording.digest_title.many"
    return say(code, locale, count=count)


def weekly_out_title(start: date, end: date, locale: str) -> str:
    dates = fmt_range(start, end, False, False, locale)
    return say("wording.weekly_out_title.who_s_out_next", locale, dates=dates)


def nobody_out(locale: str) -> str:
    return say("wording.nobody_out.nobody_in_your_team", locale)


# --- the conversation core's sentences ----------------------------------------------------------


def replaced_by_card_below(locale: str) -> str:
    """A superseded draft's card, and the refusal of its Submit."""
    return say("line.replaced", locale)


def delegated_text(delegate: str, start: date, end: date, locale: str) -> str:
    """What a confirmed delegation did."""
    dates = fmt_range(start, end, False, False, locale)
    return say(
        "wording.delegated_text.delegated_decides_your_approvals",
        locale,
        delegate=delegate,
        dates=dates,
    )


def button_not_valid(locale: str) -> str:
    return say("wording.button_not_valid.this_button_is_not", locale)


def store_unreachable(locale: str, *, changed_nothing: bool = True) -> str:
    """A turn or click that could not reach the database (the log has the detail)."""
    code = "error.store_unreachable" if changed_nothing else "error.store_unreachable.retry"
    return say(code, locale)


PLATFORM_NAMES = {"slack": ("Slack", "Slack"), "feishu": ("Feishu", "飞书")}


def platform_failed(locale: str, platform: str) -> str:
    """A turn that the platform's API failed (Slack's or Feishu's; the log has the detail)."""
    en, zh = PLATFORM_NAMES.get(platform, (platform, platform))
    return say("error.platform_failed", locale, platform=zh if locale == "zh" else en)
