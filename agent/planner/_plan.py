"""Deciding the next step: a tool call, a question, or the final answer."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from agent.catalogue import say
from agent.dates import find_dates
from agent.i18n import fmt_date, fmt_range
from agent.planner._context import Context, Lang
from agent.planner._conversation import (
    Observation,
    Task,
    Turn,
    field_errors,
    missing,
    result_ids,
    result_items,
)
from agent.planner._draft import Draft, reads_as_correction
from agent.planner._forms import FORM, KNOWN, READ_FORM, ask_field
from agent.planner._reading import TASKS, Intent, looks_like_question, looks_like_request
from agent.planner._replies import (
    capabilities,
    item_line,
    join_ids,
    leave_name,
    text,
    type_list,
)
from agent.planner._slots import default_currency
from workflow.acting import ACT_FOR_ROLE

__all__ = ["Batch", "Call", "Reply", "decide"]


@dataclass(frozen=True)
class Call:
    """Call one tool with these arguments."""

    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Reply:
    """Answer the user with this text and stop."""

    text: str


@dataclass(frozen=True)
class Batch:
    """Several calls of one tool at once (a draft a day for days listed apart): the agent runs
    them in order and the cards end the turn, so nothing waits for a later step."""

    calls: tuple[Call, ...]

    @property
    def name(self) -> str:
        return self.calls[0].name


Step = Call | Batch | Reply


def decide(task: Task, turn: Turn, ctx: Context, lang: Lang, tools: frozenset[str]) -> Step:
    """The next step for the current turn, given what the tools have answered so far."""
    _observe(task, turn, ctx)
    batch = _last_batch(turn)
    if not batch:
        return _available(_start(task, turn, ctx, lang), tools, lang, task)
    proposals = [o for o in batch if o.is_proposal]
    if proposals:
        if task.slots.get("split") and task.slots.get("listed") and proposals[-1].ok:
            following = _one_day_each(task)
            if isinstance(following, Call | Batch) and following.name in tools:
                return following
            done = [o for o in turn.observations if o.is_proposal and o.ok]
            summaries = "\n".join(_summary(o) or say("propose.prepared", lang) for o in done)
            return Reply(summaries)  # what to click is on each card, and goes with it once clicked
        return _after_proposal(proposals[-1], lang)
    if task.intent is Intent.FOR_OTHER and any(o.call.name == "find_people" for o in batch):
        return _available(_start(task, turn, ctx, lang), tools, lang, task)
    # A failed call of the planner's own is reported; one left by an LLM that went down is
    # not the planner's to explain when it has a plan of its own to carry on with.
    next_call = _start_call(task, turn, ctx, lang, tools)
    failures = [o for o in batch if not o.ok and (_is_mine(o) or next_call is None)]
    if failures:
        return _after_failure(failures[-1], lang)
    reads = [o for o in batch if o.ok]
    follow = _follow_up(task, reads[-1], lang) if reads else None
    if isinstance(follow, Call):
        if _already_called(turn, follow) or follow.name not in tools:
            return _after_reads(reads, lang)
        return follow
    if follow is not None:
        return follow
    if next_call is not None:
        return next_call
    # (after the form was read for a request, the request goes on: ask a field or propose it)
    form_read = all(o.call.name == READ_FORM for o in batch)
    # (so does a decision once the request is looked up: it is named in the question that follows)
    looked_up = task.intent in _DECIDES and all(o.call.name == "request_details" for o in batch)
    if task.intent in TASKS and (form_read or looked_up or not any(_is_mine(o) for o in batch)):
        first = _start(task, turn, ctx, lang)
        if isinstance(first, Reply):
            return first
    return _after_reads(reads, lang) if reads else Reply(text("cannot_finish", lang))


def _observe(task: Task, turn: Turn, ctx: Context) -> None:
    """What this turn's own calls already did, for the steps that depend on it."""
    days = tuple(
        str(o.call.arguments.get("start"))
        for o in turn.observations
        if o.call.name == "propose_leave" and o.ok
    )
    if days:
        task.slots["_proposed_days"] = days
    if task.intent is Intent.FOR_OTHER:
        for o in turn.observations:
            if o.call.name == "find_people" and o.ok:
                people = [
                    p for p in result_items(o.result) if str(p.get("id") or "") != ctx.user_id
                ]
                task.slots["looked_up"] = str(people[0].get("name") or "") if people else ""
                task.slots["people"] = [(str(p.get("id")), str(p.get("name"))) for p in people]


