"""The conversation as the planner sees it: turns, tool observations, and the task in progress.

The planner keeps no state of its own. Everything comes from the messages: the task of the
current turn is the newest user message, folded over the earlier messages the planner asked
a follow-up question about ("What kind of leave?" → "sick").
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.messages import Message, ToolCall
from agent.planner._context import Context
from agent.planner._forms import FORM, extra_fields, form_value, read_forms
from agent.planner._reading import TASKS, Intent, Reading, follow_up, read_message
from agent.planner._slots import MORE, request_ids
from workflow.config import FieldDef
from workflow.fields import FieldProblem

__all__ = [
    "Observation",
    "Task",
    "Turn",
    "current_task",
    "field_errors",
    "missing",
    "named_requests",
    "parse_result",
    "result_ids",
    "result_items",
    "split_turns",
]

PROPOSALS = frozenset(
    {
        "propose_leave",
        "propose_request",
        "propose_decision",
        "propose_withdraw",
        "propose_reminder",
        "propose_counter",
    }
)


@dataclass(frozen=True)
class Observation:
    """One tool call and what it returned (`result` is the parsed JSON object, or a stand-in)."""

    call: ToolCall
    result: dict[str, Any]

    @property
    def ok(self) -> bool:
        return self.result.get("ok") is True

    @property
    def is_proposal(self) -> bool:
        return self.call.name in PROPOSALS


@dataclass
class Turn:
    """A user message and everything the assistant and the tools said until the next one."""

    user: str
    observations: list[Observation] = field(default_factory=list)
    batches: list[tuple[ToolCall, ...]] = field(default_factory=list)
    final: str | None = None
    notes: list[str] = field(default_factory=list)  # what happened after: "(Cancelled: …)"

    @property
    def calls(self) -> list[ToolCall]:
        """Every tool call of the turn, in order."""
        return [call for batch in self.batches for call in batch]

    @property
    def proposed(self) -> bool:
        """Whether a proposal succeeded in this turn (the task it served is done)."""
        return any(o.is_proposal and o.ok for o in self.observations)

    @property
    def asked(self) -> bool:
        """Whether the turn ended on a question to the user."""
        return bool(self.final) and self.final.rstrip(" *_`").endswith(("?", "？"))


@dataclass
class Task:
    """The intent being served and the facts gathered for it so far."""

    intent: Intent | None
    slots: dict[str, Any] = field(default_factory=dict)
    choices: list[str] = field(default_factory=list)
    awaiting: str | None = None
    readings: list[Reading] = field(default_factory=list)
    # The organisation's forms once read in this thread, and the field names its schema lists.
    forms: dict[str, tuple[FieldDef, ...]] | None = None
    declared: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The requests the tools described in this thread, by id: (requester, what) as a person names them.
    known: dict[str, tuple[str, str]] = field(default_factory=dict)
    # The newest answer that did not fit its form field: (field, answer, why).
    misfit: tuple[FieldDef, str, FieldProblem] | None = None

    def form_gaps(self) -> list[FieldDef]:
        """The required fields of this task's form that the planner cannot read and lacks."""
        if self.intent is None or self.forms is None:
            return []
        fields = extra_fields(self.intent.value, self.forms)
        return [f for f in fields if FORM + f.name not in self.slots]


def split_turns(messages: Sequence[Message]) -> list[Turn]:
    """The conversation cut at each user message; system messages are left out."""
    turns: list[Turn] = []
    pending: dict[str, ToolCall] = {}
    for message in messages:
        if message.role == "user":
            turns.append(Turn(user=message.content))
            pending = {}
            continue
        if not turns:
            continue
        turn = turns[-1]
        if message.role == "assistant":
            if message.tool_calls:
                turn.batches.append(tuple(message.tool_calls))
                pending = {call.id: call for call in message.tool_calls}
                turn.final = None
            elif turn.final is not None and _NOTE.match(message.content or ""):
                turn.notes.append(message.content)
            else:
                turn.final = message.content
        elif message.role == "tool":
            call = pending.get(message.tool_call_id or "")
            if call is None:
                call = ToolCall(
                    id=message.tool_call_id or "",
                    name=message.name or "",
                    arguments={},
                    raw_arguments="{}",
                )
            turn.observations.append(Observation(call, parse_result(message.content)))
    return turns


# A line the platform adds to the thread after a click: "(Oliver Smith: Cancelled …)".
_NOTE = re.compile(r"^\s*[(（]")
_SUMMARY = re.compile(r'"summary"\s*:\s*"((?:[^"\\]|\\.)*)"?')
_TRUNCATED = re.compile(r"…\s*\[truncated[^\]]*\]?\s*$")
_MESSAGE = re.compile(r'"message"\s*:\s*"((?:[^"\\]|\\.)*)"')
_OK = re.compile(r'"ok"\s*:\s*(true|false)')


