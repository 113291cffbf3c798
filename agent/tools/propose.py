"""Proposal tools: each validates like the engine, stores a pending action, and waits for a click.

None of them changes state. The confirm card goes to the one person allowed to click it.
"""

from __future__ import annotations

from typing import Any, Literal
from zoneinfo import ZoneInfo

from pydantic import Field

from agent.catalogue import say
from agent.i18n import fmt_date
from agent.tools.base import (
    Observation,
    ProposalInfo,
    Tool,
    ToolArgs,
    ToolContext,
    ok,
    org_schema,
)
from agent.tools.dates_arg import span
from agent.tools.describe import half_day, what_in_sentence
from agent.tools.drafts import live_draft, live_pending, remember, unchanged_draft
from agent.tools.read import REQUEST_ID
from workflow.engine import Proposal
from workflow.models import PendingKind, Request


def _what(ctx: ToolContext, req: Request) -> str:
    """The request as its proposal's sentence names it, in the actor's language."""
    return what_in_sentence(req, ctx.engine.config, ctx.locale)


async def awaiting_click(
    ctx: ToolContext,
    proposal: Proposal,
    summary: str,
    fields: dict[str, Any],
    replaced: str | None = None,
) -> Observation:
    """The observation of a stored proposal, now the thread's live draft in its slot."""
    replaced = await remember(ctx, proposal, replaced)
    engine = ctx.engine
    confirm_by = engine.directory.get(proposal.pending.actor).name
    info = ProposalInfo(
        pending_id=proposal.pending.id,
        kind=proposal.pending.kind.value,
        request_id=proposal.request.id,
        confirm_by=confirm_by,
        fields=fields,
        summary=summary,
        replaces=replaced,
        actor=proposal.pending.actor,
    )
    data = {
        "ok": True,
        "status": "awaiting_confirmation",
        "pending_id": proposal.pending.id,
        "request_id": proposal.request.id,
        "confirm_by": confirm_by,
        "summary": summary,
        "note": "Nothing has been submitted or sent: the user must click the button on the card.",
        **{k: v for k, v in fields.items() if k not in ("reason",)},
    }
    if replaced:
        data["replaces"] = replaced  # the thread's earlier draft: its card now says so
    return Observation(data, info)


def _unchanged(ctx: ToolContext, pending_id: str, draft: Request) -> Observation:
    """A correction that changes nothing: no new card; the live one stays as it is."""
    summary = say("propose.unchanged", ctx.locale, what=_what(ctx, draft))
    return ok(
        summary,
        status="unchanged",
        pending_id=pending_id,
        request_id=draft.id,
        note="The live draft already has exactly these details: no new card, its card stays.",
    )


def _request_fields(ctx: ToolContext, proposal: Proposal) -> dict[str, Any]:
    req, d = proposal.request, ctx.engine.directory
    fields: dict[str, Any] = {"process": req.process, **req.fields}
    if req.is_leave:
        fields["half_day"] = half_day(req.fields)
        # what the engine derived (working days, …): the confirm card's leave facts read it here
        fields |= {k: v for k, v in req.derived.items() if not isinstance(v, dict | list)}
    fields["approvers"] = [d.get(s.approver).name for s in req.steps]
    if req.filed_by:
        fields["on_behalf_of"] = d.get(req.requester).name
    fields["approver"] = fields["approvers"][0] if fields["approvers"] else None
    if proposal.balance_after is not None:
        fields["balance_after"] = proposal.balance_after.available
    return fields


class ProposeLeaveArgs(ToolArgs):
    # The organisation's leave types (the engine validates them): a new one needs no code.
    leave_type: str = Field(
        min_length=1, max_length=40, json_schema_extra=org_schema("leave_types")
    )
    start: str = Field(max_length=60, description="First day off.")
    end: str | None = Field(default=None, max_length=60, description="Last day off, inclusive.")
    days: float | None = Field(
        default=None, gt=0, le=260, description="Working days from start, instead of end."
    )
    start_half: bool = Field(default=False, description="Afternoon only on the first day.")
    end_half: bool = Field(default=False, description="Morning only on the last day.")
    reason: str | None = Field(
        default=None, max_length=500, description="The user's own reason, if they gave one."
    )
    replaces: str | None = Field(
        default=None, max_length=40, description="pending_id of the draft this one corrects."
    )
    separate: bool = Field(
        default=False,
        description="For the second and later of several requests asked for at once: the earlier draft stays open.",
    )
    for_person: str | None = Field(
        default=None,
        max_length=64,
        description="HR only: id of the person it is for.",
    )


