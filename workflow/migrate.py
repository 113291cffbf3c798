"""`approvals-bot migrate`: bring an organisation's Redis from the older layout to this one.

Nothing is stranded without it — records in the older layout are read as they are and
rewritten in the compact one when they next change — but the indexes of the older layout
are not read any more, so this moves them over once:

- approved leave not yet ended (`away`) → the per-person index `away_by`;
- delegations not yet ended (`delegations`) → `deleg_by` and `deleg_to`;
- the leave calendar (`leave_calendar`) → the week buckets of who is out;
- the whole organisation's week buckets of who is out (`<org>:out:<monday>`) → its day indexes
  (whos_out.py), which list the organisation a page at a time;
- every request still open gets its routing reach; every request is rewritten compact;
- each person's open steps (a set, `user:<p>:tasks`) → a sorted set by submission time
  (`user:<p>:open`), which "my approvals" reads a page of.

It is idempotent: running it twice changes nothing the second time. The old keys are
deleted at the end (with --keep-old they stay).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta

from workflow import away, whos_out
from workflow.codec import OLD_FIELD
from workflow.engine import Engine
from workflow.models import Delegation, LeaveEntry, Request, RequestStatus
from workflow.store import Conflict, Tx, hmget_record, versioned
from workflow.transitions import Change, task_score

PAGE = 500


@dataclass
class Migrated:
    away: int = 0
    delegations: int = 0
    calendar: int = 0
    out_weeks: int = 0  # leaves moved from the organisation's week buckets to its day indexes
    requests: int = 0
    open_steps: int = 0  # open steps moved into their holder's sorted list


async def migrate(engine: Engine, *, keep_old: bool = False) -> Migrated:
    keys, r, done = engine.keys, engine.store.redis, Migrated()
    today = engine.clock.now().date()
    tx = Tx()
    for member in await r.zrangebyscore(keys.away, today.toordinal() - away.KEEP_DAYS, "+inf"):
        person, start, end, request_id = member.split("|")
        away.add_away(tx, keys, person, start, end, request_id, today)
        done.away += 1
    for raw in (await r.hgetall(keys.delegations)).values():
        d = Delegation.model_validate_json(raw)
        if d.end >= today:
            away.add_delegation(tx, keys, d, engine.directory, today)
            done.delegations += 1
    now = engine.clock.now()
    for raw in (await r.hgetall(keys.leave_calendar)).values():
        e = LeaveEntry.model_validate_json(raw)
        if engine.directory.find(e.person) is None:
            continue
        whos_out.write(
            tx,
            keys,
            person=e.person,
            name=engine.directory.get(e.person).name,
            team=engine.directory.team_of(e.person),
            request_id=e.request_id,
            fields={
                "start": e.start.isoformat(),
                "end": e.end.isoformat(),
                "start_half": e.start_half,
                "end_half": e.end_half,
            },
            booked=True,
            tentative=e.status is RequestStatus.PENDING,
            now=now,
        )
        done.calendar += 1
    if tx.ops:
        await engine.store.apply(tx)
    done.out_weeks = await _index_org_weeks(engine, keep_old=keep_old)
    done.requests = await _rewrite_requests(engine)
    done.open_steps = await _index_open_steps(engine, keep_old=keep_old)
    if not keep_old:
        await engine.store.apply(
            Tx().delete(keys.away).delete(keys.leave_calendar).delete(keys.leave_ends)
        )
    return done


async def _index_org_weeks(engine: Engine, *, keep_old: bool) -> int:
    """Put the leave of the organisation's week buckets (older layout) in its day indexes, a
    few dozen leaves a write, then drop those buckets. A team's buckets stay as they are."""
    keys, r, now = engine.keys, engine.store.redis, engine.clock.now()
    prefix = keys.old_out_weeks.removesuffix("*")
    old = [
        k async for k in r.scan_iter(match=keys.old_out_weeks, count=1000) if _is_week(k, prefix)
    ]
    seen: set[str] = set()  # a leave over several weeks is in each of their buckets
    tx = Tx()
    for key in sorted(old):
        # the day indexes are kept as long as the bucket they come from was to be: judged from
        # its time left, not from this clock (a filled bench's days are simulated)
        sunday = date.fromisoformat(key.removeprefix(prefix)) + timedelta(days=6)
        left = await r.pttl(key)
        then = (
            now + timedelta(milliseconds=whos_out.ttl_ms(sunday, now) - left) if left > 0 else now
        )
        for field, stored in (await r.hgetall(key)).items():
            person = field.partition("|")[0]
            if field in seen or engine.directory.find(person) is None:
                continue
            seen.add(field)
            start, end = (date.fromisoformat(d) for d in stored.split("|")[:2])
            member = whos_out.member_of(engine.directory.get(person).name, field, stored)
            whos_out.write_days(
                tx, keys, field=field, start=start, end=end, member=member, now=then
            )
            if len(tx.ops) >= PAGE:
                await engine.store.apply(tx)
                tx = Tx()
        if not keep_old:
            tx.delete(key)
    if tx.ops:
        await engine.store.apply(tx)
    return len(seen)


async def _index_open_steps(engine: Engine, *, keep_old: bool) -> int:
    """Put each person's open steps (older layout: a set) in their sorted list, by submission
    time, then drop the set. Only the requests whose open step that person still holds."""
    keys, r, n = engine.keys, engine.store.redis, 0
    prefix, suffix = keys.old_user_tasks("*").split("*")
    async for key in r.scan_iter(match=keys.old_user_tasks("*"), count=1000):
        person = key.removeprefix(prefix).removesuffix(suffix)
        tx = Tx()
        [ids] = await engine.store.read(("smembers", [key]))
        for req in await engine._requests(sorted(ids)):
            if (step := req.open_step()) is not None and step.assignee == person:
                tx.zadd(keys.user_open(person), task_score(req), req.id)
                n += 1
        if not keep_old:
            tx.delete(key)
        if tx.ops:
            await engine.store.apply(tx)
    return n


def _is_week(key: str, prefix: str) -> bool:
    """`<prefix><monday>` exactly: the organisation's bucket, not a team's (`…:<monday>:<team>`)."""
    rest = key.removeprefix(prefix)
    try:
        return len(rest) == 10 and date.fromisoformat(rest).weekday() == 0
    except ValueError:
        return False


async def _rewrite_requests(engine: Engine) -> int:
    """Rewrite every request still in the older layout compactly (and give open ones a reach)."""
    keys, n, start = engine.keys, 0, 0
    while True:
        ids = await engine.store.redis.zrange(keys.all_requests, start, start + PAGE - 1)
        if not ids:
            return n
        raws = await engine.store.read(*(hmget_record(keys.request(i)) for i in ids))
        for raw in raws:
            if raw[1] is not None or raw[2] is None:  # already compact, or gone
                continue
            req = versioned(Request, raw)
            assert req is not None
            change = Change(req, engine.clock.now())
            change.tx.hdel(keys.request(req.id), OLD_FIELD)
            try:
                await engine.store.apply(change.finish(engine.setting))
                n += 1
            except Conflict:  # it changed meanwhile, and so was rewritten compact already
                continue
        start += PAGE
