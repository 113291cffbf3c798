"""The approvals engine: prepare actions, confirm them once, and run every transition atomically.

Each transition reads what it needs in one round trip, decides in Python, and writes with one
guarded Lua call (see store.py). When a guard fails, another writer won the race: the
transition re-reads and either finds its work already done (and returns that) or recomputes.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar

import redis.asyncio as aioredis
import structlog

from workflow import acting, away, bulk, counter, delegation, leave
from workflow.chain import resolve_chain
from workflow.clock import Clock
from workflow.config import OrgConfig
from workflow.errors import (
    ConcurrentUpdate,
    FieldProblem,
    InvalidState,
    NotAllowed,
    NotFound,
    SeparationOfDuties,
    TooSoon,
    ValidationFailed,
)
from workflow.fields import validate_fields
from workflow.leave import Balance
from workflow.models import (
    Decision,
    Delegation,
    EventType,
    HistoryEntry,
    PendingAction,
    PendingKind,
    PendingStatus,
    Request,
    RequestStatus,
    StepStatus,
)
from workflow.payloads import (
    CounterPayload,
    DecidePayload,
    DelegatePayload,
    RemindPayload,
    SubmitPayload,
    WithdrawPayload,
    pending_payload,
)
from workflow.queries import Queries
from workflow.routing import may_decide
from workflow.store import Conflict, Tx, hmget_record, versioned
from workflow.transitions import (
    Change,
    Setting,
    advance,
    close_open_steps,
    due_member,
    move_leave,
    unschedule_step,
)

log = structlog.get_logger("workflow")
_STATUS_ZH = {
    RequestStatus.DRAFT: "是草稿",
    RequestStatus.PENDING: "在审批中",
    RequestStatus.APPROVED: "批准",
    RequestStatus.REJECTED: "驳回",
    RequestStatus.WITHDRAWN: "撤回",
    RequestStatus.EXPIRED: "过期",
}
T = TypeVar("T")


def status_zh(status: RequestStatus) -> str:
    """A request status as a Chinese sentence's verb phrase ("已批准" reads 已 + this)."""
    return _STATUS_ZH[status]


def step_not_open(request_id: str, index: int) -> InvalidState:
    """The refusal of an action on a step that is not (or no longer) the open one."""
    return InvalidState(
        f"Step {index + 1} of request {request_id} is not open; nothing changed.",
        zh=f"申请 {request_id} 的第 {index + 1} 步还未开始或已结束，未做任何更改。",
    )


_ID_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O or 1/I: ids are read aloud


def new_id(prefix: str, length: int) -> str:
    return prefix + "".join(secrets.choice(_ID_ALPHABET) for _ in range(length))


def digest_of(
    kind: PendingKind, schema_version: int, request_id: str, payload: Mapping[str, Any]
) -> str:
    """The fingerprint of a pending action's exact contents."""
    body = json.dumps(
        [kind.value, schema_version, request_id, payload], sort_keys=True, default=str
    )
    return hashlib.sha256(body.encode()).hexdigest()


@dataclass(frozen=True)
class Proposal:
    """A prepared action: what the confirm card shows and the id its buttons carry."""

    pending: PendingAction
    request: Request
    balance_after: Balance | None = None
    working_days: float | None = None  # a counter-offer's: those of the dates it suggests


@dataclass(frozen=True)
class Outcome:
    """The result of confirming a pending action; `repeated` when it had already run."""

    kind: PendingKind
    request: Request | None  # None for a delegation, which belongs to no request
    pending_id: str
    repeated: bool = False
    delegation: Delegation | None = None


