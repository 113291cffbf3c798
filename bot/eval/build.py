"""Shorthands for writing phrasing scenarios compactly: one message, or a short conversation."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from bot.eval.checks import Check, contains, flatten
from bot.eval.spec import Scenario, Setup, Turn

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
) -> Scenario:
    """A scenario of one message."""
    return talk(
        name, person, lang, say(text, *checks), about=about, setup=setup, end=end, suite=suite
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
        source="issue 14",
        tags=(suite,),
    )