def _is_mine(observation: Observation) -> bool:
    return observation.call.id.startswith("call_planner_")


def _start_call(
    task: Task, turn: Turn, ctx: Context, lang: Lang, tools: frozenset[str]
) -> Call | None:
    """The call the task starts with, if it is offered and not made yet in this turn."""
    first = _start(task, turn, ctx, lang)
    if isinstance(first, Call) and first.name in tools and not _already_called(turn, first):
        return first
    return None


def _last_batch(turn: Turn) -> list[Observation]:
    """The observations answering the newest assistant tool-call message of the turn."""
    if not turn.observations:
        return []
    newest = {call.id for call in turn.batches[-1]} if turn.batches else set()
    found = [o for o in turn.observations if o.call.id in newest]
    return found or turn.observations[-1:]


def _already_called(turn: Turn, step: Call) -> bool:
    return any(c.name == step.name and c.arguments == step.arguments for c in turn.calls)


def _available(step: Step, tools: frozenset[str], lang: Lang, task: Task) -> Step:
    """A call of a tool this conversation does not offer becomes a plain answer."""
    if isinstance(step, Reply) or step.name in tools:
        return step
    if task.intent is Intent.REJECT and step.name == "request_details":
        return Reply(ask_comment(task.slots.get("request_id", ""), task.known, lang))
    proposes = {
        Intent.APPROVE: "propose_decision",
        Intent.REJECT: "propose_decision",
        Intent.WITHDRAW: "propose_withdraw",
        Intent.REMIND: "propose_reminder",
        Intent.COUNTER: "propose_counter",
    }
    if task.intent in proposes and proposes[task.intent] in tools:
        return Reply(text("ask_request_id", lang))
    return Reply(text("unavailable", lang))


# --- after observations ------------------------------------------------------------------------


def _summary(observation: Observation) -> str:
    value = observation.result.get("summary")
    return value.strip() if isinstance(value, str) else ""


def _after_proposal(observation: Observation, lang: Lang) -> Reply:
    if not observation.ok:
        return _after_failure(observation, lang)
    # what to click is the card's own line: it goes when the card is clicked, a sentence here would stay
    return Reply(_summary(observation) or say("propose.prepared", lang))


def _after_failure(observation: Observation, lang: Lang) -> Reply:
    result = observation.result
    message = result.get("message") or result.get("summary") or text("failed", lang)
    lines = [str(message).strip()]
    for name, error in field_errors(result):
        if error not in lines[0]:  # a refused form's message already says each field's problem
            lines.append(f"• {name}: {error}" if name else f"• {error}")
    body = "\n".join(lines)
    return Reply(f"{body}\n\n{text('what_to_change', lang)}")


def _after_reads(batch: list[Observation], lang: Lang) -> Reply:
    parts: list[str] = []
    for observation in batch:
        summary = _summary(observation)
        if summary:
            parts.append(summary)
        else:
            items = result_items(observation.result)
            parts.append(
                "\n".join(item_line(i) for i in items) if items else text("no_summary", lang)
            )
    return Reply("\n\n".join(parts))


def _follow_up(task: Task, observation: Observation, lang: Lang) -> Step | None:
    """A step that a read result leads to: pick the one request it lists, or ask which."""
    intent = task.intent
    chains = {
        Intent.APPROVE: "my_pending_approvals",
        Intent.REJECT: "my_pending_approvals",
        Intent.WITHDRAW: "my_requests",
        Intent.REMIND: "my_requests",
        Intent.COUNTER: "my_pending_approvals",
    }
    if intent not in chains or observation.call.name != chains[intent]:
        return None
    if "request_id" in task.slots:
        return None
    ids = result_ids(observation.result)
    if not ids:
        summary = _summary(observation)
        if intent in _DECIDES:
            return Reply(text("none_to_decide", lang))
        action = text("withdraw" if intent is Intent.WITHDRAW else "remind", lang)
        note = text("none_pending", lang, action=action)
        return Reply(f"{summary}\n\n{note}" if summary and summary != note else note)
    who = named_requester(" ".join(r.text for r in task.readings))
    if intent in _DECIDES and who:
        matching = _named(ids, observation, task)
        if matching:
            ids = matching
        elif _none_by(who, observation, ids):
            return Reply(text("none_from", lang, who=who))
    if len(ids) > 1:
        ids = _named(ids, observation, task) or ids
    if len(ids) > 1:
        ids = _of_kind(ids, observation, task) or ids
    if len(ids) > 1:
        question = text("choose", lang, ids=join_ids(ids, lang))
        listing = _summary(observation)
        if not listing:
            rows = result_items(observation.result)
            items = {str(i.get("request_id") or i.get("id") or "").upper(): i for i in rows}
            listing = "\n".join(item_line(items[i]) if i in items else f"• {i}" for i in ids)
        return Reply(f"{listing}\n\n{question}")
    slots = dict(task.slots, request_id=ids[0])
    return _act_on(intent, slots, lang, task.known)


