"""Acting for someone: HR files or withdraws a person's leave, and the record says who acted.

The request stays the person's own in every other way: their calendar counts the days, their
balance pays for them, their approval chain decides them, and they are told by DM. Only the
`hr` role may act for someone; anyone else gets a sentence saying so and nothing changes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from workflow.errors import ActingNotAllowed
from workflow.models import EventType, Request
from workflow.transitions import Change

if TYPE_CHECKING:
    from workflow.queries import Queries

# The role that may file and withdraw leave on someone else's behalf.
ACT_FOR_ROLE = "hr"


def may_act_for(engine: Queries, actor: str) -> bool:
    """True when `actor` holds the role that acts for others."""
    return ACT_FOR_ROLE in engine.person(actor).roles


def check(engine: Queries, actor: str, person: str, process_kind: str) -> None:
    """Refuse acting for `person` unless `actor` is HR and the request is leave.

    Raises:
        ActingNotAllowed: the actor is not HR, or the process is not a leave process.
        NotFound: either person is not in the directory.
    """
    name = engine.person(person).name
    if not may_act_for(engine, actor):
        raise ActingNotAllowed(
            f"Only HR can file or withdraw leave on someone else's behalf; {name} can do it "
            "themselves, or ask HR to.",
            zh=f"只有人事可以代他人提交或撤回请假；请{name}本人操作，或请人事代办。",
        )
    if process_kind != "leave":
        raise ActingNotAllowed(
            f"HR can file leave for {name}, but other requests are {name}'s to file.",
            zh=f"人事可以代{name}请假，其他申请需由{name}本人提交。",
        )


def acted_for(req: Request, actor: str) -> bool:
    """True when `actor` changes `req` as someone other than its requester (HR, checked before)."""
    return actor != req.requester


def tell(change: Change, actor: str, action: Literal["submitted", "withdrawn"]) -> None:
    """Queue the DM that tells the person what HR did for them (in the same atomic step)."""
    req = change.request
    change.emit(EventType.ACTED_FOR, by=actor, person=req.requester, action=action)
