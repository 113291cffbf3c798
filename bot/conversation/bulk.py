"""[Approve selected], once for every surface: each ticked item decided on its own, one summary.

A platform reads the ticked values (`<request_id>:<step>`, as `buttons.step_value` builds them)
and calls `approve_selected`; the click's confirm dialog was the one confirmation. Each item
goes through the engine alone, so one that is no longer the approver's is refused with its
sentence while the rest are approved; the answer says how many and why any were not.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from agent.refusals import refusal_text
from bot.conversation.buttons import parse_step_value
from bot.wording import request_named, say
from workflow.bulk import Item
from workflow.config import Person
from workflow.engine import Engine
from workflow.errors import WorkflowError

if TYPE_CHECKING:
    from bot.conversation.interactions import Answer


def items_of(values: Iterable[object]) -> list[Item]:
    """The ticked values as items; a value we never built is left out (a stale or forged tick)."""
    out = []
    for value in values:
        try:
            ref = parse_step_value(str(value))
        except ValueError:
            continue
        out.append(Item(ref.request_id, ref.step))
    return out


class BulkClicks:
    """The bulk-decision click of `Interactions`, which supplies the engine and refusals."""

    engine: Engine
    _refused: Callable[..., Answer]

    async def approve_selected(self, person: Person, values: Iterable[object]) -> Answer:
        """Approve each ticked item; one sentence: how many, and each refusal with its reason."""
        from bot.conversation.interactions import Answer  # it imports this module

        locale = person.locale
        try:
            outcomes = await self.engine.decide_many(person.id, items_of(values), "approve")
        except WorkflowError as e:  # nothing ticked, or too many: nothing was decided
            return self._refused(e, locale)
        done = sum(o.ok for o in outcomes)
        lines = [say("answer.bulk.summary", locale, done=done, total=len(outcomes))]
        for o in outcomes:
            if o.error is not None:
                named = await self._named(o.item.request_id, person.id, locale)
                why = refusal_text(o.error, locale)
                lines.append(say("answer.bulk.refused", locale, request=named, why=why))
        tone: Any = "success" if done == len(outcomes) else "info" if done else "error"
        return Answer(done > 0, "\n".join(lines), tone)

    async def _named(self, request_id: str, viewer: str, locale: str) -> str:
        """A refused item by whose it is, its type and dates; "a request" if it cannot be read."""
        try:
            req = await self.engine.get_request(request_id, viewer)
        except WorkflowError:  # unknown or not theirs to see: its id would tell them nothing
            return say("word.a_request", locale)
        return request_named(req, self.engine, locale, viewer)