_POSSESSIVE = re.compile(
    r"\b(?:approve|reject|decline|accept|deny|ok|okay|refuse)\s+(?!my\b|our\b|the\b|this\b|that\b|it\b)(?P<en>[a-z]+(?:\s+[a-z]+)?)'s\b"
    r"|(?:批准|同意|驳回|拒绝|批|把)(?P<zh>[\u4e00-\u9fff]{2,3}?)(?:的|那个|那条)"
    r"|^\s*(?P<zh2>[\u4e00-\u9fff]{2,3}?)(?:的|那个|那条)",
    re.IGNORECASE,
)
_CJK_NAME = re.compile(r"[\u4e00-\u9fff]")


def named_requester(said: str) -> str:
    """The requester a decision names ("approve Priya's", "驳回李四的"), as written; "" if none."""
    found = _POSSESSIVE.search(said)
    if not found:
        return ""
    who = found.group("en") or found.group("zh") or found.group("zh2") or ""
    if re.search(r"我|你|自己|这|那|他|她", who):
        return ""
    return who.title() if found.group("en") else who


def _none_by(who: str, observation: Observation, ids: list[str]) -> bool:
    """Whether none of the listed requesters can be the one named (same script, no match).

    A name in another script ("Zhang San" for 张三) cannot be told apart here: not a mismatch.
    """
    names = [
        str(i.get("requester_name") or i.get("requester") or "")
        for i in result_items(observation.result)
        if str(i.get("request_id") or i.get("id") or "").upper() in ids
    ]
    cjk = bool(_CJK_NAME.search(who))
    same = [n for n in names if n and bool(_CJK_NAME.search(n)) == cjk]
    return bool(same) and len(same) == len(names)


def _named(ids: list[str], observation: Observation, task: Task) -> list[str]:
    """The listed requests whose requester the user named ("approve Li Si's request")."""
    said = " ".join(r.text for r in task.readings).lower()
    words = set(re.findall(r"[a-z]+", said))
    named: list[str] = []
    for item in result_items(observation.result):
        request_id = str(item.get("request_id") or item.get("id") or "").upper()
        requester = str(item.get("requester_name") or item.get("requester") or "").lower()
        if request_id not in ids or not requester:
            continue
        parts = [p for p in re.findall(r"[a-z]+", requester) if len(p) > 2]
        if requester in said or any(p in words for p in parts):
            named.append(request_id)
    return named


_KIND_END = re.compile(r"[,:，：(（]")


def _of_kind(ids: list[str], observation: Observation, task: Task) -> list[str]:
    """The listed requests of the kind the user named ("withdraw my annual leave", "撤回报销").

    The kind is what a row's `what` starts with ("Annual leave", "报销"); failing that, its
    process ("expense", "leave"), so "my sick leave" does not also pick an annual leave.
    """
    said = " ".join(r.text for r in task.readings).lower()
    rows = [
        (str(item.get("request_id") or item.get("id") or "").upper(), item)
        for item in result_items(observation.result)
    ]
    rows = [(request_id, item) for request_id, item in rows if request_id in ids]
    by_name = [
        request_id
        for request_id, item in rows
        if (name := _KIND_END.split(str(item.get("what") or ""), maxsplit=1)[0].strip().lower())
        and name in said
    ]
    if by_name:
        return by_name
    return [
        request_id
        for request_id, item in rows
        if (process := str(item.get("process") or "").replace("_", " ").lower())
        and re.search(rf"\b{re.escape(process)}\b", said)
    ]


