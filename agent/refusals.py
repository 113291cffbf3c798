"""A workflow refusal as a person reads it: names and readable dates, never ids or ISO dates.

The engine's own message (`str(e)`) stays as it is for the admin CLI and the logs; what the
person sees in a chat, a step line or a form comes from here, in their language.
"""

from __future__ import annotations

from agent.catalogue import CATALOGUE, say
from agent.i18n import fmt_range
from workflow.errors import OverlappingLeave, WorkflowError
from workflow.models import LeaveEntry


def refusal_text(e: WorkflowError, locale: str) -> str:
    """The sentence that says what was refused and what to do instead."""
    leave = e.details.get("leave")
    if isinstance(e, OverlappingLeave) and isinstance(leave, LeaveEntry):
        dates = fmt_range(leave.start, leave.end, leave.start_half, leave.end_half, locale)
        code = "refusal.overlap.approved" if leave.status.value == "approved" else "refusal.overlap"
        return say(code, locale, dates=dates)
    return e.localized(locale)


def refusal_step(e: WorkflowError, locale: str) -> str:
    """The short line under a refused step: the answer below says the whole sentence once."""
    code = f"step.refused.{e.code}"
    return say(code if code in CATALOGUE else "step.refused", locale)
