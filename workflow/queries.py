"""Read-side of the engine: my requests, my approvals, details, balances, who is out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, NamedTuple

import redis.asyncio as aioredis

from workflow import away, calendar, whos_out
from workflow.clock import Clock, today_in
from workflow.config import OrgConfig, Person, ProcessDef
from workflow.directory import Directory
from workflow.errors import NotAllowed, NotFound, ValidationFailed
from workflow.keys import OrgKeys
from workflow.leave import Balance, balance
from workflow.models import Delegation, PendingAction, Request, RequestStatus
from workflow.store import Store, hmget_record, versioned

# Who may read any request's details, besides its requester and its approvers.
READ_ALL_ROLE = "hr"
# The longest span one "who is out" question may cover (a team's weeks, or the organisation's
# days, are all read in one round trip).
MAX_OUT_DAYS = 400
# People on one page of the whole organisation's who-is-out: what a person reads in one message.
OUT_PAGE = 50
# Requests "my approvals" reads: the oldest this many, and how many there are in all. Every
# surface lists fewer (a card's 10, the Home tab's 10) and says "and N more".
APPROVALS_PAGE = 20


class OutEntry(NamedTuple):
    """Someone out of office on some days: names and dates only, never the type or reason."""

    person: str
    name: str
    start: date
    end: date
    start_half: bool
    end_half: bool
    tentative: bool  # still awaiting approval
    request_id: str = ""  # for a calendar event's stable UID; never shown to a person

    def as_dict(self) -> dict[str, Any]:
        return {
            "person": self.person,
            "name": self.name,
            "start": self.start.isoformat(),
            "end": self.end.isoformat(),
            "start_half": self.start_half,
            "end_half": self.end_half,
            "tentative": self.tentative,
        }


class OutPage(NamedTuple):
    """Who is out: a team's people all, or one page of the whole organisation's, with how
    many are out in all and the offset of the next page (None on the last)."""

    entries: list[OutEntry]
    total: int
    next_offset: int | None = None


class Approvals(NamedTuple):
    """The oldest requests waiting for a person's approval, oldest first, and how many wait."""

    requests: list[Request]
    total: int


@dataclass(frozen=True)
class RequestView:
    """What an approver's card shows: the request, the balance after it, who else is out."""

    request: Request
    balance_after: float | None
    team_out: tuple[OutEntry, ...]