_DECIDES = (Intent.APPROVE, Intent.REJECT, Intent.COUNTER)  # what an approver does to a request


Known = dict[str, tuple[str, str]]  # request id → (requester, what), as the tools described it


def ask_comment(request_id: str, known: Known, lang: Lang) -> str:
    """Why reject, asked of the request as a person knows it ('张三：年假，12月7日…'), not its id."""
    if request_id.upper() not in known:
        return text("ask_comment.unnamed", lang)
    who, what = known[request_id.upper()]
    request = say("line.whose", lang, who=who, what=what) if who else what
    return text("ask_comment", lang, request=request)


def _act_on(intent: Intent | None, slots: dict[str, Any], lang: Lang, known: Known) -> Step:
    """The proposal for a request whose id is known."""
    request_id = slots["request_id"]
    if intent is Intent.COUNTER:
        arguments = {"request_id": request_id, "start": slots["counter_start"]}
        if slots.get("counter_end"):
            arguments["end"] = slots["counter_end"]
        return Call("propose_counter", arguments)
    if intent is Intent.APPROVE:
        arguments = {"request_id": request_id, "decision": "approve"}
        if slots.get("comment"):
            arguments["comment"] = slots["comment"]
        return Call("propose_decision", arguments)
    if intent is Intent.REJECT:
        if not slots.get("comment"):
            if request_id.upper() not in known:  # looked up first, to be named in the question
                return Call("request_details", {"request_id": request_id})
            return Reply(ask_comment(request_id, known, lang))
        return Call(
            "propose_decision",
            {"request_id": request_id, "decision": "reject", "comment": slots["comment"]},
        )
    if intent is Intent.WITHDRAW:
        arguments = {"request_id": request_id}
        if slots.get("reason"):
            arguments["reason"] = slots["reason"]
        return Call("propose_withdraw", arguments)
    arguments = {"request_id": request_id}
    if slots.get("note"):
        arguments["note"] = slots["note"]
    return Call("propose_reminder", arguments)


# --- the first step of a turn ------------------------------------------------------------------


