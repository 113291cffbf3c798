"""Counter-offer clicks, once for every surface: open the form, suggest dates, accept, decline.

The approver's [Suggest other dates] opens a small form (a Slack modal, a Feishu form card, a
terminal prompt); its submit is the approver's confirmation and goes to the engine, which
checks the dates by the leave rules. The requester's [Accept] / [Decline] go to the engine
too. A refusal is the engine's sentence and nothing changes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from typing import TYPE_CHECKING, Any

from bot.presentation.card_views import CounterForm, Drawn, RejectForm, StepLive
from bot.presentation.counter import counter_card, suggested
from bot.presentation.forms import counter_end
from bot.wording import name_of, say
from workflow.config import Person
from workflow.counter import Dates
from workflow.engine import Engine
from workflow.errors import FieldProblem, ValidationFailed, WorkflowError

if TYPE_CHECKING:
    from bot.conversation.interactions import Answer


def _answer(*args: Any) -> Answer:
    from bot.conversation.interactions import Answer  # it imports this module

    return Answer(*args)


def parse_day(value: object, field: str) -> date:
    """A date from a form (YYYY-MM-DD); ValidationFailed naming the field otherwise."""
    try:
        return date.fromisoformat(str(value or "").strip())
    except ValueError:
        raise ValidationFailed(
            say("field.problem.pick_date", "en"),
            zh=say("field.problem.pick_date", "zh"),
            problems={field: FieldProblem("pick_date", "is not a date (YYYY-MM-DD)")},
        ) from None


class CounterClicks:
    """The counter-offer clicks of `Interactions`, which supplies the engine and refusals."""

    engine: Engine
    _refused: Callable[..., Answer]
    open_reject: Callable[..., Awaitable[Answer]]

    async def open_counter(self, person: Person, request_id: str, step: int) -> Answer:
        """The form asking for other dates, if the step is still open and the approver's."""
        asked = await self.open_reject(person, request_id, step)  # the same "still yours?" check
        if not isinstance(asked.card, RejectForm):
            return asked  # refused, or the closed card of a decided step
        title = say("form.counter.title", person.locale)
        return _answer(True, title, "info", CounterForm(asked.card.request, step))

    async def suggest_dates(
        self,
        person: Person,
        request_id: str,
        step: int,
        start: object,
        end: object,
        note: str | None = None,
    ) -> Answer:
        """Send the requester other dates; the approver's card stays live (they may still decide)."""
        engine = self.engine
        locale = person.locale
        try:
            first = parse_day(start, "start")
            last = parse_day(end or start, "end")
            if last < first:  # the last day left as asked, the first moved past it?
                last = counter_end(first, last, await engine.get_request(request_id, person.id))
            req = await engine.counter(person.id, request_id, step, Dates(first, last), note)
            view = await engine.request_view(request_id, person.id)
        except WorkflowError as e:
            return self._refused(e, locale)
        assert req.counter is not None  # just recorded
        who = name_of(engine, req.requester)
        text = say("answer.counter.sent", locale, dates=suggested(req.counter, locale), who=who)
        return _answer(True, text, "success", StepLive(view))

    async def answer_counter(self, person: Person, request_id: str, accept: bool) -> Answer:
        """The requester's Accept (the request takes the dates) or Decline; the card shows which."""
        engine = self.engine
        try:
            req = await engine.answer_counter(person.id, request_id, accept)
            view = await engine.request_view(request_id, person.id)
        except WorkflowError as e:
            return self._refused(e, person.locale)
        card = counter_card(req, engine, person.locale, view.balance_after)
        return _answer(True, card.body[-1].text, "success", Drawn(card))
