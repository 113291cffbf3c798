"""After a write whose outcome is unknown, read the request back and say what is true.

When the connection to Redis dies after a transition was sent, the Lua call may or may not
have run: "nothing was changed" would be a guess (and was wrong in 3 of 8 trials of issue 13).
The engine's record decides, a few times while the store comes back:

- a decision from a card button is read back (`decision_after_failure`): recorded, still
  open (nothing changed), or decided otherwise — and the card is redrawn from that record;
- a call the engine makes idempotent — confirming a pending action (submit, decide,
  withdraw, remind, delegate: the pending action is marked in the same atomic write) and
  withdrawing from the Home tab (a withdrawn request is returned as it is) — is made again
  (`until_known`): it returns what the first call recorded, or does it now if it never ran.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

import structlog

from workflow.engine import Engine
from workflow.errors import OutcomeUnknown, StoreUnavailable
from workflow.models import Request, StepStatus

log = structlog.get_logger("clicks")
WAITS_S = (0.2, 0.5, 1.0)  # a little under the platforms' 3 s in total
T = TypeVar("T")


async def until_known(
    call: Callable[[], Awaitable[T]],
    what: str,
    waits_s: tuple[float, ...] = WAITS_S,
    **fields: Any,
) -> T:
    """An idempotent engine call, made again after an unknown outcome so the answer is the record's.

    Raises:
        OutcomeUnknown: the store still did not answer after the last wait.
    """
    for wait in (*waits_s, None):
        try:
            return await call()
        except OutcomeUnknown:
            if wait is None:
                raise
            log.info("outcome_unknown_asking_again", call=what, **fields)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


class Found(StrEnum):
    DONE = "done"  # the decision is recorded (by this person)
    NOT_DONE = "not_done"  # the step is still open: nothing was changed
    OTHER = "other"  # decided, but not as asked (someone else, or the other way)
    UNKNOWN = "unknown"  # the store still does not answer


@dataclass(frozen=True)
class ReadBack:
    found: Found
    request: Request | None = None


async def decision_after_failure(
    engine: Engine,
    request_id: str,
    step: int,
    actor: str,
    decision: str,
    waits_s: tuple[float, ...] = WAITS_S,
) -> ReadBack:
    """Whether `actor`'s `decision` on `step` is in the record, read back while the store recovers."""
    wanted = StepStatus.APPROVED if decision == "approve" else StepStatus.REJECTED
    for wait in (0.0, *waits_s):
        if wait:
            await asyncio.sleep(wait)
        try:
            req = await engine.get_request(request_id, actor)
        except StoreUnavailable:
            continue
        if not 0 <= step < len(req.steps):
            return ReadBack(Found.OTHER, req)
        s = req.steps[step]
        if s.status is wanted and s.decided_by == actor:
            found = Found.DONE
        elif s.status is StepStatus.PENDING:
            found = Found.NOT_DONE
        else:
            found = Found.OTHER
        log.info("decision_read_back", request_id=request_id, step=step, found=found.value)
        return ReadBack(found, req)
    log.warning("decision_unknown", request_id=request_id, step=step)
    return ReadBack(Found.UNKNOWN)
