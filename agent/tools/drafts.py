"""At most one live draft per conversation thread: a new proposal supersedes the thread's last one.

Whatever the model remembers (or forgets) to pass as `replaces`, the thread itself keeps the
pending id of its live draft in each slot: one slot for a new request, one for a delegation,
and one per request for a decision, a withdrawal or a reminder (so approving two different
requests in one turn still gives two cards). The superseded pending action is retired in the
store, so its Submit is refused from any surface; the platforms edit its card.
"""

from __future__ import annotations

from agent.tools.base import ToolContext
from workflow.engine import Proposal
from workflow.errors import WorkflowError
from workflow.keys import thread_drafts
from workflow.models import PendingKind, PendingStatus


def slot_of(kind: PendingKind, request_id: str) -> str:
    """Which drafts of a thread compete: new requests with each other, decisions per request."""
    if kind in (PendingKind.SUBMIT, PendingKind.DELEGATE):
        return kind.value
    return f"{kind.value}:{request_id}"


async def live_draft(
    ctx: ToolContext, kind: PendingKind, request_id: str = "-", *, named: str | None = None
) -> str | None:
    """The thread's open pending action in this slot, else the open one the model `named`."""
    redis = ctx.engine.store.redis
    kept = await redis.hget(thread_drafts(ctx.thread_key), slot_of(kind, request_id))
    for pending_id in dict.fromkeys(p for p in (kept, named) if p):
        try:
            pending = await ctx.engine.pending_action(pending_id, ctx.actor.id)
        except WorkflowError:  # expired, or someone else's: nothing to supersede
            continue
        if pending.status is PendingStatus.OPEN and pending.kind is kind:
            return pending.id
    return None


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
    redis = ctx.engine.store.redis
    key = thread_drafts(ctx.thread_key)
    ttl_s = int(ctx.engine.config.policy.pending_action_ttl_hours * 3600) + 7 * 86_400
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hset(key, slot_of(pending.kind, pending.request_id), pending.id)
        pipe.expire(key, ttl_s)
        await pipe.execute()
    return replaced if replaced != pending.id else None
