"""Reading a counter-offer: an approver answers a request with other dates for it.

"approve it if she moves it to Tue–Thu", "not those days — how about Tue–Thu?", "让她改到周二到
周四再批". Something that only an approver says: approval on condition of other days, or other
days suggested to a named colleague. A requester correcting their own draft ("改成周三周四",
"make it Thursday") reads as a correction, never as this.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from agent.dates import find_dates, find_range, weekday_alone
from agent.planner._slots import rx

_MOVE_EN = (
    r"(?:move[sd]?|moving|shift(?:s|ed)?|change[sd]?|take[sn]?|took|switch(?:es|ed)?"
    r"|swap(?:s|ped)?|push(?:es|ed)?|make[s]?|made|does|did)"
)
# Counter-offers whether or not the days are said yet (then they are asked for).
_SURE_EN = rx(
    rf"\b(?:approve|ok|okay|fine|sign\s+off|accept|agree|happy)\b.{{0,60}}\bif\s+(?:he|she|they|\w+)\s+{_MOVE_EN}\b"
    rf"|\bif\s+(?:he|she|they)\s+{_MOVE_EN}\s+(?:it|them|the\s+(?:dates|days|leave))\b"
    r"|\bcounter[-\s]?(?:offer|propos\w*|suggest\w*)"
    r"|\b(?:suggest|propose|offer)\s+(?:some\s+)?(?:other|different)\s+(?:dates|days)\b"
)
# Counter-offers only with days in the message: other days instead of the ones asked for.
_WITH_DAYS_EN = rx(
    r"\b(?:suggest|propose|offer)\b.{0,60}\binstead\b"
    r"|\b(?:approve|ok|okay|fine|sign\s+off|accept|agree)\b.{0,60}\binstead\b"
    r"|\bnot\s+(?:those|these|the)\s+(?:dates|days)\b"
    r"|\b(?:suggest|propose)\s+(?:\S+\s+){0,6}?to\s+(?:him|her|them|(?!me\b|you\b)[a-z]+)\b"
)
_MOVE_ZH = r"(?:改到|改成|改为|改在|改|换到|换成|换|挪到|挪|调到|调成|调整到|推到|推迟到|移到)"
_THEN_APPROVE_ZH = re.compile(
    rf"{_MOVE_ZH}.{{0,24}}?(?:再批|就批|才批|可以批|能批|再同意|就同意|才同意|再审批|就批准|可以批准|我就批)"
)
_TELL_ZH = re.compile(
    rf"(?:让|叫|请|跟|建议|要|和)(?P<who>他|她|ta|TA|[\u4e00-\u9fff]{{2,3}}?)(?:说)?(?:把.{{0,8}}?)?{_MOVE_ZH}"
)
_NOT_THESE_ZH = re.compile(r"(?:这|那)(?:两|几|些)天不行|不是这(?:两|几|些)天|建议.{0,8}改期")
_OWN = re.compile(r"我|你|自己|咱|们")


def is_counter(text: str, today: date) -> bool:
    """Whether the message suggests other days for a request the speaker decides."""
    if _SURE_EN.search(text):
        return True
    days = bool(find_dates(text, today))
    if not days:
        return False
    if _WITH_DAYS_EN.search(text) or _THEN_APPROVE_ZH.search(text) or _NOT_THESE_ZH.search(text):
        return True
    told = _TELL_ZH.search(text)
    return told is not None and not _OWN.search(told.group("who"))


def counter_slots(text: str, today: date) -> dict[str, Any]:
    """The suggested days as the tool takes them: a weekday as written, other dates as ISO.

    A weekday alone ("Tue", "周二") is the tool's to place in the request's own week, which
    only the request knows; "Dec 16" or "下周三" is a date already.
    """
    rng = find_range(text, today)
    if rng is None:
        return {}
    inside = [m for m in find_dates(text, today) if rng.span[0] <= m.span[0] < rng.span[1]]
    if not inside:
        return {}
    first, last = inside[0], inside[-1]
    start = first.text.strip() if weekday_alone(first.text) else rng.start.isoformat()
    slots: dict[str, Any] = {"counter_start": start}
    if last is not first and weekday_alone(last.text) and weekday_alone(first.text):
        slots["counter_end"] = last.text.strip()  # placed after the first day, by the tool
    elif rng.end != rng.start:
        slots["counter_end"] = rng.end.isoformat()
    return slots
