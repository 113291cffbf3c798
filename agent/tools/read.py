"""Read tools: what the agent may look up, always on behalf of the acting user only."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agent.catalogue import say
from agent.i18n import fmt_days, fmt_range
from agent.tools.base import Observation, Tool, ToolArgs, ToolContext, ok
from agent.tools.dates_arg import span
from agent.tools.describe import (
    accrual_note,
    carried_note,
    request_line,
    request_row,
    status_text,
    what,
)
from workflow.models import RequestStatus
from workflow.queries import OUT_PAGE

# Date arguments say which day they are, never how to write it: the system prompt says that
# once (YYYY-MM-DD or the user's own words, resolved by code in the user's timezone).
REQUEST_ID = Field(min_length=3, max_length=20)


class NoArgs(ToolArgs):
    pass


async def list_processes(ctx: ToolContext, _: NoArgs) -> Observation:
    config, loc = ctx.engine.config, ctx.locale
    processes = [
        {
            "process": p.key,
            "name": p.display_name(loc),
            # each field as the organisation file declares it (labels, choices, bounds), so a
            # reader can ask for it by its label and check a value before proposing
            "fields": [
                {**f.model_dump(mode="json", exclude_defaults=True), "required": f.required}
                for f in p.fields
            ],
        }
        for p in config.processes
    ]
    leave_types = [
        {"leave_type": lt.key, "name": lt.display_name(loc)} for lt in config.leave_types
    ]
    names = ", ".join(p["name"] for p in processes)
    return ok(
        say("read.processes", loc, names=names),
        processes=processes,
        leave_types=leave_types,
    )


class FindPeopleArgs(ToolArgs):
    query: str = Field(min_length=1, max_length=100, description="A name or email.")


async def find_people(ctx: ToolContext, args: FindPeopleArgs) -> Observation:
    found = ctx.engine.directory.search(args.query, limit=5)
    loc = ctx.locale  # the directory's own names for titles and teams in the user's language
    people = [
        {"id": p.id, "name": p.name, "title": p.title_in(loc), "team": p.team_in(loc)}
        for p in found
    ]
    names = ", ".join(p.name for p in found)
    if found:
        summary = say("read.found", ctx.locale, names=names)
    else:
        summary = say("read.found_nobody", ctx.locale, query=args.query)
    return ok(summary, people=people)


class BalancesArgs(ToolArgs):
    year: int | None = Field(default=None, ge=2000, le=2100, description="Omit for this year.")


async def my_balances(ctx: ToolContext, args: BalancesArgs) -> Observation:
    config, loc = ctx.engine.config, ctx.locale
    rows = []
    parts = []
    for b in await ctx.engine.balances(ctx.actor.id, args.year):
        name = config.leave_types_by_key[b.leave_type].display_name(loc)
        rows.append({**b.as_dict(), "name": name})
        if b.available is not None:
            parts.append(
                say("read.balance", loc, name=name, left=f"{b.available:g}", of=f"{b.allowance:g}")
                + carried_note(b, loc)
                + (say("read.balance_pending", loc, n=f"{b.reserved:g}") if b.reserved else "")
                + accrual_note(b, loc, carry=False)
            )
    year = rows[0]["year"] if rows else args.year
    summary = (
        say("read.balances", loc, year=year)
        + say("word.semicolon", loc).join(parts)
        + say("word.full_stop", loc)
    )
    return ok(summary, year=year, balances=rows)


class WorkingDaysArgs(ToolArgs):
    start: str = Field(max_length=60)
    end: str | None = Field(default=None, max_length=60, description="Last day, inclusive.")
    days: float | None = Field(
        default=None, gt=0, le=260, description="Working days from start, instead of end."
    )
    start_half: bool = Field(default=False, description="Afternoon only on the first day.")
    end_half: bool = Field(default=False, description="Morning only on the last day.")


async def working_days(ctx: ToolContext, args: WorkingDaysArgs) -> Observation:
    s = span(ctx, args.start, args.end, args.days, args.start_half, args.end_half)
    result = ctx.engine.working_days(ctx.actor.id, s.start, s.end, s.start_half, s.end_half)
    dates = fmt_range(s.start, s.end, s.start_half, s.end_half, ctx.locale)
    holidays = say("word.list_sep", ctx.locale).join(h["name"] for h in result["public_holidays"])
    extra = say("read.holidays", ctx.locale, holidays=holidays) if holidays else ""
    days = fmt_days(result["working_days"], ctx.locale)
    summary = say("read.working_days", ctx.locale, dates=dates, days=days, extra=extra)
    return ok(summary, **result, start_half=s.start_half, end_half=s.end_half)


MY_REQUESTS_LIMIT = 10  # the newest ones: the list says when there may be more


class MyRequestsArgs(ToolArgs):
    status: Literal["pending", "approved", "rejected", "withdrawn"] | None = None


async def my_requests(ctx: ToolContext, args: MyRequestsArgs) -> Observation:
    engine, loc = ctx.engine, ctx.locale
    status = RequestStatus(args.status) if args.status else None
    requests = await engine.my_requests(ctx.actor.id, status, limit=MY_REQUESTS_LIMIT)
    rows = [request_row(r, engine.config, engine.directory, loc) for r in requests]
    if not rows and status is None:
        return ok(say("read.no_requests", loc), requests=[])
    if not rows:
        return ok(say("read.no_requests.status", loc, status=status_text(status, loc)), requests=[])
    lines = [  # names and dates first; the id last, for the model to act on
        request_line(r, engine.config, engine.directory, loc) for r in requests
    ]
    count = len(rows)
    head = "read.requests.latest" if count == MY_REQUESTS_LIMIT else "read.requests"
    head = "read.requests.one" if count == 1 else head
    return ok(say(head, loc, count=count) + "\n".join(lines), requests=rows)


class RequestIdArgs(ToolArgs):
    request_id: str = REQUEST_ID


async def request_details(ctx: ToolContext, args: RequestIdArgs) -> Observation:
    engine, loc = ctx.engine, ctx.locale
    req = await engine.get_request(args.request_id.upper(), ctx.actor.id)
    d = engine.directory
    steps = [
        {
            "step": s.index + 1,
            "name": s.name_zh if loc == "zh" else s.name,
            "approver": d.get(s.approver).name,
            "assignee": d.get(s.assignee).name if s.assignee else None,
            "status": s.status.value,
            "decided_by": d.get(s.decided_by).name if s.decided_by else None,
            "comment": s.comment,
        }
        for s in req.steps
    ]
    history = [
        {
            "at": h.at.isoformat(timespec="minutes"),
            "by": d.get(h.actor).name if h.actor else "system",
            "action": h.action,
            "comment": h.comment,
            **({"reason": h.reason.model_dump(mode="json", exclude_none=True)} if h.reason else {}),
        }
        for h in req.history
    ]
    summary = request_line(req, engine.config, d, loc)
    return ok(
        summary,
        request={
            "request_id": req.id,
            "process": req.process,
            "requester": d.get(req.requester).name,
            "what": what(req, engine.config, loc),
            "status": req.status.value,
            "status_text": status_text(req.status, loc),
            "fields": req.fields,
            "working_days": req.derived.get("working_days"),
        },
        steps=steps,
        history=history,
    )


async def my_pending_approvals(ctx: ToolContext, _: NoArgs) -> Observation:
    engine, loc = ctx.engine, ctx.locale
    mine = await engine.my_approvals(ctx.actor.id)
    rows = [request_row(r, engine.config, engine.directory, loc) for r in mine.requests]
    if not rows:
        return ok(say("read.no_approvals", loc), approvals=[])
    lines = [f"{r['request_id']} {r['requester']}: {r['what']}" for r in rows]
    if mine.total > len(rows):  # the oldest page only: say how many more wait
        lines.append(say("line.and_more", loc, n=mine.total - len(rows)))
    text = say("read.approvals", loc, count=mine.total) + "\n".join(lines)
    return ok(text, approvals=rows, total=mine.total)


class WhoIsOutArgs(ToolArgs):
    start: str = Field(max_length=60)
    end: str | None = Field(default=None, max_length=60, description="Omit for one day.")
    scope: Literal["team", "all"] = Field(default="team", description="Omit for the user's team.")
    page: int = Field(default=1, ge=1)


async def who_is_out(ctx: ToolContext, args: WhoIsOutArgs) -> Observation:
    s = span(ctx, args.start, args.end, None, False, False)
    engine, loc = ctx.engine, ctx.locale
    team = engine.directory.team_of(ctx.actor.id) if args.scope == "team" else None
    offset = (args.page - 1) * OUT_PAGE
    out = await engine.who_is_out(ctx.actor.id, s.start, s.end, team, offset=offset)
    rows = [o.as_dict() for o in out.entries]
    dates = fmt_range(s.start, s.end, False, False, loc)
    if not out.total:
        return ok(say("read.nobody_out", loc, dates=dates), out=[], total=0)
    if not rows:
        pages = -(-out.total // OUT_PAGE)
        summary = say("read.out.past", loc, dates=dates, total=f"{out.total:,}", pages=pages)
        return ok(summary, out=[], total=out.total)
    lines = [
        f"{o.name}: {fmt_range(o.start, o.end, o.start_half, o.end_half, loc)}"
        + (say("value.awaiting", loc) if o.tentative else "")
        for o in out.entries
    ]
    if len(rows) == out.total:  # everyone: a team, or an organisation with few out
        return ok(say("read.out", loc, dates=dates) + "\n".join(lines), out=rows, total=out.total)
    head = say(
        "read.out.page",
        loc,
        dates=dates,
        total=f"{out.total:,}",
        first=offset + 1,
        last=offset + len(rows),
    )
    summary, next_page = head + "\n".join(lines), None
    if out.next_offset is not None:
        count = min(OUT_PAGE, out.total - out.next_offset)
        summary += "\n" + say("read.out.rest", loc, count=count)
        next_page = args.page + 1
    # the lines only: with rows too, a page would pass the observation's 4,000 characters
    return ok(summary, total=out.total, page=args.page, next_page=next_page)


READ_TOOLS: list[Tool] = [
    Tool(
        "list_processes",
        "The request forms the user can fill in: processes, their fields and leave types.",
        NoArgs,
        list_processes,
        lambda a, loc: say("step.list_processes", loc),
    ),
    Tool(
        "find_people",
        "Find up to 5 colleagues by a name or email the user mentioned; never to list everyone.",
        FindPeopleArgs,
        find_people,
        lambda a, loc: say("step.find_people", loc, query=a.query),
    ),
    Tool(
        "my_balances",
        "The user's leave balances per leave type.",
        BalancesArgs,
        my_balances,
        lambda a, loc: say("step.my_balances", loc),
    ),
    Tool(
        "working_days",
        "Count the user's working days in a date range (weekends and public holidays excluded).",
        WorkingDaysArgs,
        working_days,
        lambda a, loc: say("step.working_days", loc),
    ),
    Tool(
        "my_requests",
        "The user's recent requests, their status and who they wait for.",
        MyRequestsArgs,
        my_requests,
        lambda a, loc: say("step.my_requests", loc),
    ),
    Tool(
        "request_details",
        "Steps and history of one request the user may see.",
        RequestIdArgs,
        request_details,
        lambda a, loc: say("step.request_details", loc),
    ),
    Tool(
        "my_pending_approvals",
        "Requests waiting for the user's decision.",
        NoArgs,
        my_pending_approvals,
        lambda a, loc: say("step.my_pending_approvals", loc),
    ),
    Tool(
        "who_is_out",
        "Who is on leave in a date range: names and dates only.",
        WhoIsOutArgs,
        who_is_out,
        lambda a, loc: say("step.who_is_out", loc),
    ),
]
