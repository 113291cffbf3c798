"""Who is away and who has delegated, kept per person so a transition reads only whom it can route to.

Two hashes hold it (see keys.py): `away_by` (person → their approved leave that has not
ended) and `deleg_by` (person → their delegations that have not ended). A request keeps in
its hash, beside its record, the people its routing can reach (`reach`: the approvers of its
steps, the holder of its open step, and the managers above each); one read script
(lua/avail.lua) looks up just those people, and the delegates they lead to, in the same
round trip as the request itself. So a transition's reads never grow with how many people
are away, nor with the organisation's history.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Any

from workflow.directory import Directory
from workflow.keys import OrgKeys
from workflow.models import Delegation, LeaveEntry, Request, RequestStatus
from workflow.routing import MAX_HOPS, Availability
from workflow.store import Store, Tx, hmget_record, script_read, versioned

# The request hash's field listing the people its routing can reach, comma-separated.
REACH_FIELD = "r"
# A bound on the people one read visits (the reach of a request is about a dozen).
MAX_VISITED = 96
# Items that ended before today minus this many days are dropped when a list is written
# (people's days differ by timezone; routing asks about "today" where the approver is).
KEEP_DAYS = 2


def reach_of(directory: Directory, people: Iterable[str | None]) -> list[str]:
    """Each person and the managers above them, as far as routing goes (MAX_HOPS), once each."""
    out: dict[str, None] = {}
    for pid in people:
        if pid is None or directory.find(pid) is None:
            continue
        out[pid] = None
        for m in directory.managers_above(pid)[:MAX_HOPS]:
            out[m.id] = None
    return list(out)


def request_reach(directory: Directory, req: Request) -> str:
    """The reach of a request still open: its approvers and the holder of its open step."""
    people = [s.approver for s in req.steps] + [s.assignee for s in req.steps if s.assignee]
    return ",".join(reach_of(directory, people))


def read(
    keys: OrgKeys, request_key: str | None, people: Sequence[str] = ()
) -> tuple[str, list[Any]]:
    """The read call for the availability of a request's reach (and of `people`)."""
    key_list = [keys.away_by, keys.deleg_by] + ([request_key] if request_key else [])
    return script_read("avail", key_list, [MAX_VISITED, *people])


async def read_with_reach(
    store: Store, keys: OrgKeys, request_id: str, people: Sequence[str]
) -> tuple[Request | None, Availability]:
    """A request (None: there is none) and the availability of its reach and of `people`,
    read in one round trip."""
    req_key = keys.request(request_id)
    raw, reachable = await store.read(hmget_record(req_key), read(keys, req_key, people))
    return versioned(Request, raw), parse(reachable)


def parse(reply: Sequence[str]) -> Availability:
    """Availability from the read script's reply (person, away items, delegation items, ...)."""
    leaves: list[LeaveEntry] = []
    delegations: list[Delegation] = []
    for i in range(0, len(reply) - 2, 3):
        person, away, dels = reply[i], reply[i + 1], reply[i + 2]
        for item in filter(None, away.split(";")):
            end, start, request_id = item.split("|")[:3]
            leaves.append(
                LeaveEntry(
                    request_id=request_id,
                    person=person,
                    start=start,
                    end=end,
                    status=RequestStatus.APPROVED,
                )
            )
        for item in filter(None, dels.split(";")):
            end, start, delegate, delegation_id = item.split("|")[:4]
            delegations.append(
                Delegation(id=delegation_id, person=person, delegate=delegate, start=start, end=end)
            )
    return Availability(leaves=tuple(leaves), delegations=tuple(delegations))


def horizon(today: date) -> str:
    return (today - timedelta(days=KEEP_DAYS)).isoformat()


def add_away(
    tx: Tx, keys: OrgKeys, person: str, start: str, end: str, request_id: str, today: date
) -> None:
    """Record approved leave for routing; items already ended are dropped in the same step."""
    tx.span(keys.away_by, person, f"{end}|{start}|{request_id}", "", horizon(today))


def drop_away(
    tx: Tx, keys: OrgKeys, person: str, start: str, end: str, request_id: str, today: date
) -> None:
    tx.span(keys.away_by, person, "", f"{end}|{start}|{request_id}", horizon(today))


def add_delegation(tx: Tx, keys: OrgKeys, d: Delegation, directory: Directory, today: date) -> None:
    """Record a delegation for routing, with the managers above the delegate (whom routing may reach next)."""
    line = ",".join(m.id for m in directory.managers_above(d.delegate)[:MAX_HOPS])
    item = f"{d.end.isoformat()}|{d.start.isoformat()}|{d.delegate}|{d.id}|{line}"
    tx.span(keys.deleg_by, d.person, item, "", horizon(today))
    to = f"{d.end.isoformat()}|{d.start.isoformat()}|{d.person}|{d.id}"
    tx.span(keys.deleg_to, d.delegate, to, "", horizon(today))


def delegators(raw: str | None, day: date) -> list[str]:
    """Whose approvals the delegate may decide on `day`, from their `deleg_to` field."""
    out: list[str] = []
    for item in filter(None, (raw or "").split(";")):
        end, start, person = item.split("|")[:3]
        if start <= day.isoformat() <= end and person not in out:
            out.append(person)
    return out
