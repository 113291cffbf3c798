"""Who holds a step now: the approver, their delegate, or their manager while they are out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from workflow.directory import Directory
from workflow.models import Delegation, LeaveEntry, RequestStatus, RoutedReason, RoutingCode

# Routing follows at most this many hops (a delegate who is out, then their manager, ...).
MAX_HOPS = 4


@dataclass(frozen=True)
class Availability:
    """Who is on approved leave and who has delegated, as read in the transition's first round trip."""

    leaves: tuple[LeaveEntry, ...]
    delegations: tuple[Delegation, ...]

    def away_until(self, person_id: str, day: date) -> date | None:
        """The last day of the approved leave `person_id` is on today, or None."""
        ends = [
            e.end
            for e in self.leaves
            if e.person == person_id and e.status is RequestStatus.APPROVED and e.covers(day)
        ]
        return max(ends) if ends else None

    def delegation_of(self, person_id: str, day: date) -> Delegation | None:
        """The delegation `person_id` has in force today, if any."""
        active = [d for d in self.delegations if d.person == person_id and d.active_on(day)]
        return min(active, key=lambda d: d.start, default=None)


@dataclass(frozen=True)
class Route:
    """The result of routing a step: who holds it and, when that is not the approver, why."""

    assignee: str
    reason: RoutingCode | None = None  # delegated | on_leave
    via: str | None = None  # the person the step was routed away from
    until: date | None = None

    def reason_record(self) -> RoutedReason | None:
        """Why the step went to someone else, as a code and ids (wording renders it per reader)."""
        if self.reason is None or self.via is None:
            return None
        return RoutedReason(code=self.reason, from_=self.via, to=self.assignee, until=self.until)


def route(
    approver: str,
    requester: str,
    day: date,
    directory: Directory,
    availability: Availability,
    filer: str | None = None,
) -> Route:
    """Route a step to its approver, or past them when they delegated or are on leave today.

    Never to the requester, nor to `filer` (who filed the request for them): neither decides it.
    """
    barred = {requester, filer}
    current, first = approver, Route(approver)
    visited = {approver}
    for _ in range(MAX_HOPS):
        delegation = availability.delegation_of(current, day)
        away = availability.away_until(current, day)
        if delegation is not None and delegation.delegate not in barred:
            nxt, why, until = delegation.delegate, RoutingCode.DELEGATED, delegation.end
        elif away is not None:
            manager = directory.manager_of(current)
            if manager is None or manager.id in barred:
                break  # nobody above to route to: the step waits for them
            nxt, why, until = manager.id, RoutingCode.ON_LEAVE, away
        else:
            break
        if nxt in visited:
            break
        visited.add(nxt)
        if first.reason is None:
            first = Route(nxt, why, current, until)
        else:
            first = Route(nxt, first.reason, first.via, first.until)
        current = nxt
    return first


def may_decide(actor: str, assignee: str, day: date, availability: Availability) -> bool:
    """The assignee, or whoever the assignee has delegated to today, decides a step."""
    if actor == assignee:
        return True
    delegation = availability.delegation_of(assignee, day)
    return delegation is not None and delegation.delegate == actor