async def propose_leave(ctx: ToolContext, args: ProposeLeaveArgs) -> Observation:
    s = span(ctx, args.start, args.end, args.days, args.start_half, args.end_half)
    fields = {
        "leave_type": args.leave_type,
        "start": s.start.isoformat(),
        "end": s.end.isoformat(),
        "start_half": s.start_half,
        "end_half": s.end_half,
        "reason": args.reason,
    }
    live = None
    if not args.separate or args.replaces:
        live = await live_pending(ctx, PendingKind.SUBMIT, named=args.replaces)
    replaced = live.id if live else None
    if same := await unchanged_draft(ctx, live, "leave", fields, args.for_person):
        return _unchanged(ctx, str(replaced), same)
    proposal = await ctx.engine.prepare_submit(
        ctx.actor.id, "leave", fields, replaces=replaced, on_behalf_of=args.for_person
    )
    loc, req = ctx.locale, proposal.request
    chain = " → ".join(ctx.engine.directory.get(st.approver).name for st in req.steps)
    after = proposal.balance_after
    left = ""
    if after is not None and after.available is not None:
        left = say("propose.left", loc, n=f"{after.available:g}")
    summary = say("propose.request", loc, what=_what(ctx, req), chain=chain) + left
    if req.filed_by:  # HR's draft for someone: the card and the answer say whose it is
        summary += say("proposal.on_behalf", loc, who=ctx.engine.person(req.requester).name)
    return await awaiting_click(ctx, proposal, summary, _request_fields(ctx, proposal), replaced)


class ProposeRequestArgs(ToolArgs):
    # The organisation's processes and their forms: a new process reaches the model without code.
    process: str = Field(
        min_length=1, max_length=40, json_schema_extra=org_schema("request_processes")
    )
    fields: dict[str, Any] = Field(json_schema_extra=org_schema("request_fields"))
    replaces: str | None = Field(
        default=None, max_length=40, description="pending_id of the draft this one corrects."
    )


async def propose_request(ctx: ToolContext, args: ProposeRequestArgs) -> Observation:
    from agent.tools.dates_arg import one_date
    from workflow.config import FieldType

    process = ctx.engine.process(args.process)
    fields = dict(args.fields)
    for f in process.fields:  # dates in words are resolved here too
        value = fields.get(f.name)
        if f.type is FieldType.DATE and isinstance(value, str) and value.strip():
            fields[f.name] = one_date(value, ctx, f.name, past=f.past).isoformat()
    live = await live_pending(ctx, PendingKind.SUBMIT, named=args.replaces)
    replaced = live.id if live else None
    if same := await unchanged_draft(ctx, live, args.process, fields):
        return _unchanged(ctx, str(replaced), same)
    proposal = await ctx.engine.prepare_submit(
        ctx.actor.id, args.process, fields, replaces=replaced
    )
    loc, req = ctx.locale, proposal.request
    chain = " → ".join(ctx.engine.directory.get(st.approver).name for st in req.steps)
    summary = say("propose.request", loc, what=_what(ctx, req), chain=chain)
    return await awaiting_click(ctx, proposal, summary, _request_fields(ctx, proposal), replaced)


class ProposeDecisionArgs(ToolArgs):
    request_id: str = REQUEST_ID
    decision: Literal["approve", "reject"]
    comment: str | None = Field(default=None, max_length=500, description="Required to reject.")


async def propose_decision(ctx: ToolContext, args: ProposeDecisionArgs) -> Observation:
    request_id = args.request_id.upper()
    replaced = await live_draft(ctx, PendingKind.DECIDE, request_id)
    proposal = await ctx.engine.prepare_decision(
        ctx.actor.id, request_id, args.decision, args.comment
    )
    loc, req, d = ctx.locale, proposal.request, ctx.engine.directory
    summary = say(
        f"propose.{args.decision}",
        loc,
        who=d.get(req.requester).name,
        what=_what(ctx, req),
    )
    fields = {
        "decision": args.decision,
        "comment": args.comment,
        "requester": d.get(req.requester).name,
        "step": proposal.pending.payload["step"] + 1,
    }
    return await awaiting_click(ctx, proposal, summary, fields, replaced)


class ProposeWithdrawArgs(ToolArgs):
    request_id: str = REQUEST_ID
    reason: str | None = Field(default=None, max_length=500)


async def propose_withdraw(ctx: ToolContext, args: ProposeWithdrawArgs) -> Observation:
    request_id = args.request_id.upper()
    replaced = await live_draft(ctx, PendingKind.WITHDRAW, request_id)
    proposal = await ctx.engine.prepare_withdraw(ctx.actor.id, request_id, args.reason)
    loc, req = ctx.locale, proposal.request
    summary = say("propose.withdraw", loc, what=_what(ctx, req))
    return await awaiting_click(ctx, proposal, summary, {"reason": args.reason}, replaced)


