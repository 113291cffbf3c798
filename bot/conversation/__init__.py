"""The conversation core: what every click does, what it answers, and which cards change.

Slack, Feishu, the terminal chat and the sandbox only parse their input into calls on
`Interactions` and render the `CardView`s it returns; the card registry and lifecycle bring
every card posted about a request to the request's current state after each transition.
"""

from bot.conversation.interactions import Answer, Interactions
from bot.conversation.lifecycle import CardLifecycle, state_line
from bot.conversation.registry import CardRef, CardRegistry, Role
from bot.presentation.card_views import CardView, Closed, Drawn, RejectForm, StepClosed, StepLive

__all__ = [
    "Answer",
    "CardLifecycle",
    "CardRef",
    "CardRegistry",
    "CardView",
    "Closed",
    "Drawn",
    "Interactions",
    "RejectForm",
    "Role",
    "StepClosed",
    "StepLive",
    "state_line",
]