class Queries:
    """Reads over the organisation's state; the Engine adds the transitions."""

    def __init__(
        self, config: OrgConfig, redis: aioredis.Redis, clock: Clock, *, coalesce: bool = False
    ) -> None:
        self.config = config
        self.directory = Directory(config)
        self.clock = clock
        self.keys = OrgKeys(config.organisation.id)
        self.store = Store(redis, self.keys, coalesce=coalesce)

    # --- helpers shared with the engine ---------------------------------------------------

    def person(self, person_id: str) -> Person:
        return self.directory.get(person_id)

    def today_for(self, person_id: str) -> date:
        """Today's date in the person's timezone."""
        return today_in(self.clock, self.directory.timezone_of(person_id))

    def process(self, key: str) -> ProcessDef:
        try:
            return self.config.processes_by_key[key]
        except KeyError:
            known = ", ".join(self.config.processes_by_key)
            raise NotFound(f"There is no process {key!r}; the processes are: {known}.") from None

    async def _booked(self, start: date, end: date, team: str) -> list[whos_out.Booked]:
        """A team's leave (pending and approved) touching the days from start to end: its weeks only."""
        buckets = await self.store.read(*whos_out.reads(self.keys, start, end, team))
        return whos_out.parse(buckets, start, end)

    def may_view(self, request: Request, viewer: str) -> bool:
        if request.status is RequestStatus.DRAFT:  # an unsent draft is its author's alone
            return viewer == request.requester
        if viewer == request.requester or request.on_chain(viewer):
            return True
        return READ_ALL_ROLE in self.person(viewer).roles

    async def _requests(self, ids: list[str]) -> list[Request]:
        if not ids:
            return []
        raws = await self.store.read(*(hmget_record(self.keys.request(i)) for i in ids))
        return [r for r in (versioned(Request, raw) for raw in raws) if r is not None]

    # --- queries ------------------------------------------------------------------------------

    async def get_request(self, request_id: str, viewer: str) -> Request:
        """A request's details, for its requester, the approvers on its chain and HR only."""
        self.person(viewer)
        [raw] = await self.store.read(hmget_record(self.keys.request(request_id)))
        request = versioned(Request, raw)
        if request is None:
            raise NotFound(f"There is no request {request_id}.", zh=f"没有申请 {request_id}。")
        if not self.may_view(request, viewer):
            raise NotAllowed(
                f"Request {request_id} is not yours to see: only its requester, its approvers and HR can.",
                zh=f"你无权查看申请 {request_id}：只有申请人、审批人和人事可以查看。",
            )
        return request

    async def request_view(self, request_id: str, viewer: str) -> RequestView:
        """The approver's view: details, the requester's balance after it, who else is out."""
        request = await self.get_request(request_id, viewer)
        if not request.is_leave:
            return RequestView(request, None, ())
        [ledger] = await self.store.read(("hgetall", [self.keys.ledger(request.requester)]))
        team = self.directory.team_of(request.requester)
        booked = await self._booked(request.leave_start(), request.leave_end(), team)
        requester = self.person(request.requester)
        leave_type = self.config.leave_types_by_key[request.fields["leave_type"]]
        year = request.leave_start().year
        b = balance(ledger, leave_type, requester, year)
        after = b.available
        if after is not None and request.status is RequestStatus.DRAFT:
            after -= float(request.derived.get("days_by_year", {}).get(str(year), 0))
        out = self._out_from(booked, team, exclude=request.requester)
        return RequestView(request, after, tuple(out))

    async def my_requests(
        self, person_id: str, status: RequestStatus | None = None, limit: int = 20
    ) -> list[Request]:
        """The person's own requests, newest first, optionally of one status."""
        self.person(person_id)
        fetch = limit if status is None else max(limit * 5, 100)
        [ids] = await self.store.read(
            ("zrevrange", [self.keys.user_requests(person_id), 0, fetch - 1])
        )
        requests = await self._requests(list(ids))
        if status is not None:
            requests = [r for r in requests if r.status is status]
        return requests[:limit]

    async def my_approvals(self, person_id: str, limit: int = APPROVALS_PAGE) -> Approvals:
        """The oldest `limit` requests whose open step the person holds, or holds for someone
        who delegated to them, and how many there are: reads `limit` records however many wait."""
        self.person(person_id)
        today = self.today_for(person_id)
        [delegated] = await self.store.read(("hget", [self.keys.deleg_to, person_id]))
        holders = [person_id, *away.delegators(delegated, today)]
        reads: list[tuple[str, list[Any]]] = []
        for h in holders:
            key = self.keys.user_open(h)
            # redis-py's zrange(name, start, end, desc, withscores): the oldest, with their scores
            reads += [("zrange", [key, 0, limit - 1, False, True]), ("zcard", [key])]
        got = await self.store.read(*reads)
        scored = {i: float(s) for page in got[::2] for i, s in page}
        ids = sorted(scored, key=lambda i: (scored[i], i))[:limit]
        requests = await self._requests(ids)
        open_ = [r for r in requests if (s := r.open_step()) is not None and s.assignee in holders]
        # a request is in one holder's list only, so the counts add up
        return Approvals(open_, sum(int(n) for n in got[1::2]))

    async def balances(self, person_id: str, year: int | None = None) -> list[Balance]:
        """Allowance, used, pending and available days of each leave type for a year."""
        person = self.person(person_id)
        year = year or self.today_for(person_id).year
        [ledger] = await self.store.read(("hgetall", [self.keys.ledger(person_id)]))
        return [balance(ledger, t, person, year) for t in self.config.leave_types]

    def working_days(
        self,
        person_id: str,
        start: date,
        end: date,
        start_half: bool = False,
        end_half: bool = False,
    ) -> dict[str, Any]:
        """Working days in a range for this person, with the days that do not count and why."""
        p = self.person(person_id)
        try:
            days = calendar.working_days(
                start, end, p.country, p.subdivision, start_pm=start_half, end_am=end_half
            )
            holidays = calendar.holidays_between(
                start, end, p.country, p.subdivision, language=p.locale
            )
        except calendar.CalendarError as e:
            raise ValidationFailed(str(e)) from e
        return {
            "start": start.isoformat(),
            "end": end.isoformat(),
            "working_days": days,
            "public_holidays": [{"date": d.isoformat(), "name": n} for d, n in holidays],
            "country": p.country,
        }

    async def who_is_out(
        self,
        viewer: str,
        start: date,
        end: date,
        team: str | None = None,
        *,
        offset: int = 0,
        limit: int = OUT_PAGE,
    ) -> OutPage:
        """Who is on (approved or pending) leave between two dates, names and dates only, by
        first day then name: a team's people all, or the whole organisation's `limit` from
        `offset` on, read in one round trip whatever the number out."""
        self.person(viewer)
        if end < start:
            raise ValidationFailed(f"The end date {end} is before the start date {start}.")
        if (end - start).days > MAX_OUT_DAYS:
            raise ValidationFailed(
                f"Ask about at most {MAX_OUT_DAYS} days at a time; {start} to {end} is longer."
            )
        if team is not None:
            entries = self._out_from(await self._booked(start, end, team), team)
            return OutPage(entries, len(entries))
        offset = max(offset, 0)
        [reply] = await self.store.read(whos_out.page_read(self.keys, start, end, offset, limit))
        page = whos_out.parse_page(reply)
        after = offset + len(page.booked)
        # in the index's order already (its names are those at booking); leavers are left out
        entries = self._out_from(page.booked, None, ordered=True)
        return OutPage(entries, page.total, after if after < page.total else None)

    def _out_from(
        self,
        booked: list[whos_out.Booked],
        team: str | None,
        exclude: str | None = None,
        *,
        ordered: bool = False,
    ) -> list[OutEntry]:
        out = []
        for e in booked:
            person = self.directory.find(e.person)
            # someone who left, or moved out of the team since booking, is not shown for it
            if person is None or e.person == exclude:
                continue
            if team is not None and self.directory.team_of(e.person) != team:
                continue
            out.append(
                OutEntry(
                    e.person,
                    person.name,
                    e.start,
                    e.end,
                    e.start_half,
                    e.end_half,
                    e.tentative,
                    e.request_id,
                )
            )
        return out if ordered else sorted(out, key=lambda o: (o.start, o.name))

    async def pending_action(self, pending_id: str, viewer: str) -> PendingAction:
        """A pending action, for the one person it is bound to."""
        [raw] = await self.store.read(hmget_record(self.keys.pending(pending_id)))
        pending = versioned(PendingAction, raw, id=pending_id)
        if pending is None:
            raise NotFound(
                "This confirmation has expired or does not exist; please ask again.",
                zh="此确认已过期或不存在，请重新发起。",
            )
        if pending.actor != viewer:
            name = self.person(pending.actor).name
            raise NotAllowed(f"Only {name} can act on this.", zh=f"只有{name}可以操作。")
        return pending

    async def delegations(self) -> list[Delegation]:
        [raw] = await self.store.read(("hgetall", [self.keys.delegations]))
        return [Delegation.model_validate_json(v) for v in raw.values()]