def parse_result(content: str) -> dict[str, Any]:
    """A tool result as a dict, however it arrived: JSON, JSON inside other text, or cut short."""
    text = content.strip()
    for candidate in (text, text[text.find("{") : text.rfind("}") + 1] if "{" in text else ""):
        if not candidate:
            continue
        try:
            value = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    result: dict[str, Any] = {}
    if ok := _OK.search(text):
        result["ok"] = ok.group(1) == "true"
    for key, pattern in (("summary", _SUMMARY), ("message", _MESSAGE)):
        if found := pattern.search(text):
            value = _TRUNCATED.sub("", found.group(1)).rstrip("\\")
            try:
                result[key] = json.loads(f'"{value}"')
            except ValueError:
                result[key] = value
    if not result:
        return {"ok": False, "message": text[:500]}
    result["_raw"] = text[:4000]
    return result


def result_ids(result: dict[str, Any]) -> list[str]:
    """The request ids a list result names, in order: from its first list of objects, else anywhere."""
    for value in result.values():
        if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            ids: list[str] = []
            for item in value:
                for key in ("request_id", "id"):
                    found = item.get(key)
                    if isinstance(found, str) and request_ids(found):
                        if found.upper() not in ids:
                            ids.append(found.upper())
                        break
            return ids
    return request_ids(json.dumps(result, ensure_ascii=False))


def result_items(result: dict[str, Any]) -> list[dict[str, Any]]:
    """The first list of objects in a result (the requests of a list tool)."""
    for value in result.values():
        if isinstance(value, list) and all(isinstance(v, dict) for v in value):
            return value
    return []


_FIELD_TO_SLOT = {"start": "dates", "end": "dates", "days": "dates", "spent_on": "spent_on"}


def _awaiting_after(task: Task, turn: Turn) -> str | None:
    """The slot the planner's question at the end of `turn` asked for."""
    for observation in reversed(turn.observations):
        if not observation.ok:
            errors = field_errors(observation.result)
            if errors:
                name = errors[0][0]
                return _FIELD_TO_SLOT.get(name, name)
            return None
    if task.intent in _PICKS_A_REQUEST and "request_id" not in task.slots and task.choices:
        return "request_id"
    gaps = missing(task)
    return gaps[0] if gaps else None


