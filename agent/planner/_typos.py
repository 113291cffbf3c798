"""Typos and chat shorthand, mended before a message is read ("anual lvae tmrw", "hw many", "年嫁").

Only words of the planner's own vocabulary are mended: an English word within one edit
(two for long words; a swap of neighbours counts as one) of a keyword becomes that keyword,
and a few shorthands and Chinese homophones are spelled out. Everything else is left as written,
so a reason or a name keeps the person's words.
"""

from __future__ import annotations

import re
from functools import lru_cache

__all__ = ["mend"]

# Words the rules look for; a near miss of one of them is taken for it.
_VOCABULARY = (
    "annual",
    "leave",
    "sick",
    "personal",
    "unpaid",
    "vacation",
    "holiday",
    "holidays",
    "balance",
    "remaining",
    "approve",
    "approved",
    "reject",
    "decline",
    "withdraw",
    "request",
    "requests",
    "tomorrow",
    "today",
    "yesterday",
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "afternoon",
    "morning",
    "december",
    "january",
    "february",
    "allowance",
    "actually",
    "instead",
    "appointment",
)
# Shorthand and misspellings too far from their word for the edit rule.
_SHORTHAND = {
    "hw": "how",
    "r": "are",
    "u": "you",
    "ur": "your",
    "hav": "have",
    "yr": "year",
    "pls": "please",
    "plz": "please",
    "lvae": "leave",
    "laeve": "leave",
    "leav": "leave",
    "lv": "leave",
    "sik": "sick",
    "sickday": "sick day",
    "thurs": "thursday",
    "tues": "tuesday",
    "wknd": "weekend",
    "whats": "what's",
    "dont": "don't",
    "cant": "can't",
    "im": "i'm",
    "ive": "i've",
    "annnual": "annual",
}
# Chinese homophones typed by pinyin input: 假 (jià) as 嫁/价/驾/架.
_ZH = (
    (re.compile(r"(年|病|事|请|休|调休|婚|产)[嫁价驾架]"), r"\1假"),
    (re.compile(r"年休(?!假)"), "年休假"),
    (re.compile(r"病休"), "病假"),
)
_WORD = re.compile(r"(?<![\w'-])[A-Za-z]+(?![\w-])")
# Real words one edit from a keyword, which must stay as they are.
_KEEP = frozenset(
    {
        "leaves",
        "lease",
        "leap",
        "lead",
        "least",
        "sack",
        "suck",
        "sock",
        "silk",
        "sickle",
        "todays",
        "approves",
        "rejects",
        "requested",
        "annul",
        "holiday's",
        "moaning",
        "mourning",
        "personnel",
        "persona",
        "instance",
        "actual",
        "balanced",
        "balances",
        "declined",
        "requester",
        "withdrawn",
        "approval",
        "approvals",
        "approver",
        "approvers",
        "approving",
        "rejecting",
        "requesting",
        "holidaying",
    }
)


def _distance(a: str, b: str, limit: int) -> int:
    """Edit distance with adjacent swaps (optimal string alignment), cut off above `limit`."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    previous2: list[int] | None = None
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cost = 0 if ca == cb else 1
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if previous2 is not None and i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                row[j] = min(row[j], previous2[j - 2] + 1)
        if min(row) > limit:
            return limit + 1
        previous2, previous = previous, row
    return previous[-1]


@lru_cache(maxsize=4096)
def _mend_word(word: str) -> str:
    lower = word.lower()
    if lower in _SHORTHAND:
        return _SHORTHAND[lower]
    if len(lower) < 4 or lower in _VOCABULARY or lower in _KEEP:
        return word
    limit = 2 if len(lower) >= 8 else 1
    best, best_distance = None, limit + 1
    for keyword in _VOCABULARY:
        if keyword[0] != lower[0] and len(lower) < 6:
            continue  # short words: the first letter is rarely the typo
        if lower.startswith(keyword[:-1]) or keyword.startswith(lower):
            continue  # an inflection ("rejected", "approver"), not a typo
        d = _distance(lower, keyword, limit)
        if d < best_distance:
            best, best_distance = keyword, d
    return best if best is not None else word


def mend(text: str) -> str:
    """`text` with typos of the planner's keywords and common shorthand spelled out."""
    for pattern, replacement in _ZH:
        text = pattern.sub(replacement, text)
    return _WORD.sub(lambda m: _mend_word(m.group(0)), text)
