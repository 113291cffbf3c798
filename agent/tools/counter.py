"""The counter-offer tool: an approver suggests other dates for a leave they hold, by chat.

Like every propose_* tool it changes nothing: the engine checks the suggestion as if making it
(the approver holds the open step, the request is still undecided, the dates pass the leave
rules) and stores it for the approver's click; only then does the requester get the card.
"""

from __future__ import annotations

from datetime import date, timedelta

from pydantic import Field

from agent.catalogue import say
from agent.dates import resolve_date, weekday_alone
from agent.i18n import fmt_days, fmt_range
from agent.tools.base import Observation, Tool, ToolArgs, ToolContext
from agent.tools.dates_arg import one_date
from agent.tools.describe import what_in_sentence
from agent.tools.drafts import live_draft
from agent.tools.propose import awaiting_click
from agent.tools.read import REQUEST_ID
from workflow.counter import Dates
from workflow.models import PendingKind, Request


class ProposeCounterArgs(ToolArgs):
    request_id: str = REQUEST_ID
    # a weekday alone is that day in the request's own week ("move it to Tue–Thu")
    start: str = Field(max_length=60)
    end: str | None = Field(default=None, max_length=60, description="Last day, inclusive.")
    comment: str | None = Field(default=None, max_length=500)


def _day(text: str, ctx: ToolContext, field: str, anchor: date) -> date:
    """A suggested day: a weekday alone ("Tue", "周二") is the one on or after `anchor`."""
    if weekday_alone(text):
        return resolve_date(text, anchor)
    return one_date(text, ctx, field)


def suggested_dates(ctx: ToolContext, req: Request, start: str, end: str | None) -> Dates:
    """The dates an approver names, read in the request's week ("move it to Tue–Thu")."""
    asked = req.leave_start() if req.is_leave else ctx.today  # the engine refuses the rest
    monday = asked - timedelta(days=asked.weekday())
    first = _day(start, ctx, "start", max(monday, ctx.today))
    last = _day(end, ctx, "end", first) if end else first
    return Dates(first, last)


async def propose_counter(ctx: ToolContext, args: ProposeCounterArgs) -> Observation:
    engine, loc = ctx.engine, ctx.locale
    request_id = args.request_id.upper()
    req = await engine.get_request(request_id, ctx.actor.id)
    dates = suggested_dates(ctx, req, args.start, args.end)
    replaced = await live_draft(ctx, PendingKind.COUNTER, request_id)
    proposal = await engine.prepare_counter(ctx.actor.id, request_id, dates, args.comment)
    req = proposal.request
    who = engine.person(req.requester).name
    shown = fmt_range(dates.start, dates.end, False, False, loc)
    days = proposal.working_days
    summary = say(
        "propose.counter", loc, who=who, what=what_in_sentence(req, engine.config, loc), dates=shown
    )
    fields = {
        "requester": who,
        "start": dates.start.isoformat(),
        "end": dates.end.isoformat(),
        "working_days": days,
        "asked_start": req.fields.get("start"),
        "asked_end": req.fields.get("end"),
        "comment": args.comment,
    }
    if days:
        summary += say("propose.counter_days", loc, days=fmt_days(days, loc))
    return await awaiting_click(ctx, proposal, summary, fields, replaced)


COUNTER_TOOLS: list[Tool] = [
    Tool(
        "propose_counter",
        "Suggest other dates for a leave awaiting the user's approval, confirmed on a card.",
        ProposeCounterArgs,
        propose_counter,
        lambda a, loc: say("step.propose_counter", loc),
        writes=True,
    ),
]
