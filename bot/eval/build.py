"""Shorthands for writing phrasing scenarios compactly: one message, or a short conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from bot.eval.checks import (
    Check,
    answered,
    contains,
    flatten,
    helps,
    one_of,
    out_of_scope,
    proposes,
    refused,
    request_is,
    small_talk,
    who_is_out,
)
from bot.eval.spec import Decided, Scenario, Setup, Submitted, Turn

# Requests that exist before a conversation (today is Wednesday 2 December 2026).
ZS_ANNUAL = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
ZS_SICK = {"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-04", "reason": "发烧"}
LS_ANNUAL = {"leave_type": "annual", "start": "2026-12-17", "end": "2026-12-18"}
OL_ANNUAL = {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-16"}
PR_ANNUAL = {"leave_type": "annual", "start": "2026-12-21", "end": "2026-12-22"}


def _words(fields: dict[str, Any]) -> dict[str, Any]:
    """A reason or comment is the person's words: it must contain what is given, not equal it."""
    return {
        k: contains(v) if k in ("reason", "comment") and isinstance(v, str) else v
        for k, v in fields.items()
    }


def leave(**fields: Any) -> dict[str, Any]:
    """The fields of a leave draft as a proposal shows them (a reason: contains these words)."""
    return {"action": "submit", "process": "leave", **_words(fields)}


def decide(request: str, decision: str, **fields: Any) -> dict[str, Any]:
    """A decision card on the setup request `request` (a comment: contains these words)."""
    return {"action": "decide", "request": request, "decision": decision, **_words(fields)}


def counter(request: str, start: str, end: str, **fields: Any) -> dict[str, Any]:
    """A counter-offer card on the setup request `request`: other dates for its requester."""
    return {"action": "counter", "request": request, "start": start, "end": end, **_words(fields)}


def say(text: str, *checks: Check | Sequence[Check]) -> Turn:
    """One message of the person and what must hold right after it."""
    return Turn(text, flatten(*checks))


def one(
    name: str,
    person: str,
    lang: Literal["en", "zh"],
    text: str,
    *checks: Check | Sequence[Check],
    about: str,
    setup: tuple[Setup, ...] = (),
    end: tuple[Check, ...] = (),
    suite: str,
    source: str = "issue 14",
) -> Scenario:
    """A scenario of one message."""
    turn = say(text, *checks)
    return talk(
        name, person, lang, turn, about=about, setup=setup, end=end, suite=suite, source=source
    )


def talk(
    name: str,
    person: str,
    lang: Literal["en", "zh"],
    *turns: Turn,
    about: str,
    setup: tuple[Setup, ...] = (),
    end: tuple[Check, ...] = (),
    suite: str,
    source: str = "issue 14",
) -> Scenario:
    """A scenario of several messages in one thread."""
    return Scenario(
        name=name,
        person=person,
        lang=lang,
        turns=turns,
        setup=setup,
        end=end,
        about=about,
        source=source,
        tags=(suite,),
    )


# --- the everyday asks (bot/eval/phrasings2.py, heldout2.py): one message of a known kind ---------

EMMA, WANGFANG = "Emma Clarke", "王芳"
LANG: dict[str, Literal["en", "zh"]] = {
    "oliver": "en",
    "priya": "en",
    "emma": "en",
    "chenjing": "en",
    "zhangsan": "zh",
    "lisi": "zh",
    "wangfang": "zh",
    "liuyang": "zh",
}
# Each requester's pending request in these scenarios ("r1"), and who approves it.
OWN = {"oliver": OL_ANNUAL, "priya": PR_ANNUAL, "zhangsan": ZS_ANNUAL, "lisi": LS_ANNUAL}
APPROVER = {"oliver": EMMA, "priya": EMMA, "zhangsan": WANGFANG, "lisi": WANGFANG}
# The request waiting for each approver.
WAITING = {"emma": ("priya", PR_ANNUAL), "wangfang": ("zhangsan", ZS_ANNUAL)}
MINE = ("my_requests", "request_details")
# "This week" is its rest or all of it; a week may end on Friday or Sunday.
THIS_WEEK = (one_of("2026-11-30", "2026-12-02"), one_of("2026-12-04", "2026-12-06"))
NEXT_WEEK = ("2026-12-07", one_of("2026-12-11", "2026-12-13"))


def own(person: str, fields: dict[str, Any] | None = None) -> tuple[Setup, ...]:
    """`person`'s pending request r1 (their usual one unless `fields` are given)."""
    return (Submitted("r1", person, OWN[person] if fields is None else fields),)


def waiting(approver: str) -> tuple[Setup, ...]:
    """The request r1 waiting for `approver`'s decision."""
    requester, fields = WAITING[approver]
    return (Submitted("r1", requester, fields),)


def everyday(
    suite: str,
    kind: str,
    name: str,
    person: str,
    text: str,
    about: str,
    *,
    setup: tuple[Setup, ...] | None = None,
    start: Any = None,
    end: Any = None,
    scope: str | None = None,
) -> Scenario:
    """One everyday ask of `kind` and what must hold after it, in the person's language.

    mine (own requests read), balance, out (who is out from `start` to `end`), queue (the
    approvals waiting), withdraw / remind (a card for r1), helps, thanks, refused.
    """
    lang = LANG[person]
    checks: tuple[Check, ...]
    match kind:
        case "mine":
            checks = answered(lang, *MINE)
        case "balance":
            checks = answered(lang, "my_balances")
        case "out":
            checks = who_is_out(start, end, scope)
        case "queue":
            checks = answered(lang, "my_pending_approvals")
        case "withdraw":
            checks = (proposes(action="withdraw", request="r1"),)
        case "remind":
            checks = (proposes(action="remind", request="r1", to=APPROVER[person]),)
        case "helps":
            checks = helps(lang)
        case "thanks":
            checks = small_talk()
        case "refused":
            checks = out_of_scope(lang)
        case _:
            raise ValueError(f"no everyday ask of kind {kind!r}")
    if setup is not None:
        chosen = setup
    elif kind == "queue":
        chosen = waiting(person)
    elif kind in ("mine", "withdraw", "remind"):
        chosen = own(person)
    else:
        chosen = ()
    return one(name, person, lang, text, checks, about=about, setup=chosen, suite=suite)


# Issue 17's counter-offers: each approver's request to counter, and what must stay as asked.
COUNTERED = {
    "emma": Submitted("r1", "oliver", OL_ANNUAL),
    "wangfang": Submitted("r1", "zhangsan", ZS_ANNUAL),
}
STILL_ASKED = (request_is("r1", status="pending", start="2026-12-14"),)


def counter_one(
    name: str,
    person: Literal["emma", "wangfang"],
    text: str,
    start: str,
    end: str,
    *,
    about: str,
    suite: str,
) -> Scenario:
    """One message of an approver that must leave one counter-offer card on r1 with these dates.

    Nothing moves before the approver's click and the requester's Accept (`STILL_ASKED`).
    """
    return one(
        name,
        person,
        "en" if person == "emma" else "zh",
        text,
        proposes(**counter("r1", start, end)),
        setup=(COUNTERED[person],),
        end=STILL_ASKED,
        about=about,
        suite=suite,
        source="issue 17",
    )


def counter_too_late(name: str, text: str, *, about: str, suite: str) -> Scenario:
    """Emma counters Oliver's request after approving it: refused, the request as approved."""
    return one(
        name,
        "emma",
        "en",
        text,
        refused(),
        setup=(COUNTERED["emma"], Decided("r1", "emma")),
        end=(request_is("r1", status="approved", start="2026-12-14"),),
        about=about,
        suite=suite,
        source="issue 17",
    )
