"""The draft under discussion in a thread, and follow-ups that correct it.

"annual leave this Friday" → card → "actually make it Thursday": the second message is not a
new request and not small talk, it changes one field of the draft on the card. The planner
reads the draft back from the thread (its own propose_leave call and the tool's answer), reads
what the message changes, and proposes a new draft with that field changed and the rest kept,
naming the old one in `replaces` so the engine cancels it in the same step.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from agent.dates import DateMention, find_dates, parse_days
from agent.planner._context import Context
from agent.planner._conversation import Task, Turn
from agent.planner._reading import Intent
from agent.planner._slots import leave_reason, leave_type, rx

__all__ = [
    "Draft",
    "apply_correction",
    "correction",
    "draft_under_discussion",
    "reads_as_correction",
]


@dataclass(frozen=True)
class Draft:
    """A leave draft shown on a card earlier in the thread."""

    pending_id: str
    request_id: str
    leave_type: str
    start: date
    end: date
    start_half: bool
    end_half: bool
    reason: str | None
    working_days: float | None
    status: str  # open | confirmed | cancelled
    turns_ago: int


_CANCELLED = re.compile(r"cancel|取消", re.IGNORECASE)


def draft_under_discussion(turns: Sequence[Turn]) -> Draft | None:
    """The newest leave draft of an earlier turn (at most three back), with what became of it."""
    earlier = list(turns[:-1])
    for back, turn in enumerate(reversed(earlier[-3:]), 1):
        drafts = [o for o in turn.observations if o.call.name == "propose_leave" and o.ok]
        if not drafts:
            continue
        observation = drafts[-1]
        result, arguments = observation.result, observation.call.arguments
        try:
            start = date.fromisoformat(str(result.get("start") or arguments.get("start")))
            end = date.fromisoformat(str(result.get("end") or arguments.get("end") or start))
        except ValueError:
            return None
        notes = [n for t in earlier[len(earlier) - back :] for n in t.notes]
        status = "open"
        if notes:
            status = "cancelled" if _CANCELLED.search(notes[-1]) else "confirmed"
        days = result.get("working_days")
        return Draft(
            pending_id=str(result.get("pending_id") or ""),
            request_id=str(result.get("request_id") or ""),
            leave_type=str(result.get("leave_type") or arguments.get("leave_type") or ""),
            start=start,
            end=end,
            start_half=bool(result.get("start_half", arguments.get("start_half"))),
            end_half=bool(result.get("end_half", arguments.get("end_half"))),
            reason=arguments.get("reason") or result.get("reason"),
            working_days=float(days) if isinstance(days, int | float) else None,
            status=status,
            turns_ago=back,
        )
    return None


# --- reading a correction ---------------------------------------------------------------------

_MARKER = rx(
    r"\b(?:actually|instead|make\s+(?:it|that|this)|change|changed|switch|move\s+it|sorry|i\s+meant|meant|no\s+wait|wait|oops|only|just|extend|shorten|rather|correction|scratch|hmm|not)\b"
    r"|改|换成|换到|换|不对|不是|只请|只到|只要|就行|就好|还是|再加|加一天|多请|延长|缩短|少请|挪到|全天|一整天"
)
# "X not Y", "是X不是Y", "不是Y，是X": the part after the negation is what is being replaced.
_NOT_PART = rx(
    r"\bnot\s+(?:on\s+)?(?:the\s+)?[\w ]+?(?=$|[,.;!?]|\s+but\b)|\brather\s+than\s+[\w ]+"
    r"|\b(?:drop|scratch|skip|without|minus)\s+(?:the\s+)?\w+"
    r"|不是[^，,。;；!！?？]*|[^，,。;；!！?？]*(?:不用了|不要了|不请了|不用请|去掉)"
)
_UNTIL = rx(
    r"\b(?:until|till|til|through|thru|up\s+to|extend(?:\s+it)?\s+(?:to|till|until))\s+(?:the\s+)?$"
    r"|(?:到|至|请到|只到|延长到|延到)\s*$"
)
_FROM = rx(r"\b(?:from|starting(?:\s+on)?|start(?:ing)?\s+on)\s+(?:the\s+)?$|从\s*$")
_NARROW = rx(r"\b(?:just|only)\b|只|就")
_WHOLE_WEEK = rx(r"\b(?:the\s+)?whole\s+week\b|\bfull\s+week\b|整周|一整周|一周都")
_FULL_DAY = rx(r"\b(?:full|whole|all)\s+day\b|全天|一整天|整天")
_AFTERNOON = rx(r"\bafternoon\b|\bpm\b|下午")
_MORNING = rx(r"\bmorning\b|\bam\b|上午")
_ONE_MORE = rx(
    r"\b(?:one\s+more|another|an\s+extra|extra|add\s+(?:a|one))\s+day\b|再加一天|多请一天|加一天|延长一天"
)
_ONE_LESS = rx(r"\bone\s+(?:day\s+)?(?:less|fewer)\b|少请一天|少一天|减一天")
_LEAVE_NOUNS = rx(r"\b(?:leave|day\s+off|days\s+off|time\s+off|pto)\b|请假|假")


# a day or a part of one: what a correction changes ("make it Thursday", "改成后天")
_DAY_WORD = rx(
    r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\b(?:today|tomorrow|tmrw|tmr)\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)\b|\bnext\s+week\b|\b(?:morning|afternoon)\b"
    r"|今天|明天|后天|大后天|周[一二三四五六日天]|星期[一二三四五六日天]|礼拜|[一二两三四五六七八九十\d]+天|上午|下午|号"
)


def reads_as_correction(text: str) -> bool:
    """Whether a message changes a draft ("actually make it Thursday", "不对，是后天")."""
    return bool(_MARKER.search(text)) and bool(_DAY_WORD.search(text))


def correction(
    text: str, intent_is_leave: bool, draft: Draft, ctx: Context
) -> dict[str, Any] | None:
    """The slots of the corrected draft, or None when the message does not change the draft.

    `text` is the message as the planner reads it (mended, normalized). A full new request
    ("annual leave next Tuesday") without a word of correction is a new request, not this.
    """
    marked = bool(_MARKER.search(text))
    if intent_is_leave and not marked and leave_type(text) and _LEAVE_NOUNS.search(text):
        return None
    if not marked and draft.turns_ago > 1:
        return None
    kept = _NOT_PART.sub(" ", text)
    fields: dict[str, Any] = {
        "leave_type": draft.leave_type,
        "start": draft.start,
        "end": draft.end,
        "start_half": draft.start_half,
        "end_half": draft.end_half,
    }
    changed = False
    if (kind := leave_type(kept)) and kind != draft.leave_type and kind in ctx.leave_types:
        fields["leave_type"], changed = kind, True
    dates = _dates(kept, draft, ctx.today)
    if dates:
        fields.update(dates)
        changed = True
    elif _ONE_MORE.search(kept) or _ONE_LESS.search(kept):
        base = draft.working_days or _weekdays(draft.start, draft.end)
        step = 1 if _ONE_MORE.search(kept) else -1
        if base + step > 0:
            fields.pop("end")
            fields["days"] = base + step
            fields["end_half"] = False
            changed = True
    elif _WHOLE_WEEK.search(kept):
        monday = draft.start - timedelta(days=draft.start.weekday())
        fields |= {"start": monday, "end": monday + timedelta(days=4)}
        fields |= {"start_half": False, "end_half": False}
        changed = True
    elif (days := parse_days(kept)) and days >= 1:
        fields.pop("end")
        fields |= {"days": days, "start_half": False, "end_half": False}
        changed = True
    halves = _halves(kept, fields)
    if halves is not None:
        fields.update(halves)
        changed = True
    reason = leave_reason(kept, ctx.today)
    if reason and reason != draft.reason and not _only_dates(reason, ctx.today):
        fields["reason"], changed = reason, True
    elif draft.reason:
        fields["reason"] = draft.reason
    if not changed:
        return None
    if fields.get("end") is None or "days" in fields:
        fields.pop("end", None)
    return fields


def apply_correction(task: Task, turns: Sequence[Turn], ctx: Context) -> None:
    """Turn the task into the corrected draft when the newest message corrects the last one."""
    if len(task.readings) != 1 or task.intent not in (None, Intent.LEAVE):
        return
    draft = draft_under_discussion(turns)
    if draft is None:
        return
    fields = correction(task.readings[-1].text, task.intent is Intent.LEAVE, draft, ctx)
    if fields is None:
        return
    task.intent = Intent.LEAVE
    if draft.status == "confirmed":
        task.slots = {"already_submitted": draft}
        return
    task.slots = fields
    if draft.status == "open" and draft.pending_id:
        task.slots["replaces"] = draft.pending_id


def _only_dates(reason: str, today: date) -> bool:
    return bool(find_dates(reason, today)) and len(reason) < 20


def _weekdays(start: date, end: date) -> float:
    return float(
        sum((start + timedelta(days=n)).weekday() < 5 for n in range((end - start).days + 1))
    )


def _anchored(mention: DateMention, draft: Draft, today: date) -> date:
    """A weekday or day of the month said alone means the one of the draft's week or month."""
    if not mention.floating:
        return mention.day
    if re.search(r"[A-Za-z]{3,}|周|星期|礼拜", mention.text) and not re.search(r"\d", mention.text):
        monday = draft.start - timedelta(days=draft.start.weekday())
        day = monday + timedelta(days=mention.day.weekday())
        return day if day >= today else mention.day
    again = find_dates(mention.text, draft.start)
    return again[0].day if again else mention.day


