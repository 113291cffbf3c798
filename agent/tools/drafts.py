"""At most one live draft per conversation thread: a new proposal supersedes the thread's last one.

Whatever the model remembers (or forgets) to pass as `replaces`, the thread itself keeps the
pending id of its live draft in each slot: one slot for a new request, one for a delegation,
and one per request for a decision, a withdrawal or a reminder (so approving two different
requests in one turn still gives two cards). The superseded pending action is retired in the
store, so its Submit is refused from any surface; the platforms edit its card.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from agent.tools.base import ToolContext
from workflow.engine import Proposal
from workflow.errors import WorkflowError
from workflow.fields import validate_fields
from workflow.keys import conversation_drafts, thread_drafts
from workflow.models import PendingAction, PendingKind, PendingStatus, Request
from workflow.transactions import Group, hset_for, transact


def slot_of(kind: PendingKind, request_id: str) -> str:
    """Which drafts of a thread compete: new requests with each other, decisions per request."""
    if kind in (PendingKind.SUBMIT, PendingKind.DELEGATE):
        return kind.value
    return f"{kind.value}:{request_id}"


async def live_draft(
    ctx: ToolContext, kind: PendingKind, request_id: str = "-", *, named: str | None = None
) -> str | None:
    """The thread's open pending action in this slot, else the open one the model `named`."""
    live = await live_pending(ctx, kind, request_id, named=named)
    return live.id if live else None


async def live_pending(
    ctx: ToolContext, kind: PendingKind, request_id: str = "-", *, named: str | None = None
) -> PendingAction | None:
    """`live_draft`'s pending action itself, for a caller that reads its payload next."""
    slot = slot_of(kind, request_id)
    if ctx.drafts is not None:
        kept = ctx.drafts.get(slot)
    else:
        kept = await ctx.engine.store.redis.hget(thread_drafts(ctx.thread_key), slot)
    for pending_id in dict.fromkeys(p for p in (kept, named) if p):
        try:
            pending = await ctx.engine.pending_action(pending_id, ctx.actor.id)
        except WorkflowError:  # expired, or someone else's: nothing to supersede
            continue
        if pending.status is PendingStatus.OPEN and pending.kind is kind:
            return pending
    return None


async def unchanged_draft(
    ctx: ToolContext,
    pending: PendingAction | None,
    process_key: str,
    fields: Mapping[str, Any],
    requester: str | None = None,
) -> Request | None:
    """The live draft of `pending`, when a correction would make it again exactly as it is.

    Same process, same person, same fields once checked as the engine checks them: the draft
    and its card stay (a new identical card superseding the old one helps nobody). None when
    anything differs, or when the new fields do not pass (the engine then says why).
    """
    if pending is None:
        return None
    engine, requester = ctx.engine, requester or ctx.actor.id
    try:
        clean = validate_fields(engine.process(process_key), fields, engine.config)
        if pending.payload.get("fields") != clean:
            return None
        # read as the person it is for: a draft is theirs alone, so another's draft is refused
        draft = await engine.get_request(pending.request_id, requester)
    except WorkflowError:
        return None
    return draft if draft.process == process_key and draft.requester == requester else None


async def remember(ctx: ToolContext, proposal: Proposal, replaced: str | None) -> str | None:
    """Make `proposal` the thread's live draft in its slot; retire `replaced` if still open.

    Returns the id of the draft it superseded (None when there was none). A submit already
    retired its predecessor atomically (`prepare_submit(replaces=…)`).
    """
    pending = proposal.pending
    if (
        replaced is not None
        and replaced != pending.id
        and pending.kind is not PendingKind.SUBMIT
        and not await ctx.engine.supersede(replaced, ctx.actor.id, pending.id)
    ):
        replaced = None
    more: list[Group] = []
    if pending.kind is PendingKind.SUBMIT and (conv := conversation_of(ctx.thread_key)):
        # its own transaction: the DM's key lives in another hash slot than the thread's
        more.append(hset_for(conversation_drafts(conv), ctx.actor.id, ctx.thread_key, _ttl_s(ctx)))
    await _note(ctx, slot_of(pending.kind, pending.request_id), pending.id, *more)
    return replaced if replaced != pending.id else None


async def _note(ctx: ToolContext, slot: str, pending_id: str, *more: Group) -> None:
    """The thread's draft in `slot` is `pending_id` now (with `more` writes, one round trip on
    one Redis), and so is the turn's copy of the thread's drafts: every write of them is here."""
    thread = hset_for(thread_drafts(ctx.thread_key), slot, pending_id, _ttl_s(ctx))
    await transact(ctx.engine.store.redis, thread, *more)
    if ctx.drafts is not None:
        ctx.drafts[slot] = pending_id


def _ttl_s(ctx: ToolContext) -> int:
    return int(ctx.engine.config.policy.pending_action_ttl_hours * 3600) + 7 * 86_400


def conversation_of(thread_key: str) -> str | None:
    """The DM (or channel) a thread belongs to: its key without the thread's own last part."""
    conv, sep, _ = thread_key.rpartition(":")
    return conv if sep and conv else None


async def carry_live_draft(ctx: ToolContext) -> str | None:
    """For a correction typed as a new message: the thread holding the person's live draft.

    People type "actually make it Thursday" as a new top-level DM as often as a reply in the
    card's thread. The newest new-request draft of the same DM, if still open, becomes this
    thread's draft too (so the corrected proposal supersedes it), and the thread it lives in
    is returned for its history. None when there is no such draft.
    """
    conv = conversation_of(ctx.thread_key)
    if conv is None:
        return None
    redis = ctx.engine.store.redis
    other = await redis.hget(conversation_drafts(conv), ctx.actor.id)
    if not other or other == ctx.thread_key:
        return None
    other_ctx = dataclasses.replace(ctx, thread_key=other, drafts=None)
    pending_id = await live_draft(other_ctx, PendingKind.SUBMIT)
    if pending_id is None:
        return None
    await _note(ctx, slot_of(PendingKind.SUBMIT, "-"), pending_id)
    return other