def _iso(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _start(task: Task, turn: Turn, ctx: Context, lang: Lang) -> Step:
    intent = task.intent
    slots = task.slots
    if intent is None:
        if task.awaiting is None and len(task.readings) > 1:
            return _ask(task, lang, pushback=True)
        if "request_id" in slots:
            return Call("request_details", {"request_id": slots["request_id"]})
        if looks_like_question(turn.user):
            return Reply(text("off_topic", lang))
        if reads_as_correction(turn.user):
            return Reply(text("no_draft_to_change", lang))  # a correction outside a draft's thread
        if looks_like_request(turn.user) or find_dates(turn.user, ctx.today):
            # never the small-talk line: it reads as consent ("wfh tomorrow" — "enjoy!")
            return Reply(text("unclear", lang))
        return Reply(text("smalltalk", lang))
    handler = _HANDLERS.get(intent)
    if handler is not None:
        return handler(task, ctx, lang)
    if intent is Intent.COUNTER and missing(task):
        return Reply(text("ask_counter_dates", lang))
    if intent in (*_DECIDES, Intent.WITHDRAW, Intent.REMIND):
        if "request_id" in slots:
            return _act_on(intent, slots, lang, task.known)
        if intent in _DECIDES:
            return Call("my_pending_approvals", {})
        return Call("my_requests", {"status": "pending"})
    return Reply(text("smalltalk", lang))  # pragma: no cover - every intent has a handler


def _ask(task: Task, lang: Lang, *, pushback: bool = False) -> Reply:
    gaps = missing(task)
    if not gaps:
        return Reply(text("smalltalk", lang))
    prefix = text("pushback", lang) if pushback and not _new_facts(task) else ""
    first = gaps[0]
    if first.startswith(FORM):
        misfit = task.misfit
        field = next(f for f in task.form_gaps() if FORM + f.name == first)
        if misfit is not None and misfit[0].name == field.name:
            return Reply(ask_field(field, lang, misfit[1], misfit[2]))
        return Reply(prefix + ask_field(field, lang))
    if task.intent is Intent.LEAVE:
        if first == "leave_type" and task.slots.get("unknown_type"):
            types = type_list(ctx_types(task), lang)
            return Reply(text("unknown_type", lang, kind=task.slots["unknown_type"], types=types))
        if first == "days_or_range":
            return Reply(_days_or_range(task.slots, lang))
        if gaps == ["leave_type", "dates"]:
            key = "ask_type_and_dates"
        elif first == "dates":
            key = "ask_start" if "days" in task.slots else "ask_dates"
            if task.slots.get("leave_type") == "sick" and not prefix:
                prefix = text("sorry_sick", lang)
        else:
            key = "ask_leave_type"
    elif task.intent is Intent.WORKING_DAYS:
        key = "ask_working_dates"
    elif first == "comment":
        return Reply(prefix + ask_comment(task.slots.get("request_id", ""), task.known, lang))
    else:
        key = f"ask_{first}"
    return Reply(prefix + text(key, lang))


def ctx_types(task: Task) -> tuple[str, ...]:
    return task.slots.get("_types") or ("annual", "sick", "personal", "unpaid")


def _days_or_range(slots: dict[str, Any], lang: Lang) -> str:
    days = slots["listed"]
    shown = [fmt_date(d, lang) for d in days]
    listing = say("word.and_sep", lang).join(shown)
    return text("days_or_range", lang, days=listing, start=shown[0], end=fmt_date(days[-1], lang))


def _already_submitted(draft: Draft, lang: Lang) -> str:
    """Which submitted request cannot be changed, by its type and dates as well as its id."""
    dates = fmt_range(draft.start, draft.end, draft.start_half, draft.end_half, lang)
    what = text("leave_on", lang, kind=leave_name(draft.leave_type, lang), dates=dates)
    return text("already_submitted", lang, what=what, request_id=draft.request_id)


def _new_facts(task: Task) -> bool:
    """Whether the newest message added anything to the task."""
    return bool(task.readings and task.readings[-1].slots)


def _leave(task: Task, ctx: Context, lang: Lang) -> Step:
    task.slots["_types"] = ctx.leave_types
    slots = task.slots
    if submitted := slots.get("already_submitted"):
        return Reply(_already_submitted(submitted, lang))
    if missing(task):
        return _ask(task, lang, pushback=not _new_facts(task) and len(task.readings) > 1)
    if slots.get("split") and slots.get("listed"):
        return _one_day_each(task)
    arguments: dict[str, Any] = {"leave_type": slots["leave_type"], "start": _iso(slots["start"])}
    if "end" in slots:
        arguments["end"] = _iso(slots["end"])
    elif "days" in slots:
        days = slots["days"]
        arguments["days"] = int(days) if float(days).is_integer() else days
    else:
        arguments["end"] = _iso(slots["start"])
    if slots.get("start_half"):
        arguments["start_half"] = True
    if slots.get("end_half"):
        arguments["end_half"] = True
    if slots.get("reason"):
        arguments["reason"] = slots["reason"]
    if slots.get("replaces"):
        arguments["replaces"] = slots["replaces"]
    if slots.get("for_person"):  # HR filing it for someone (the engine checks the role)
        arguments["for_person"] = slots["for_person"]
    return Call("propose_leave", arguments)


def _one_day_each(task: Task) -> Step:
    """Listed days meant one by one: a draft for each not yet proposed this turn, all at once."""
    slots = task.slots
    done = slots.get("_proposed_days", ())
    calls: list[Call] = []
    for day in slots["listed"]:
        if day.isoformat() in done:
            continue
        arguments: dict[str, Any] = {
            "leave_type": slots["leave_type"],
            "start": day.isoformat(),
            "end": day.isoformat(),
        }
        if slots.get("reason"):
            arguments["reason"] = slots["reason"]
        if done or calls:
            arguments["separate"] = True  # the day before stays on its own card
        calls.append(Call("propose_leave", arguments))
    if not calls:
        return Reply("")  # every day proposed: the caller answers with the summaries
    return calls[0] if len(calls) == 1 else Batch(tuple(calls))


def _expense(task: Task, ctx: Context, lang: Lang) -> Step:
    slots = dict(task.slots)
    currency = default_currency(ctx.timezone)
    if "amount" in slots and "currency" not in slots and currency:
        task.slots["currency"] = slots["currency"] = currency
    if missing(task):
        return _ask(task, lang, pushback=not _new_facts(task) and len(task.readings) > 1)
    if _form_unread(task):
        return Call(READ_FORM, {})
    fields = {
        "amount": slots["amount"],
        "currency": slots["currency"],
        "category": slots.get("category", "other"),
        "spent_on": _iso(slots["spent_on"]),
        "description": slots.get("description") or slots.get("category", ""),
    }
    return Call("propose_request", {"process": "expense", "fields": fields | _answers(slots)})


def _trip(task: Task, ctx: Context, lang: Lang) -> Step:
    if missing(task):
        return _ask(task, lang, pushback=not _new_facts(task) and len(task.readings) > 1)
    if _form_unread(task):
        return Call(READ_FORM, {})
    slots = task.slots
    fields = {
        "destination": slots["destination"],
        "start": _iso(slots["start"]),
        "end": _iso(slots.get("end", slots["start"])),
        "purpose": slots["purpose"],
        "estimated_cost": slots["estimated_cost"],
    }
    return Call("propose_request", {"process": "business_trip", "fields": fields | _answers(slots)})


def _form_unread(task: Task) -> bool:
    """Whether the form lists fields the planner cannot read and has not been read yet."""
    process = task.intent.value if task.intent else ""
    names = task.declared.get(process, ())
    return task.forms is None and any(n not in KNOWN.get(process, ()) for n in names)


def _answers(slots: dict[str, Any]) -> dict[str, Any]:
    """The form fields the person gave in answer to the planner's questions, by field name."""
    return {k.removeprefix(FORM): v for k, v in slots.items() if k.startswith(FORM)}


def _reject(task: Task, ctx: Context, lang: Lang) -> Step:
    if "request_id" not in task.slots:
        return Call("my_pending_approvals", {})
    return _act_on(Intent.REJECT, task.slots, lang, task.known)


def _working_days(task: Task, ctx: Context, lang: Lang) -> Step:
    if missing(task):
        return _ask(task, lang)
    slots = task.slots
    arguments: dict[str, Any] = {"start": _iso(slots["start"])}
    if "end" in slots:
        arguments["end"] = _iso(slots["end"])
    elif "days" in slots:
        arguments["days"] = slots["days"]
    if slots.get("start_half"):
        arguments["start_half"] = True
    if slots.get("end_half"):
        arguments["end_half"] = True
    return Call("working_days", arguments)


def _who_is_out(task: Task, ctx: Context, lang: Lang) -> Step:
    slots = task.slots
    arguments: dict[str, Any] = {"start": _iso(slots.get("start", ctx.today))}
    if "end" in slots:
        arguments["end"] = _iso(slots["end"])
    if slots.get("scope"):
        arguments["scope"] = slots["scope"]
    if slots.get("page"):
        arguments["page"] = slots["page"]
    return Call("who_is_out", arguments)


def _status(task: Task, ctx: Context, lang: Lang) -> Step:
    if "request_id" in task.slots:
        return Call("request_details", {"request_id": task.slots["request_id"]})
    return Call("my_requests", {})


def _my_requests(task: Task, ctx: Context, lang: Lang) -> Step:
    status = task.slots.get("status")
    return Call("my_requests", {"status": status} if status else {})


def _balance(task: Task, ctx: Context, lang: Lang) -> Step:
    year = task.slots.get("year")
    return Call("my_balances", {"year": year} if year else {})


_MY_MANAGER = re.compile(
    r"^(?:my\s+)?(?:manager|boss|line\s+manager|approver)$|^我的(?:经理|主管|领导|上级|老板|审批人)$",
    re.IGNORECASE,
)


def _find_people(task: Task, ctx: Context, lang: Lang) -> Step:
    query = task.slots.get("query", "")
    if _MY_MANAGER.match(query.strip()) and ctx.manager:
        return Reply(text("your_manager_is", lang, manager=ctx.manager))
    return Call("find_people", {"query": query})


def _approver_choice(task: Task, ctx: Context, lang: Lang) -> Step:
    manager = ctx.manager or text("your_manager", lang)
    return Reply(text("approver_choice", lang, manager=manager))


def _identity(task: Task, ctx: Context, lang: Lang) -> Step:
    name = ctx.user_name or text("signed_in_user", lang)
    return Reply(text("identity", lang, name=name))


def _who_approves(task: Task, ctx: Context, lang: Lang) -> Step:
    manager = ctx.manager or text("your_manager", lang)
    return Reply(text("your_manager_is", lang, manager=manager))


def _for_other(task: Task, ctx: Context, lang: Lang) -> Step:
    slots = task.slots
    who = slots.get("who") or ""
    hr = slots.get("what") == "leave" and who and ACT_FOR_ROLE in ctx.roles
    # HR files it for the person named, unless the directory has nobody of a name that may
    # be a reason ("leave for surgery": their own leave then)
    if hr and (slots.get("sure") or slots.get("people") is None or slots["people"]):
        return _file_for(task, ctx, lang, who)
    if not slots.get("sure"):
        if slots.get("looked_up") is None:
            return Call("find_people", {"query": who})
        if not slots["looked_up"]:  # nobody of that name: the words were a reason, not a person
            task.intent = Intent.LEAVE
            task.slots = {k: v for k, v in slots.items() if k not in _OTHER_KEYS}
            return _leave(task, ctx, lang)
        who = slots["looked_up"]
    who = who or text("a_colleague", lang)
    if slots.get("what") == "withdraw":
        return Reply(text("withdraw_other", lang, who=who))
    return Reply(text("for_other", lang, who=who))


_OTHER_KEYS = frozenset({"what", "who", "sure", "looked_up", "people"})


def _file_for(task: Task, ctx: Context, lang: Lang, who: str) -> Step:
    """HR files leave for the person named: their id from the directory, then the leave draft.

    The engine decides whether the speaker may (HR only); the planner only asks it for HR, whose
    role the system message states. Missing facts are asked for in one message, since the
    next message alone would read as HR's own leave.
    """
    people = task.slots.get("people")
    if people is None:
        return Call("find_people", {"query": who})
    if not people:
        return Reply(text("nobody_named", lang, who=who))
    if len(people) > 1:
        names = join_ids([n for _, n in people], lang)  # "A, B or C" / "A、B、C"
        return Reply(text("which_person", lang, names=names))
    person_id, name = people[0]
    task.intent = Intent.LEAVE
    task.slots = {k: v for k, v in task.slots.items() if k not in _OTHER_KEYS}
    reason = str(task.slots.get("reason") or "").lower().split()
    if reason and set(reason) <= set(name.lower().split()):  # "for Oliver Smith": no reason
        task.slots.pop("reason")
    if missing(task):
        return Reply(text("ask_for_other", lang, who=name))
    task.slots["for_person"] = person_id
    return _leave(task, ctx, lang)


_HANDLERS = {
    Intent.WHO_APPROVES: _who_approves,
    Intent.POLICY: lambda t, c, lang: Reply(
        text("policy", lang, types=type_list(c.leave_types, lang))
    ),
    Intent.ADMIN: lambda t, c, lang: Reply(text("admin", lang)),
    Intent.FOR_OTHER: _for_other,
    Intent.LEAVE: _leave,
    Intent.EXPENSE: _expense,
    Intent.TRIP: _trip,
    Intent.REJECT: _reject,
    Intent.WORKING_DAYS: _working_days,
    Intent.WHO_IS_OUT: _who_is_out,
    Intent.STATUS: _status,
    Intent.MY_REQUESTS: _my_requests,
    Intent.BALANCE: _balance,
    Intent.PENDING_APPROVALS: lambda t, c, lang: Call("my_pending_approvals", {}),
    Intent.PROCESSES: lambda t, c, lang: Call("list_processes", {}),
    Intent.FIND_PEOPLE: _find_people,
    Intent.APPROVER_CHOICE: _approver_choice,
    Intent.IDENTITY: _identity,
    Intent.SELF_APPROVE: lambda t, c, lang: Reply(text("self_approve", lang)),
    Intent.OTHERS: lambda t, c, lang: Reply(text("others", lang)),
    Intent.CAPABILITIES: lambda t, c, lang: Reply(capabilities(c, lang)),
    Intent.THANKS: lambda t, c, lang: Reply(text("thanks", lang)),
    Intent.CANCEL_DRAFT: lambda t, c, lang: Reply(text("cancel_draft", lang)),
    Intent.SUBMIT_DRAFT: lambda t, c, lang: Reply(text("submit_draft", lang)),
}
