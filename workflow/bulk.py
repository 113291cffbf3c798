"""Bulk decisions: one approver decides several items, each on its own through the engine.

Every item is one ordinary `decide` — authorized, atomic and recorded once — so an item that
is no longer the approver's (decided by someone else, withdrawn, handed on) is refused with its
own sentence while the others go through. The caller gets one outcome per item, in order.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import structlog

from workflow.errors import FieldProblem, OutcomeUnknown, ValidationFailed, WorkflowError
from workflow.models import Decision, Request

if TYPE_CHECKING:
    from workflow.engine import Engine

log = structlog.get_logger("workflow")

# One confirm covers at most this many items (a digest or Home tab never lists more).
MAX_ITEMS = 50
# After an unknown outcome the same decision is asked again (it is idempotent): these waits.
_RETRY_WAITS_S = (0.05, 0.25)


@dataclass(frozen=True)
class Item:
    """One step of one request to decide."""

    request_id: str
    step: int


@dataclass(frozen=True)
class ItemOutcome:
    """What became of one item: the request as decided, or the refusal and nothing changed."""

    item: Item
    request: Request | None = None
    error: WorkflowError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def check_items(items: Sequence[Item]) -> list[Item]:
    """The items once each, in their order; refuse an empty or oversized batch."""
    unique = list(dict.fromkeys(items))
    if not unique:
        raise ValidationFailed(
            "Select at least one request to decide.",
            zh="请至少选择一个申请。",
            problems={"items": FieldProblem("no_items", "is empty")},
        )
    if len(unique) > MAX_ITEMS:
        raise ValidationFailed(
            f"At most {MAX_ITEMS} requests can be decided at once; select fewer.",
            zh=f"一次最多处理 {MAX_ITEMS} 个申请，请少选一些。",
            problems={
                "items": FieldProblem("too_many_items", f"has more than {MAX_ITEMS}", max=MAX_ITEMS)
            },
        )
    return unique


async def _decide_one(
    engine: Engine, actor: str, item: Item, decision: Decision, comment: str | None
) -> ItemOutcome:
    for wait in (*_RETRY_WAITS_S, None):
        try:
            req = await engine.decide(item.request_id, item.step, actor, decision, comment)
            return ItemOutcome(item, request=req)
        except OutcomeUnknown as e:
            # the same decision again returns the recorded one, or makes it if it was lost
            if wait is None:
                return ItemOutcome(item, error=e)
            await asyncio.sleep(wait)
        except WorkflowError as e:
            return ItemOutcome(item, error=e)
    raise AssertionError("unreachable")


async def decide_many(
    engine: Engine,
    actor: str,
    items: Sequence[Item],
    decision: Decision,
    comment: str | None = None,
) -> list[ItemOutcome]:
    """Decide each item in turn; a refused item is reported and the rest still go through."""
    batch = check_items(items)
    outcomes = [await _decide_one(engine, actor, item, decision, comment) for item in batch]
    log.info(
        "bulk_decided",
        actor=actor,
        decision=decision.value,
        items=len(batch),
        refused=sum(not o.ok for o in outcomes),
    )
    return outcomes