def named_requests(results: Sequence[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each request a tool described (a list's rows, request_details' request), by id:
    (its requester's name, what it is) — how a person knows it, not 'R-…'."""
    known: dict[str, tuple[str, str]] = {}
    for result in results:
        items = list(result_items(result))
        if isinstance(result.get("request"), dict):
            items.append(result["request"])
        for item in items:
            request_id = str(item.get("request_id") or "").upper()
            if request_id and isinstance(item.get("what"), str) and item["what"]:
                known[request_id] = (str(item.get("requester") or ""), item["what"])
    return known


def field_errors(result: dict[str, Any]) -> list[tuple[str, str]]:
    """A failed result's field errors as (field, message) pairs, whatever their shape."""
    raw = result.get("field_errors")
    pairs: list[tuple[str, str]] = []
    if isinstance(raw, dict):
        for key, value in raw.items():
            text = "; ".join(map(str, value)) if isinstance(value, list) else str(value)
            pairs.append((str(key), text))
    elif isinstance(raw, list):
        for item in raw:
            if isinstance(item, dict):
                name = item.get("field") or item.get("name") or item.get("loc") or ""
                if isinstance(name, list):
                    name = ".".join(map(str, name))
                text = item.get("message") or item.get("msg") or item.get("error") or ""
                pairs.append((str(name), str(text)))
            else:
                pairs.append(("", str(item)))
    return pairs


def next_page(reading: Reading, before: Turn) -> Reading:
    """'more' just after a page of the whole organisation's who-is-out asks its next page."""
    if reading.intent is not None or not MORE.search(reading.text):
        return reading
    page = next((o for o in reversed(before.observations) if o.call.name == "who_is_out"), None)
    if page is None or not isinstance(page.result.get("next_page"), int):
        return reading
    slots = {**page.call.arguments, "page": page.result["next_page"]}
    return Reading(Intent.WHO_IS_OUT, slots, reading.text)


def current_task(turns: Sequence[Turn], ctx: Context) -> Task:
    """The task of the newest turn, with the facts of the open turns before it folded in."""
    start = len(turns) - 1
    while start > 0:
        previous = turns[start - 1]
        if not previous.asked or previous.proposed:
            break
        start -= 1
    task = Task(intent=None)
    task.forms = read_forms([o.result for t in turns for o in t.observations])
    task.known = named_requests([o.result for t in turns for o in t.observations])
    for position in range(start, len(turns)):
        turn = turns[position]
        reading = read_message(turn.user, ctx, task.awaiting)
        if position == len(turns) - 1 and position > 0 and task.intent is None:
            reading = next_page(reading, turns[position - 1])
            reading = follow_up(reading, [c.name for c in turns[position - 1].calls], ctx)
        _fold(task, reading)
        _check_answers(task, reading, ctx)
        if position < len(turns) - 1:
            ids = [i for o in turn.observations if not o.is_proposal for i in result_ids(o.result)]
            if ids and task.intent in _PICKS_A_REQUEST and "request_id" not in task.slots:
                if len(ids) == 1:
                    task.slots["request_id"] = ids[0]
                else:
                    task.choices = ids
            task.awaiting = _awaiting_after(task, turn) if task.intent in TASKS else None
    choice = task.slots.pop("choice", None)
    if choice is not None and task.choices and "request_id" not in task.slots:
        index = choice - 1 if choice > 0 else len(task.choices) - 1
        if 0 <= index < len(task.choices):
            task.slots["request_id"] = task.choices[index]
    return task


_DATE_SLOTS = ("start", "end", "days", "start_half", "end_half", "listed", "split")
_PICKS_A_REQUEST = frozenset(
    {Intent.APPROVE, Intent.REJECT, Intent.WITHDRAW, Intent.REMIND, Intent.COUNTER}
)


def _fold(task: Task, reading: Reading) -> None:
    """Merge one message into the task: a new intent starts over, facts add to the open task."""
    new = reading.intent
    if (new is not None and new != task.intent) or task.intent not in TASKS:
        task.intent = new
        task.slots = {}
        task.choices = []
        task.awaiting = None
        task.readings = []
    task.readings.append(reading)
    slots = dict(reading.slots)
    if "start" in slots:
        # A new first day replaces the dates; a count of days given before still applies.
        keep_days = "end" not in slots and "days" not in slots
        for key in _DATE_SLOTS:
            if not (key == "days" and keep_days):
                task.slots.pop(key, None)
    elif "days" in slots:
        for key in ("end", "days", "end_half"):
            task.slots.pop(key, None)
    task.slots.update(slots)


def _check_answers(task: Task, reading: Reading, ctx: Context) -> None:
    """An answer to a form field becomes its value if it fits; if not, it is noted, not kept."""
    task.misfit = None  # only the newest message's answer is reported
    answers = {k: str(task.slots.pop(k)) for k in reading.slots if k.startswith(FORM)}
    fields = {FORM + f.name: f for f in task.form_gaps()}
    for key, answer in answers.items():
        if key not in fields:
            continue
        try:
            task.slots[key] = form_value(fields[key], answer, ctx.today)
        except FieldProblem as problem:
            task.misfit = (fields[key], answer, problem)


def missing(task: Task) -> list[str]:
    """The facts the task still needs from the user, most important first."""
    slots = task.slots
    if task.intent is Intent.LEAVE:
        gaps = [] if slots.get("leave_type") else ["leave_type"]
        if "start" not in slots:
            gaps.append("dates")
        elif slots.get("listed") and "split" not in slots:
            gaps.append("days_or_range")
        return gaps
    if task.intent is Intent.EXPENSE:
        gaps = []
        if "amount" not in slots:
            gaps.append("amount")
        elif "currency" not in slots:
            gaps.append("currency")
        if "spent_on" not in slots:
            gaps.append("spent_on")
        if "description" not in slots and "category" not in slots:
            gaps.append("description")
        return gaps + [FORM + f.name for f in task.form_gaps()]
    if task.intent is Intent.TRIP:
        order = (
            ("destination", "destination"),
            ("start", "trip_dates"),
            ("purpose", "purpose"),
            ("estimated_cost", "estimated_cost"),
        )
        gaps = [name for key, name in order if key not in slots]
        return gaps + [FORM + f.name for f in task.form_gaps()]
    if task.intent is Intent.WORKING_DAYS and "start" not in slots:
        return ["dates"]
    if task.intent is Intent.REJECT and "request_id" in slots and not slots.get("comment"):
        return ["comment"]
    if task.intent is Intent.COUNTER and "counter_start" not in slots:
        return ["counter_dates"]
    return []
