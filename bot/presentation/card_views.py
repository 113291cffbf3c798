"""The conversation core's card views as presentation cards: which card each view is, decided once.

Every platform serializes the `Card` this returns (Block Kit, Feishu card JSON, text); only a
reject form is a platform's own (a modal on Slack, a card with an input on Feishu).
"""

from __future__ import annotations

from bot.conversation.views import (
    CardView,
    Closed,
    CounterForm,
    Drawn,
    RejectForm,
    StepClosed,
    StepLive,
)
from bot.presentation import confirm, requests
from bot.presentation.model import Card, Reader
from workflow.engine import Engine


def card_of(view: CardView, engine: Engine, reader: Reader | str) -> Card:
    """The card a view shows its reader.

    Raises:
        ValueError: a reject form (each platform asks for the reason its own way).
    """
    match view:
        case Closed():
            return confirm.confirm_card_closed(
                view.summary, view.outcome, reader, ok=view.ok, replaced=view.replaced
            )
        case StepClosed():
            return requests.approval_card_closed(view.request, engine, reader, view.step)
        case StepLive():
            reminder = (view.reminder_note or "") if view.reminder else None
            return requests.approval_card(view.view, engine, reader, reminder=reminder)
        case Drawn():
            return view.card
        case RejectForm() | CounterForm():
            raise ValueError("a form is each platform's own: a modal, or a card with inputs")
