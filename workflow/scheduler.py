"""The schedule: reminders, escalations, expiry and delegation starts, claimed atomically by workers.

Transitions put due items in a sorted set (see transitions.schedule_step). A worker claims
due items with a lease (claim.lua); handling an item is a guarded transition that removes the
lease in the same Lua call, so an item is handled once even when two workers race, and a
worker that dies mid-run leaves a lease that runs out and is claimed again.

While the approver's suggestion of other dates waits for the requester's Accept or Decline,
the ball is in the requester's court: the approver's step is on hold, so no reminder or
escalation reaches the approver (or their manager). The requester's answer restarts the
approver's clock: the next reminder comes a reminder interval after the answer, and the
escalation a whole SLA after it, counted in the approver's working hours.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from functools import cached_property
from importlib import resources

import structlog

from workflow import accrual, away
from workflow.chain import FALLBACK_ROLE
from workflow.engine import Engine
from workflow.models import (
    CounterStatus,
    Delegation,
    EventType,
    Request,
    RequestStatus,
    RoutedReason,
    RoutingCode,
    Step,
)
from workflow.queries import APPROVALS_PAGE
from workflow.routing import route
from workflow.store import Conflict, Tx
from workflow.transitions import (
    Change,
    close_open_steps,
    move_leave,
    schedule_step,
    task_score,
    unschedule_step,
)
from workflow.worktime import add_working_hours, next_working_moment

log = structlog.get_logger("scheduler")
_CLAIM_LUA = resources.files("workflow").joinpath("lua", "claim.lua").read_text("utf-8")
LEASE_MS = 60_000


@dataclass(frozen=True)
class DueItem:
    kind: str  # remind | escalate | expire | delegate
    target: str  # a request id, or for delegate the person
    arg: str  # the step index, or the delegation id

    @classmethod
    def parse(cls, member: str) -> DueItem:
        kind, target, arg = member.split("|", 2)
        return cls(kind, target, arg)

    @property
    def member(self) -> str:
        return f"{self.kind}|{self.target}|{self.arg}"


class Scheduler:
    """Runs what is due for one organisation; any number of workers may share it."""

    def __init__(self, engine: Engine, *, lease_ms: int = LEASE_MS) -> None:
        self.engine = engine
        self.keys = engine.keys
        self.lease_ms = lease_ms
        self._claim = engine.store.redis.register_script(_CLAIM_LUA)
        self._seeded = False
        # nothing in accrual falls due before this instant (None: look at the next tick)
        self._accrual_next: datetime | None = None

    def _now(self) -> datetime:
        return self.engine.clock.now(UTC)

    async def claim(self, limit: int = 50) -> list[str]:
        """Due items for this worker, each now leased to it."""
        now_ms = int(self._now().timestamp() * 1000)
        return list(
            await self._claim(
                keys=[self.keys.due, self.keys.due_leases], args=[now_ms, self.lease_ms, limit]
            )
        )

    async def run_due(self, limit: int = 50) -> int:
        """Claim and handle due items; returns how many were handled."""
        done = 0
        for member in await self.claim(limit):
            await self.handle(member)
            done += 1
        return done

    async def handle(self, member: str) -> str:
        """Handle one claimed item once; a lost race re-reads and finds nothing left to do."""
        item = DueItem.parse(member)
        for _ in range(self.engine.max_attempts):
            try:
                outcome = await self._handle_once(item)
                log.info("due_item_handled", item=member, outcome=outcome)
                return outcome
            except Conflict:
                continue
        return "gave_up"

    async def _release(self, item: DueItem) -> str:
        await self.engine.store.apply(Tx().zrem(self.keys.due_leases, item.member))
        return "nothing_to_do"

    async def _handle_once(self, item: DueItem) -> str:
        if item.kind == "delegate":
            return await self._start_delegation(item)
        engine = self.engine
        req, avail = await away.read_with_reach(
            engine.store, self.keys, item.target, self._escalation_roles
        )
        if req is None or req.status is not RequestStatus.PENDING:
            return await self._release(item)
        step = req.open_step()
        if item.kind == "expire":
            return await self._expire(item, req)
        if step is None or str(step.index) != item.arg:
            return await self._release(item)
        if (held := self._held_until(item, req, step)) is not None:
            return await self._hold(item, held)
        if item.kind == "remind":
            return await self._remind(item, req, step)
        if item.kind == "escalate":
            return await self._escalate(item, req, step, avail)
        log.warning("unknown_due_item", item=item.member)
        return await self._release(item)

    def _held_until(self, item: DueItem, req: Request, step: Step) -> datetime | None:
        """When a reminder or escalation of a step that waited on its requester may run (None: now).

        A suggestion still open holds it one reminder interval at a time; once answered, the
        approver's clock counts from the answer.
        """
        c = req.counter
        if (
            c is None
            or c.step != step.index
            or (step.assigned_at is not None and c.at < step.assigned_at)  # escalated since
        ):
            return None
        now = self._now()
        holder = self.engine.directory.get(step.assignee or step.approver)
        hours = self.engine.config.policy.working_hours
        if c.status is CounterStatus.OPEN:
            return add_working_hours(now, step.remind_after_hours, holder, hours)
        if c.answered_at is None:  # lapsed: the step was decided, nothing holds it
            return None
        span = step.sla_hours if item.kind == "escalate" else step.remind_after_hours
        restart = add_working_hours(c.answered_at, span, holder, hours)
        return restart if restart > now else None

    async def _hold(self, item: DueItem, until: datetime) -> str:
        """Put the item back in the schedule for `until`, giving up its lease, in one write."""
        tx = Tx().zrem(self.keys.due_leases, item.member)
        tx.zadd(self.keys.due, int(until.timestamp() * 1000), item.member)
        await self.engine.store.apply(tx)
        return "held"

    async def _finish(self, item: DueItem, change: Change) -> None:
        change.tx.zrem(self.keys.due_leases, item.member)
        await self.engine.store.apply(change.finish(self.engine.setting))

    async def _remind(self, item: DueItem, req: Request, step: Step) -> str:
        if step.reminders >= step.max_reminders or step.assignee is None:
            return await self._release(item)
        change = Change(req, self._now())
        step.reminders += 1
        change.log(
            None,
            "reminded",
            step=step.index,
            comment=f"Automatic reminder {step.reminders} of {step.max_reminders}.",
        )
        change.emit(
            EventType.REMINDER_SENT,
            step=step.index,
            assignee=step.assignee,
            automatic=True,
            n=step.reminders,
        )
        schedule_step(
            change, step, self.engine.setting, reminder_only=True
        )  # the next, if any is left
        await self._finish(item, change)
        return "reminded"

    @cached_property
    def _escalation_roles(self) -> list[str]:
        """Holders of the roles a step may escalate to (their availability is read with the request)."""
        d = self.engine.directory
        roles = {FALLBACK_ROLE} | {
            s.escalate_to.partition(":")[2]
            for proc in self.engine.config.processes
            for s in proc.steps
            if s.escalate_to.startswith("role:")
        }
        return away.reach_of(d, (p.id for role in sorted(roles) for p in d.with_role(role)))

    def _escalation_target(self, req: Request, step: Step) -> str | None:
        d = self.engine.directory
        holder = step.assignee or step.approver
        kind, _, arg = step.escalate_to.partition(":")
        if kind == "role":
            candidates = [p.id for p in d.with_role(arg)]
        else:
            candidates = [p.id for p in d.managers_above(holder)] + [
                p.id for p in d.with_role(FALLBACK_ROLE)
            ]
        return next((c for c in candidates if c not in (req.requester, holder)), None)

    async def _escalate(self, item: DueItem, req: Request, step: Step, availability) -> str:
        target = self._escalation_target(req, step)
        if target is None:
            return await self._release(item)
        d = self.engine.directory
        r = route(target, req.requester, self.engine.today_for(target), d, availability)
        change = Change(req, self._now())
        old = step.assignee or step.approver
        change.tx.zrem(self.keys.user_open(old), req.id).zadd(
            self.keys.user_open(r.assignee), task_score(req), req.id
        )
        unschedule_step(change, step, self.engine.setting)
        step.assignee, step.assigned_at, step.reminders = r.assignee, change.now, 0
        step.escalations += 1
        why = RoutedReason(
            code=RoutingCode.ESCALATED, from_=old, to=r.assignee, hours=step.sla_hours
        )
        step.routed_reason = why
        change.log(None, "escalated", step=step.index, reason=why)
        change.emit(
            EventType.STEP_ESCALATED,
            step=step.index,
            assignee=r.assignee,
            previous=old,
            sla_hours=step.sla_hours,
        )
        schedule_step(change, step, self.engine.setting)
        await self._finish(item, change)
        return "escalated"

    async def _expire(self, item: DueItem, req: Request) -> str:
        change = Change(req, self._now())
        step = req.open_step()
        assignee = step.assignee if step else None
        close_open_steps(change, self.engine.setting)
        req.status, req.decided_at = RequestStatus.EXPIRED, change.now
        days = self.engine.config.policy.expire_after_days
        change.log(
            None,
            "expired",
            comment=f"No decision within {days} days; the request expired and its days were released.",
        )
        change.emit(EventType.REQUEST_EXPIRED, assignee=assignee)
        move_leave(change, self.engine.setting, RequestStatus.PENDING, None)
        await self._finish(item, change)
        return "expired"

    async def _start_delegation(self, item: DueItem) -> str:
        [raw] = await self.engine.store.read(
            ("hget", [self.keys.delegations, f"{item.target}|{item.arg}"])
        )
        if raw is None:
            return await self._release(item)
        delegation = Delegation.model_validate_json(raw)
        moved = await self.engine.reassign_to_delegate(delegation, release=item.member)
        return f"moved {moved}"

    # --- daily digests and weekly who's-out --------------------------------------------------

    async def periodic(self, limit: int = 500) -> int:
        """Queue each approver's morning digest and each manager's weekly who's-out, once each;
        credit leave accrual when a period starts.

        Driven by a due-time index (`periodic_due`): a tick reads the people whose digest or
        weekly DM is due now and moves each to its next due time, so its cost is what is due,
        not the size of the directory.
        """
        if not self._seeded:
            await self._seed()
        now = self._now()
        await self._accrue(now)
        now_ms = int(now.timestamp() * 1000)
        queued = 0
        while True:
            [due] = await self.engine.store.read(
                ("zrangebyscore", [self.keys.periodic_due, "-inf", now_ms, 0, limit])
            )
            if not due:
                return queued
            moves: dict[str, int] = {}
            for member in due:
                kind, _, person = member.partition("|")
                if self.engine.directory.find(person) is None:
                    moves[member] = -1  # left the organisation
                    continue
                if kind == "digest":
                    queued += await self._digest_if_due(person, now)
                elif kind == "weekly":
                    queued += await self._weekly_if_due(person, now)
                moves[member] = self._next_due(kind, person, now)
            tx = Tx()
            for member, at in moves.items():
                if at < 0:
                    tx.zrem(self.keys.periodic_due, member)
                else:
                    tx.zadd(self.keys.periodic_due, at, member)
            await self.engine.store.apply(tx)
            if len(due) < limit:
                return queued

    async def _accrue(self, now: datetime) -> None:
        """Credit the accrual periods fallen due (catching up any missed); between the starts of
        periods a tick costs nothing, once a pass has recorded everything due."""
        if self._accrual_next is not None and now < self._accrual_next:
            return
        done = await accrual.apply_due(self.engine, now)
        self._accrual_next = accrual.next_start(self.engine, now) if done.complete else None

    async def _seed(self) -> None:
        """Put everyone (and each manager's weekly) in the due index once per process; members
        already there keep their time (ZADD NX), so workers starting together agree."""
        engine, now = self.engine, self._now()
        managers = {p.manager for p in engine.directory if p.manager}
        batch: list[tuple[str, list[object]]] = []
        for person in engine.directory:
            batch.append(self._seed_call("digest", person.id, now))
            if person.id in managers:
                batch.append(self._seed_call("weekly", person.id, now))
            if len(batch) >= 1_000:
                await engine.store.read(*batch)
                batch = []
        await engine.store.read(*batch)
        self._seeded = True

    def _seed_call(self, kind: str, person: str, now: datetime) -> tuple[str, list[object]]:
        at = self._next_due(kind, person, now - timedelta(days=1))
        return ("zadd", [self.keys.periodic_due, {f"{kind}|{person}": at}, True])

    def _next_due(self, kind: str, person: str, after: datetime) -> int:
        """The first moment after `after` (ms) at which the person's digest or weekly DM is due."""
        policy = self.engine.config.policy
        local = after.astimezone(self.engine.directory.timezone_of(person))
        at = time.fromisoformat(policy.digest_time if kind == "digest" else policy.weekly_out_time)
        day = local.date()
        while True:
            moment = datetime.combine(day, at, local.tzinfo)
            if moment > local and (kind == "digest" or day.weekday() == policy.weekly_out_day):
                return int(moment.timestamp() * 1000)
            day += timedelta(days=1)

    async def _digest_if_due(self, person_id: str, now: datetime) -> int:
        policy = self.engine.config.policy
        person = self.engine.directory.get(person_id)
        local = now.astimezone(self.engine.directory.timezone_of(person_id))
        if local.time() < time.fromisoformat(policy.digest_time):
            return 0
        if next_working_moment(local, person, policy.working_hours).date() != local.date():
            return 0  # not a working day for them
        return await self._queue_digest(person_id, local.date().isoformat())

    async def _weekly_if_due(self, manager: str, now: datetime) -> int:
        policy = self.engine.config.policy
        local = now.astimezone(self.engine.directory.timezone_of(manager))
        if local.weekday() != policy.weekly_out_day or local.time() < time.fromisoformat(
            policy.weekly_out_time
        ):
            return 0
        return await self._queue_weekly(manager, local.date())

    async def _queue_once(
        self, kind: str, person: str, period: str, event: EventType, data: dict
    ) -> int:
        flag = self.keys.periodic(kind, person, period)
        tx = Tx().expect(flag, 0).hincrby(flag, "v", 1).pexpire(flag, 8 * 86_400_000)
        tx.xadd(
            self.keys.outbox,
            {
                "type": event.value,
                "request_id": "-",
                "org": self.keys.org,
                "at": self._now().isoformat(),
                "data": json.dumps(data, default=str, separators=(",", ":")),
            },
        )
        try:
            await self.engine.store.apply(tx)
        except Conflict:  # another worker queued it
            return 0
        return 1

    async def _queue_digest(self, person: str, day: str) -> int:
        # items assigned since this morning's digest time already came with their own card today
        tz = self.engine.directory.timezone_of(person)
        morning = datetime.combine(
            date.fromisoformat(day), time.fromisoformat(self.engine.config.policy.digest_time), tz
        )
        mine = await self.engine.my_approvals(person)
        waited = [r for r in mine.requests if _assigned_before(r, morning)]
        if not waited and mine.total > len(mine.requests):
            # the oldest page all reached them this morning: one of the rest may have waited
            # longer (a step moves on to them in its own time, not in order of submission)
            mine = await self.engine.my_approvals(person, limit=mine.total)
            waited = [r for r in mine.requests if _assigned_before(r, morning)]
        if not waited:  # anything assigned later today comes with its own card
            return 0
        # the digest counts everything waiting (as its card does), and names the oldest
        ids = [r.id for r in waited[:APPROVALS_PAGE]]
        data = {"person": person, "count": mine.total, "request_ids": ids}
        return await self._queue_once("digest", person, day, EventType.DAILY_DIGEST, data)

    async def _queue_weekly(self, manager: str, today) -> int:
        year, week, _ = today.isocalendar()
        period = f"{year}-W{week:02d}"
        monday = today + timedelta(days=7 - today.weekday())
        data = {
            "person": manager,
            "team": self.engine.directory.team_of(manager),
            "start": monday.isoformat(),
            "end": (monday + timedelta(days=4)).isoformat(),
        }
        return await self._queue_once("weekly", manager, period, EventType.WEEKLY_OUT, data)


def _assigned_before(request: Request, moment: datetime) -> bool:
    """Its open step was assigned to its holder before `moment`."""
    step = request.open_step()
    return step is not None and step.assigned_at is not None and step.assigned_at < moment