class ProposeReminderArgs(ToolArgs):
    request_id: str = REQUEST_ID
    note: str | None = Field(
        default=None, max_length=300, description="The user's note to the approver, if any."
    )


async def propose_reminder(ctx: ToolContext, args: ProposeReminderArgs) -> Observation:
    request_id = args.request_id.upper()
    replaced = await live_draft(ctx, PendingKind.REMIND, request_id)
    proposal = await ctx.engine.prepare_remind(ctx.actor.id, request_id, args.note)
    loc, req, d = ctx.locale, proposal.request, ctx.engine.directory
    step = req.open_step()
    to = d.get(step.assignee).name if step and step.assignee else "?"
    # the day in the asker's zone: a clock time here would need its zone named
    at = req.submitted_at or ctx.engine.clock.now()
    since = fmt_date(at.astimezone(ZoneInfo(ctx.actor.timezone)).date(), loc)
    summary = say(
        "propose.remind",
        loc,
        to=to,
        what=_what(ctx, req),
        since=since,
    )
    return await awaiting_click(ctx, proposal, summary, {"to": to, "note": args.note}, replaced)


class ProposeDelegationArgs(ToolArgs):
    delegate: str = Field(
        min_length=1, max_length=100, description="The colleague, as the user named them."
    )
    start: str = Field(max_length=60)
    end: str = Field(max_length=60, description="Last day, inclusive.")
    reason: str | None = Field(default=None, max_length=300)


async def propose_delegation(ctx: ToolContext, args: ProposeDelegationArgs) -> Observation:
    from agent.tools.base import failed
    from agent.tools.dates_arg import one_date

    found = [p for p in ctx.engine.directory.search(args.delegate, limit=5) if p.id != ctx.actor.id]
    if len(found) != 1:
        names = ", ".join(p.name for p in found) or "nobody"
        return failed(
            "ambiguous_person",
            say("propose.ambiguous_person", ctx.locale, name=args.delegate, names=names),
        )
    delegate = found[0]
    start, end = one_date(args.start, ctx, "start"), one_date(args.end, ctx, "end")
    replaced = await live_draft(ctx, PendingKind.DELEGATE)
    proposal = await ctx.engine.prepare_delegation(
        ctx.actor.id, delegate.id, start, end, args.reason
    )
    loc = ctx.locale
    summary = say(
        "propose.delegate",
        loc,
        who=delegate.name,
        start=fmt_date(start, loc),
        end=fmt_date(end, loc),
    )
    fields = {
        "delegate": delegate.name,
        "start": start.isoformat(),
        "end": end.isoformat(),
        "reason": args.reason,
    }
    return await awaiting_click(ctx, proposal, summary, fields, replaced)


PROPOSE_TOOLS: list[Tool] = [
    Tool(
        "propose_leave",
        "Prepare a leave request for the user to confirm on a card, as soon as its type and dates are known.",
        ProposeLeaveArgs,
        propose_leave,
        lambda a, loc: say("step.propose_leave", loc, type=a.leave_type),
        writes=True,
    ),
    Tool(
        "propose_request",
        "Prepare a request other than leave (an expense claim, a business trip) for the user to confirm on a card.",
        ProposeRequestArgs,
        propose_request,
        lambda a, loc: say("step.propose_request", loc),
        writes=True,
    ),
    Tool(
        "propose_decision",
        "Prepare the user's approve or reject decision on a request assigned to them, confirmed on a card.",
        ProposeDecisionArgs,
        propose_decision,
        lambda a, loc: say("step.propose_decision", loc),
        writes=True,
    ),
    Tool(
        "propose_withdraw",
        "Prepare the withdrawal of the user's own undecided request, confirmed on a card.",
        ProposeWithdrawArgs,
        propose_withdraw,
        lambda a, loc: say("step.propose_withdraw", loc),
        writes=True,
    ),
    Tool(
        "propose_delegation",
        "Prepare a delegation of the user's approvals to a colleague while they are away, confirmed on a card.",
        ProposeDelegationArgs,
        propose_delegation,
        lambda a, loc: say("step.propose_delegation", loc),
        writes=True,
    ),
    Tool(
        "propose_reminder",
        "Prepare a reminder to the approver of the user's own pending request, sent once the user confirms.",
        ProposeReminderArgs,
        propose_reminder,
        lambda a, loc: say("step.propose_reminder", loc),
        writes=True,
    ),
]