class Engine(Queries):
    """Every state change of the approvals workflow, authorized and atomic."""

    # the engine's shared refusals, for the transition modules that take the engine
    status_zh = staticmethod(status_zh)
    step_not_open = staticmethod(step_not_open)

    def __init__(
        self,
        config: OrgConfig,
        redis: aioredis.Redis,
        clock: Clock,
        *,
        max_attempts: int = 25,
        coalesce: bool = False,
    ) -> None:
        super().__init__(config, redis, clock, coalesce=coalesce)
        self.max_attempts = max_attempts
        self.setting = Setting(self.directory, clock, self.keys, config.policy)

    async def _retrying(self, what: str, attempt: Callable[[], Awaitable[T]]) -> T:
        """Run `attempt` until no guard fails; losing a race re-reads, it never double-writes."""
        for n in range(self.max_attempts):
            try:
                return await attempt()
            except Conflict as c:
                log.debug("transition_conflict", what=what, key=c.key, attempt=n + 1)
                await asyncio.sleep(random.uniform(0, 0.002 * (n + 1)))
        raise ConcurrentUpdate(f"Too many simultaneous changes to this {what}; please try again.")

    def _utc_today(self) -> date:
        return self.clock.now(UTC).date()

    def _now(self, person_id: str) -> datetime:
        """Now, for this person: with a fixed demo clock, that is its wall time where they are."""
        return self.clock.now(self.directory.timezone_of(person_id))

    # --- submit -----------------------------------------------------------------------------

    async def prepare_submit(
        self,
        actor: str,
        process_key: str,
        fields: Mapping[str, Any],
        *,
        replaces: str | None = None,
        on_behalf_of: str | None = None,
        _fresh_ids: int = 2,
    ) -> Proposal:
        """Validate a new request as if submitting it and store it as a draft awaiting the requester's click.

        `replaces` names the open pending action of an earlier draft that this one corrects;
        that one is cancelled in the same step (drafts never change once shown).
        `on_behalf_of` makes the request that person's, filed by `actor` (HR only): their
        calendar, balance and approval chain; the draft awaits the actor's click.
        """
        process = self.process(process_key)
        requester = on_behalf_of or actor
        if requester != actor:
            acting.check(self, actor, requester, process.kind)
        person = self.person(requester)
        today = self.today_for(requester)
        clean = validate_fields(process, fields, self.config, today)
        derived = leave.derive(clean, person)
        leave_type = None
        if process.kind == "leave":
            leave_type = self.config.leave_types_by_key[clean["leave_type"]]
            leave.check_reason(leave_type, clean)
            leave.check_dates(clean, derived, today, self.config)
        request_id = new_id("R-", 8)
        reads: list[tuple[str, Any]] = [("hgetall", [self.keys.ledger(requester)])]
        if replaces:
            reads.append(hmget_record(self.keys.pending(replaces)))
        got = await self.store.read(*reads)
        ledger = got[0]
        balance_after = None
        if leave_type is not None:
            leave.check_overlap(
                leave.entry_for(request_id, requester, clean, RequestStatus.PENDING), ledger
            )
            leave.check_balance(ledger, leave_type, person, derived["days_by_year"])
        # after the person's own limits: a balance too low says so before who would approve it
        filed_by = actor if requester != actor else None
        steps = resolve_chain(
            process, person, {**clean, **derived}, self.directory, filed_by=filed_by
        )
        now = self._now(actor)
        request = Request(
            id=request_id,
            process=process.key,
            kind=process.kind,
            requester=requester,
            status=RequestStatus.DRAFT,
            fields=clean,
            derived=derived,
            steps=steps,
            created_at=now,
            filed_by=filed_by,
        )
        request.history.append(HistoryEntry(at=now, actor=actor, action="drafted"))
        payload = {"fields": clean, "derived": derived, "approvers": [s.approver for s in steps]}
        ttl = timedelta(hours=self.config.policy.pending_action_ttl_hours)
        pending = PendingAction(
            id=new_id("P-", 16),
            kind=PendingKind.SUBMIT,
            actor=actor,
            request_id=request.id,
            payload=payload,
            digest=digest_of(PendingKind.SUBMIT, 1, request.id, payload),
            created_at=now,
            expires_at=now + ttl,
        )
        if leave_type is not None:
            year = request.leave_start().year
            b = leave.balance(ledger, leave_type, person, year)
            taken = float(derived["days_by_year"].get(str(year), 0))
            balance_after = Balance(b.leave_type, year, b.allowance, b.used, b.reserved + taken)
        tx = Tx()
        if replaces:
            old = versioned(PendingAction, got[1], id=replaces)
            if old is not None and old.actor == actor and old.status is PendingStatus.OPEN:
                self._close_into(tx, old, PendingStatus.CANCELLED, {"replaced_by": pending.id})
        req_key, pending_key = self.keys.request(request.id), self.keys.pending(pending.id)
        tx.expect(req_key, 0).put(req_key, request)
        tx.hset(req_key, away.REACH_FIELD, away.request_reach(self.directory, request))
        tx.pexpire(req_key, self.config.policy.draft_ttl_days * 86_400_000)
        tx.expect(pending_key, 0).put(pending_key, pending)
        # kept past expiry so a late click is told "expired", not "unknown"
        tx.pexpire(pending_key, int((ttl + timedelta(days=7)).total_seconds() * 1000))
        try:
            await self.store.apply(tx)
        except Conflict as c:
            # A random id already taken (about one draft in a million once a million requests
            # exist): nothing was written, so draw new ids rather than fail the person's draft.
            if c.key not in (req_key, pending_key) or _fresh_ids <= 0:
                raise
            log.info("draft_id_taken", key=c.key)
            return await self.prepare_submit(
                actor,
                process_key,
                fields,
                replaces=replaces,
                on_behalf_of=on_behalf_of,
                _fresh_ids=_fresh_ids - 1,
            )
        log.info(
            "request_drafted",
            request_id=request.id,
            process=process.key,
            actor=actor,
            pending_id=pending.id,
        )
        return Proposal(pending, request, balance_after)

    async def submit(self, draft_id: str, actor: str) -> Request:
        """Turn a draft into a pending request (idempotent: a second call returns the request)."""
        return await self._retrying("request", lambda: self._submit_once(draft_id, actor, None))

    async def _submit_once(
        self, draft_id: str, actor: str, pending: PendingAction | None
    ) -> Request:
        req_key = self.keys.request(draft_id)
        raw, ledger, reachable = await self.store.read(
            hmget_record(req_key),
            ("hgetall", [self.keys.ledger(actor)]),
            away.read(self.keys, req_key),
        )
        req = versioned(Request, raw)
        if req is None:
            raise NotFound(f"The draft {draft_id} has expired or does not exist; please ask again.")
        # the draft's author submits it: the requester, or HR who filed it for them
        if req.requester != actor and req.filed_by != actor:
            name = self.person(req.requester).name
            raise NotAllowed(
                f"Only {name} can submit this request.", zh=f"只有{name}可以提交这个申请。"
            )
        if req.status is not RequestStatus.DRAFT:
            await self._close_pending(pending, req)
            return req
        requester = req.requester
        if requester != actor:  # HR filed it: still HR now, and the requester's ledger pays
            acting.check(self, actor, requester, req.kind)
            [ledger] = await self.store.read(("hgetall", [self.keys.ledger(requester)]))
        if pending is not None and pending.digest != digest_of(
            PendingKind.SUBMIT,
            pending.schema_version,
            req.id,
            {
                "fields": req.fields,
                "derived": req.derived,
                "approvers": [s.approver for s in req.steps],
            },
        ):
            raise InvalidState("This draft no longer matches what was shown; please ask again.")
        person = self.person(requester)
        ledger_version = int(ledger.get("v", 0))
        if req.is_leave:
            leave_type = self.config.leave_types_by_key[req.fields["leave_type"]]
            leave.check_overlap(
                leave.entry_for(req.id, requester, req.fields, RequestStatus.PENDING), ledger
            )
            leave.check_balance(ledger, leave_type, person, req.derived["days_by_year"])
        change = Change(req, self._now(actor))
        req.status = RequestStatus.PENDING
        req.submitted_at = change.now
        change.log(actor, "submitted")
        change.emit(EventType.REQUEST_SUBMITTED)
        if acting.acted_for(req, actor):
            acting.tell(change, actor, "submitted")
        advance(change, 0, self.setting, away.parse(reachable))
        if req.status is RequestStatus.PENDING:
            expires = change.now + timedelta(days=self.config.policy.expire_after_days)
            change.tx.zadd(
                self.keys.due, int(expires.timestamp() * 1000), due_member("expire", req.id)
            )
        move_leave(change, self.setting, RequestStatus.DRAFT, ledger_version)
        tx = change.tx
        tx.persist(self.keys.request(req.id))
        score = int(change.now.timestamp() * 1000)
        tx.zadd(self.keys.user_requests(requester), score, req.id)
        tx.zadd(self.keys.all_requests, score, req.id)
        self._confirm_into(tx, pending, req)
        await self.store.apply(change.finish(self.setting))
        log.info(
            "request_submitted",
            request_id=req.id,
            actor=actor,
            status=req.status.value,
            step=req.current_step,
        )
        return req

    # --- decide ---------------------------------------------------------------------------

    async def prepare_decision(
        self, actor: str, request_id: str, decision: Decision | str, comment: str | None = None
    ) -> Proposal:
        """Check that `actor` may decide the open step now and store the decision for their click."""
        decision = _decision(decision)
        request = await self.get_request(request_id, actor)
        step = request.open_step()
        if step is None:
            raise InvalidState(
                f"Request {request_id} is {request.status.value}; there is nothing to decide.",
                zh=f"申请 {request_id} 已{_STATUS_ZH[request.status]}，没有需要审批的步骤。",
            )
        [reachable] = await self.store.read(
            away.read(self.keys, self.keys.request(request_id), [actor])
        )
        self._check_decider(request, step.index, actor, decision, comment, away.parse(reachable))
        payload = {"step": step.index, "decision": decision.value, "comment": comment}
        return await self._store_pending(PendingKind.DECIDE, actor, request, payload)

    async def decide(
        self,
        request_id: str,
        step: int,
        actor: str,
        decision: Decision | str,
        comment: str | None = None,
    ) -> Request:
        """Record the decision on (request, step) once; repeating the same decision returns the request."""
        decision = _decision(decision)
        return await self._retrying(
            "request", lambda: self._decide_once(request_id, step, actor, decision, comment, None)
        )

    def _check_decider(
        self, req: Request, index: int, actor: str, decision: Decision, comment: str | None, avail
    ) -> None:
        if actor == req.requester:
            raise NotAllowed(
                "Nobody can approve or reject their own request.", zh="任何人都不能审批自己的申请。"
            )
        if actor == req.filed_by:  # separation of duties: HR who filed it does not decide it
            name = self.person(req.requester).name
            raise SeparationOfDuties(
                f"You filed request {req.id} for {name}, so someone else on its approval chain "
                "must decide it; nothing changed.",
                zh=f"申请 {req.id} 是你代{name}提交的，须由审批链上的其他人审批，未做任何更改。",
            )
        step = req.steps[index]
        today = self.today_for(actor)
        # the chain's own approver keeps the right to decide a step routed past them (delegated,
        # out of office, escalated): a late decision is still theirs to make
        holds = step.assignee is not None and may_decide(actor, step.assignee, today, avail)
        if not (holds or (step.assignee is not None and actor == step.approver)):
            holder = self.person(step.assignee).name if step.assignee else "nobody yet"
            raise NotAllowed(
                f"Step {index + 1} of request {req.id} is assigned to {holder}; only they or their delegate can decide it.",
                zh=f"申请 {req.id} 的第 {index + 1} 步由{holder}审批，只有本人或其代理人可以处理。",
            )
        if decision is Decision.REJECT and not (comment or "").strip():
            raise ValidationFailed(
                "Please give a reason for the rejection.",
                zh="驳回时请填写理由。",
                problems={"comment": FieldProblem("reject_reason", "is required to reject")},
            )

    async def _decide_once(
        self,
        request_id: str,
        index: int,
        actor: str,
        decision: Decision,
        comment: str | None,
        pending: PendingAction | None,
    ) -> Request:
        req, avail = await away.read_with_reach(self.store, self.keys, request_id, [actor])
        if req is None or req.status is RequestStatus.DRAFT:
            raise NotFound(f"There is no submitted request {request_id}.")
        self.person(actor)
        if not 0 <= index < len(req.steps):
            raise ValidationFailed(
                f"Request {request_id} has no step {index + 1}.",
                zh=f"申请 {request_id} 没有第 {index + 1} 步。",
                problems={"step": FieldProblem("no_step", "does not exist", n=index + 1)},
            )
        step = req.steps[index]
        done = {Decision.APPROVE: StepStatus.APPROVED, Decision.REJECT: StepStatus.REJECTED}[
            decision
        ]
        if step.status in (StepStatus.APPROVED, StepStatus.REJECTED, StepStatus.AUTO_APPROVED):
            if step.decided_by == actor and step.status is done:
                await self._close_pending(pending, req)
                return req  # the same click again: already recorded
            who = self.person(step.decided_by).name if step.decided_by else "the process rules"
            raise InvalidState(
                f"Step {index + 1} of request {request_id} was already {step.status.value.replace('_', ' ')} "
                f"by {who}; nothing changed.",
                zh=f"申请 {request_id} 的第 {index + 1} 步已由{who}处理，未做任何更改。",
            )
        if req.status is not RequestStatus.PENDING:
            raise InvalidState(
                f"Request {request_id} is {req.status.value}; there is nothing left to decide.",
                zh=f"申请 {request_id} 已{_STATUS_ZH[req.status]}，没有需要审批的步骤。",
            )
        if req.current_step != index:
            raise step_not_open(request_id, index)
        self._check_decider(req, index, actor, decision, comment, avail)
        change = Change(req, self._now(actor))
        step.status, step.decided_by, step.decided_at = done, actor, change.now
        step.comment = (comment or "").strip() or None
        on_behalf = (
            f" (on behalf of {self.person(step.assignee).name})"
            if actor not in (step.assignee, step.approver)
            else ""
        )
        done_word = "approved" if decision is Decision.APPROVE else "rejected"
        change.log(actor, done_word + on_behalf, step=index, comment=step.comment)
        change.tx.zrem(self.keys.user_open(step.assignee), req.id)
        unschedule_step(change, step, self.setting)
        before = req.status
        if decision is Decision.REJECT:
            req.status, req.decided_at = RequestStatus.REJECTED, change.now
            close_open_steps(change, self.setting)
            change.emit(EventType.REQUEST_REJECTED, step=index, by=actor, comment=step.comment)
        else:
            change.emit(EventType.STEP_APPROVED, step=index, by=actor, comment=step.comment)
            advance(change, index + 1, self.setting, avail)
        move_leave(change, self.setting, before, None)
        self._confirm_into(change.tx, pending, req)
        await self.store.apply(change.finish(self.setting))
        log.info(
            "request_decided",
            request_id=req.id,
            step=index,
            actor=actor,
            decision=decision.value,
            status=req.status.value,
        )
        return req

    # --- counter-offers and bulk decisions (workflow/counter.py, workflow/bulk.py) -------------

    async def counter(
        self,
        actor: str,
        request_id: str,
        step: int,
        dates: counter.Dates,
        comment: str | None = None,
    ) -> Request:
        """The approver holding `step` suggests other dates (their form's submit is the click)."""
        return await self._retrying(
            "request",
            lambda: counter.propose_once(self, request_id, step, actor, dates, comment, None),
        )

    async def prepare_counter(
        self,
        actor: str,
        request_id: str,
        dates: counter.Dates,
        comment: str | None = None,
    ) -> Proposal:
        """Check a suggestion of other dates as if making it, and store it for the approver's click."""
        request = counter._open_leave(self, await self.get_request(request_id, actor), request_id)
        step = request.open_step()
        assert step is not None  # a pending request has an open step
        [reachable] = await self.store.read(
            away.read(self.keys, self.keys.request(request_id), [actor])
        )
        counter.check_proposal(self, request, step.index, actor, away.parse(reachable), dates)
        [ledger] = await self.store.read(("hgetall", [self.keys.ledger(request.requester)]))
        _, derived = counter.check_dates(self, request, dates, ledger, for_approver=True)
        payload = {"step": step.index, **dates.fields(), "comment": comment}
        stored = await self._store_pending(PendingKind.COUNTER, actor, request, payload)
        return replace(stored, working_days=derived["working_days"])

    async def answer_counter(self, actor: str, request_id: str, accept: bool) -> Request:
        """The requester accepts (the request takes the suggested dates) or declines them."""
        return await self._retrying(
            "request", lambda: counter.answer_once(self, request_id, actor, accept)
        )

    async def decide_many(
        self,
        actor: str,
        items: list[bulk.Item],
        decision: Decision | str = Decision.APPROVE,
        comment: str | None = None,
    ) -> list[bulk.ItemOutcome]:
        """Decide several steps for one approver, each on its own; one outcome per item."""
        return await bulk.decide_many(self, actor, items, _decision(decision), comment)

    # --- withdraw and remind ------------------------------------------------------------------

    async def prepare_withdraw(
        self, actor: str, request_id: str, reason: str | None = None
    ) -> Proposal:
        """Store the requester's (or HR's, for them) withdrawal of an undecided request for the click."""
        request = await self.get_request(request_id, actor)
        self._check_withdraw(request, actor)
        return await self._store_pending(PendingKind.WITHDRAW, actor, request, {"reason": reason})

    async def withdraw(self, request_id: str, actor: str, reason: str | None = None) -> Request:
        """Withdraw a pending request (the requester, or HR for them); a second call returns the request."""
        return await self._retrying(
            "request", lambda: self._withdraw_once(request_id, actor, reason, None)
        )

    def _check_withdraw(self, req: Request, actor: str) -> None:
        if req.requester != actor:
            if not acting.may_act_for(self, actor):
                name = self.person(req.requester).name
                raise NotAllowed(
                    f"Only {name} (or HR on their behalf) can withdraw request {req.id}.",
                    zh=f"只有{name}本人（或人事代办）可以撤回申请 {req.id}。",
                )
            acting.check(self, actor, req.requester, req.kind)
        if req.status is RequestStatus.DRAFT:
            raise InvalidState(
                f"Request {req.id} was never submitted; there is nothing to withdraw.",
                zh=f"申请 {req.id} 尚未提交，无需撤回。",
            )
        if req.status.is_final and req.status is not RequestStatus.WITHDRAWN:
            raise InvalidState(
                f"Request {req.id} is already {req.status.value}; it can no longer be withdrawn. Ask HR if it must change.",
                zh=f"申请 {req.id} 已{_STATUS_ZH[req.status]}，不能再撤回。如需更改请联系人事。",
            )

    async def _withdraw_once(
        self, request_id: str, actor: str, reason: str | None, pending: PendingAction | None
    ) -> Request:
        [raw] = await self.store.read(hmget_record(self.keys.request(request_id)))
        req = versioned(Request, raw)
        if req is None:
            raise NotFound(f"There is no request {request_id}.")
        self._check_withdraw(req, actor)
        if req.status is RequestStatus.WITHDRAWN:
            await self._close_pending(pending, req)
            return req
        change = Change(req, self._now(actor))
        step = req.open_step()
        assignee = step.assignee if step else None
        close_open_steps(change, self.setting)
        req.status, req.decided_at = RequestStatus.WITHDRAWN, change.now
        change.log(actor, "withdrawn", comment=(reason or "").strip() or None)
        change.emit(EventType.REQUEST_WITHDRAWN, assignee=assignee, reason=reason)
        if acting.acted_for(req, actor):
            acting.tell(change, actor, "withdrawn")
        move_leave(change, self.setting, RequestStatus.PENDING, None)
        self._confirm_into(change.tx, pending, req)
        await self.store.apply(change.finish(self.setting))
        log.info("request_withdrawn", request_id=req.id, actor=actor)
        return req

    async def prepare_remind(
        self, actor: str, request_id: str, note: str | None = None
    ) -> Proposal:
        """Store a reminder to the current approver for the requester's click."""
        request = await self.get_request(request_id, actor)
        self._check_remind(request, actor)
        return await self._store_pending(PendingKind.REMIND, actor, request, {"note": note})

    def _check_remind(self, req: Request, actor: str) -> None:
        if req.requester != actor:
            name = self.person(req.requester).name
            raise NotAllowed(
                f"Only {name} can send reminders for request {req.id}.",
                zh=f"只有{name}可以为申请 {req.id} 发送催办。",
            )
        if req.open_step() is None:
            raise InvalidState(
                f"Request {req.id} is {req.status.value}; nobody needs reminding.",
                zh=f"申请 {req.id} 已{_STATUS_ZH[req.status]}，无需催办。",
            )
        gap = timedelta(hours=self.process(req.process).reminder_min_interval_hours)
        now = self._now(actor)
        if req.last_reminded_at is not None and now < req.last_reminded_at + gap:
            next_at = (req.last_reminded_at + gap).astimezone(self.directory.timezone_of(actor))
            hours = f"{gap.total_seconds() / 3600:g}"
            raise TooSoon(  # people read it from agent/refusals.py, in their words and zone
                f"A reminder was already sent for request {req.id}; the next one can go after "
                f"{next_at:%Y-%m-%d %H:%M %Z} (at most one every {hours} hours).",
                zh=f"申请 {req.id} 刚催办过，下次最早可在 {next_at:%Y-%m-%d %H:%M %Z} 发送（每 {hours} 小时最多一次）。",
                next_at=next_at,
                now=now,
                hours=hours,
            )

    async def _remind_once(
        self, request_id: str, actor: str, note: str | None, pending: PendingAction
    ) -> Request:
        [raw] = await self.store.read(hmget_record(self.keys.request(request_id)))
        req = versioned(Request, raw)
        if req is None:
            raise NotFound(f"There is no request {request_id}.")
        self._check_remind(req, actor)
        step = req.open_step()
        assert step is not None and step.assignee is not None
        change = Change(req, self._now(actor))
        req.last_reminded_at = change.now
        change.log(actor, "reminded", step=step.index, comment=(note or "").strip() or None)
        change.emit(
            EventType.REMINDER_SENT, step=step.index, assignee=step.assignee, note=note, by=actor
        )
        self._confirm_into(change.tx, pending, req)
        await self.store.apply(change.finish(self.setting))
        return req

    # --- pending actions ----------------------------------------------------------------------

    async def _store_pending(
        self, kind: PendingKind, actor: str, request: Request, payload: dict[str, Any]
    ) -> Proposal:
        now = self._now(actor)
        ttl = timedelta(hours=self.config.policy.pending_action_ttl_hours)
        pending = PendingAction(
            id=new_id("P-", 16),
            kind=kind,
            actor=actor,
            request_id=request.id,
            payload=payload,
            digest=digest_of(kind, 1, request.id, payload),
            created_at=now,
            expires_at=now + ttl,
        )
        key = self.keys.pending(pending.id)
        tx = (
            Tx()
            .expect(key, 0)
            .put(key, pending)
            .pexpire(key, int((ttl + timedelta(days=7)).total_seconds() * 1000))
        )
        await self.store.apply(tx)
        log.info(
            "action_prepared",
            kind=kind.value,
            request_id=request.id,
            actor=actor,
            pending_id=pending.id,
        )
        return Proposal(pending, request)

    def _confirm_into(self, tx: Tx, pending: PendingAction | None, req: Request) -> None:
        """Mark the pending action done in the same atomic step as the change it confirms.

        No result is kept: a repeat click reads the request itself, as it is by then.
        """
        if pending is None or pending.status is not PendingStatus.OPEN:
            return
        self._close_into(tx, pending, PendingStatus.CONFIRMED)

    def _close_into(
        self,
        tx: Tx,
        pending: PendingAction,
        status: PendingStatus,
        kept: dict[str, Any] | None = None,
    ) -> Tx:
        """Close the pending action (`kept`: what a later click still reads) and queue its
        write, guarded by the version it was read at, so a click counts once."""
        pending.close(status, kept)
        key = self.keys.pending(pending.id)
        return tx.expect(key, pending.version).put(key, pending)

    async def _close_pending(self, pending: PendingAction | None, req: Request) -> None:
        """The change was already made (another click won): record the pending action as done."""
        if pending is None or pending.status is not PendingStatus.OPEN:
            return
        tx = Tx()
        self._confirm_into(tx, pending, req)
        await self.store.apply(tx)

    async def confirm(self, pending_id: str, actor: str) -> Outcome:
        """Run a pending action for the one person it is bound to; a second confirm returns the first result."""

        async def attempt() -> Outcome:
            pending = await self.pending_action(pending_id, actor)
            if pending.status is PendingStatus.CONFIRMED:
                if pending.kind is PendingKind.DELEGATE:
                    return Outcome(pending.kind, None, pending.id, repeated=True)
                [raw] = await self.store.read(hmget_record(self.keys.request(pending.request_id)))
                req = versioned(Request, raw)
                if req is None:
                    raise NotFound(f"Request {pending.request_id} no longer exists.")
                return Outcome(pending.kind, req, pending.id, repeated=True)
            if pending.status is PendingStatus.CANCELLED:
                raise InvalidState(
                    "This was cancelled; nothing was done. Ask again if you still want it.",
                    zh="此操作已取消，未做任何更改。如仍需要请重新发起。",
                )
            if pending.expired(self._now(actor)):
                raise InvalidState(
                    "This confirmation has expired; nothing was done. Please ask again.",
                    zh="此确认已过期，未做任何更改。请重新发起。",
                )
            match pending_payload(pending):
                case SubmitPayload():
                    req = await self._submit_once(pending.request_id, actor, pending)
                case DecidePayload() as p:
                    req = await self._decide_once(
                        pending.request_id, p.step, actor, p.decision, p.comment, pending
                    )
                case WithdrawPayload() as p:
                    req = await self._withdraw_once(pending.request_id, actor, p.reason, pending)
                case RemindPayload() as p:
                    req = await self._remind_once(pending.request_id, actor, p.note, pending)
                case CounterPayload() as p:
                    dates = counter.Dates(p.start, p.end, p.start_half, p.end_half)
                    req = await counter.propose_once(
                        self, pending.request_id, p.step, actor, dates, p.comment, pending
                    )
                case DelegatePayload() as p:
                    return await self._delegate_once(pending, p, actor)
            return Outcome(pending.kind, req, pending.id)

        return await self._retrying("confirmation", attempt)

    async def _delegate_once(
        self, pending: PendingAction, p: DelegatePayload, actor: str
    ) -> Outcome:
        d = Delegation(
            id=new_id("D-", 8),
            person=actor,
            delegate=p.delegate,
            start=p.start,
            end=p.end,
            reason=p.reason,
        )
        tx = await delegation.store(self, d)
        self._close_into(tx, pending, PendingStatus.CONFIRMED, {"delegation_id": d.id})
        await delegation.reassign(self, d, tx=tx)
        return Outcome(pending.kind, None, pending.id, delegation=d)

    async def cancel(self, pending_id: str, actor: str) -> PendingAction:
        """Drop a pending action (its person only); cancelling twice is harmless."""

        async def attempt() -> PendingAction:
            pending = await self.pending_action(pending_id, actor)
            if pending.status is PendingStatus.CONFIRMED:
                raise InvalidState(
                    "This was already confirmed, so it cannot be cancelled; withdraw the request instead.",
                    zh="此操作已确认，无法取消；如需撤销请撤回申请。",
                )
            if pending.status is PendingStatus.CANCELLED:
                return pending
            await self.store.apply(self._close_into(Tx(), pending, PendingStatus.CANCELLED))
            log.info("action_cancelled", pending_id=pending.id, kind=pending.kind.value)
            return pending

        return await self._retrying("confirmation", attempt)

    async def supersede(self, pending_id: str, actor: str, by: str) -> bool:
        """Retire an open pending action that a newer one (`by`) replaces; False if it was not open."""

        async def attempt() -> bool:
            pending = await self.pending_action(pending_id, actor)
            if pending.status is not PendingStatus.OPEN:
                return False
            await self.store.apply(
                self._close_into(Tx(), pending, PendingStatus.CANCELLED, {"replaced_by": by})
            )
            log.info("action_superseded", pending_id=pending.id, by=by)
            return True

        return await self._retrying("confirmation", attempt)

    # --- delegation -------------------------------------------------------------------------

    async def set_delegation(
        self, actor: str, delegate: str, start: date, end: date, reason: str | None = None
    ) -> Delegation:
        """Let `delegate` hold and decide `actor`'s approval steps from start to end (inclusive).

        Open steps move to the delegate now if the delegation is in force, else on its first day;
        new steps route to the delegate while it lasts.
        """
        delegation.check(self, actor, delegate, start, end)
        d = Delegation(
            id=new_id("D-", 8), person=actor, delegate=delegate, start=start, end=end, reason=reason
        )
        tx = await delegation.store(self, d)
        await delegation.reassign(self, d, tx=tx)
        log.info("delegation_set", actor=actor, delegate=delegate, start=str(start), end=str(end))
        return d

    async def reassign_to_delegate(self, d: Delegation, release: str | None = None) -> int:
        """Hand the person's open steps to their delegate (the scheduler calls this on the first day)."""
        return await delegation.reassign(self, d, release=release)

    async def prepare_delegation(
        self, actor: str, delegate: str, start: date, end: date, reason: str | None = None
    ) -> Proposal:
        """Store a delegation for the actor's click (the agent's propose_delegation)."""
        delegation.check(self, actor, delegate, start, end)
        payload = {
            "delegate": delegate,
            "start": start.isoformat(),
            "end": end.isoformat(),
            "reason": reason,
        }
        placeholder = Request.model_construct(id="-")
        return await self._store_pending(PendingKind.DELEGATE, actor, placeholder, payload)


def _decision(value: Decision | str) -> Decision:
    try:
        return Decision(value)
    except ValueError:
        raise ValidationFailed(
            f"A decision is 'approve' or 'reject', not {value!r}.",
            zh=f"审批结果只能是批准或驳回，不能是“{value}”。",
            problems={
                "decision": FieldProblem("decision", "is not approve or reject", value=str(value))
            },
        ) from None