def _dates(text: str, draft: Draft, today: date) -> dict[str, Any]:
    """The day fields the message sets: a new end, a new start, a range, or one day."""
    mentions = find_dates(text, today)
    if not mentions:
        return {}
    days = [_anchored(m, draft, today) for m in mentions]
    first = mentions[0]
    before = text[: first.span[0]]
    length = draft.working_days or _weekdays(draft.start, draft.end)
    if len(mentions) >= 2:
        start, end = days[0], mentions[-1].last or days[-1]
        return {"start": start, "end": max(start, end)} | _half_of(mentions[0], mentions[-1])
    if first.last is not None and first.last != first.day:
        return {"start": days[0], "end": first.last} | _half_of(first, first)
    day = days[0]
    if _UNTIL.search(before):
        return {"end": max(day, draft.start), "end_half": first.half == "am"}
    if _FROM.search(before):
        if draft.start == draft.end:
            return {"start": day, "end": day}
        return {"start": day, "days": length, "end": None}
    single = draft.start == draft.end or _NARROW.search(text) or (parse_days(text) or 0) == 1
    if single:
        out: dict[str, Any] = {"start": day, "end": day}
        if first.half:
            out |= {"start_half": first.half == "pm", "end_half": first.half == "am"}
        return out
    return {"start": day, "days": length, "end": None}


def _half_of(first: DateMention, last: DateMention) -> dict[str, Any]:
    return {"start_half": first.half == "pm", "end_half": last.half == "am"}


def _halves(text: str, fields: dict[str, Any]) -> dict[str, Any] | None:
    """Half-day changes said without a date: 'just the afternoon', '上午就行', 'full day'."""
    if _FULL_DAY.search(text):
        return {"start_half": False, "end_half": False}
    single = fields.get("end") == fields.get("start") and "days" not in fields
    if not single:
        return None
    if _AFTERNOON.search(text):
        return {"start_half": True, "end_half": False}
    if _MORNING.search(text):
        return {"start_half": False, "end_half": True}
    return None
