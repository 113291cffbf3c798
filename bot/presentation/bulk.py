"""[Approve selected]: the ticks an approver's digest and Home tab show, one per open item."""

from __future__ import annotations

from collections.abc import Sequence

from agent.tools.describe import what
from bot.conversation.buttons import step_value
from bot.presentation.model import Action, ActionKind, Checklist, Dialog
from bot.wording import name_of, say, whose
from workflow.engine import Engine
from workflow.models import Request


def approve_selected(requests: Sequence[Request], engine: Engine, locale: str) -> Checklist | None:
    """A tick per request with an open step (who and what), and [Approve selected] with one confirm."""
    options = tuple(
        (
            step_value(r.id, r.current_step),
            whose(name_of(engine, r.requester), what(r, engine.config, locale), locale),
        )
        for r in requests
        if r.open_step() is not None and r.current_step is not None
    )
    if not options:
        return None
    dialog = Dialog(
        title=say("dialog.bulk.title", locale),
        text=say("dialog.bulk.text", locale),
        confirm=say("button.approve", locale),
        deny=say("button.cancel", locale),
    )
    label = say("button.approve_selected", locale)
    return Checklist(options, Action(ActionKind.BULK_APPROVE, label, "primary", dialog=dialog))
