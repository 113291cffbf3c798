"""A transition reads the same keys and bytes whether 10 or 2,000 people are away.

Submit and decide route the request's open step past approvers who are on leave. They
look up only the people the request can reach (its approvers, the managers above them and
the delegates they lead to), never the organisation's whole current leave.
"""

from __future__ import annotations

import json
import secrets
from datetime import date, datetime, timedelta
from typing import Any

import pytest

from bench.scale_org import org_config
from workflow import delegation, whos_out
from workflow.config import OrgConfig
from workflow.engine import Engine
from workflow.models import Delegation, Request, RequestStatus, Step, StepStatus
from workflow.queries import APPROVALS_PAGE
from workflow.scheduler import Scheduler
from workflow.store import Tx
from workflow.transitions import Change, move_leave

AWAY = {"leave_type": "annual", "start": "2026-11-30", "end": "2026-12-04"}


@pytest.fixture(scope="module")
def big() -> OrgConfig:
    return org_config(2_100)


@pytest.fixture
def config(big: OrgConfig) -> OrgConfig:
    org = big.organisation.model_copy(update={"id": "t" + secrets.token_hex(6)})
    return big.model_copy(update={"organisation": org})


class ReadLog:
    """Every read the engine makes: the commands, the keys they name and the bytes of the reply."""

    def __init__(self, engine: Engine) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.bytes = 0
        self.writes = 0
        store, read, apply = engine.store, engine.store.read, engine.store.apply

        async def counting_read(*calls: tuple[str, Any]) -> list[Any]:
            result = await read(*calls)
            for name, args in calls:
                keys = list(args[2 : 2 + args[1]]) if name == "evalsha" else [args[0]]
                self.calls.append((name, keys))
            self.bytes += len(json.dumps(result, default=str))
            return result

        async def counting_apply(tx: Tx) -> list[str]:
            self.writes += 1
            return await apply(tx)

        store.read, store.apply = counting_read, counting_apply  # type: ignore[method-assign]

    def reset(self) -> None:
        self.calls, self.bytes, self.writes = [], 0, 0


async def book_approved_leave(engine: Engine, people: list[str]) -> None:
    """Record approved leave this week for each person, through the transitions' own writes."""
    now = datetime(2026, 12, 2, 9, 0, tzinfo=engine.directory.timezone_of(people[0]))
    for start in range(0, len(people), 250):
        tx = Tx()
        for pid in people[start : start + 250]:
            req = Request(
                id=f"R-A{pid[1:]}XX",
                process="leave",
                kind="leave",
                requester=pid,
                status=RequestStatus.APPROVED,
                fields=AWAY,
                derived={"working_days": 5, "days_by_year": {"2026": 5}},
                steps=[
                    Step(
                        index=0,
                        name="Manager",
                        name_zh="-",
                        approver=pid,
                        status=StepStatus.APPROVED,
                    )
                ],
                created_at=now,
            )
            move_leave(Change(req, now, tx=tx), engine.setting, RequestStatus.PENDING, None)
        await engine.store.apply(tx)


async def one_submit_and_decide(engine: Engine, log: ReadLog, requester: str) -> dict[str, Any]:
    proposal = await engine.prepare_submit(
        requester, "leave", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    log.reset()
    req = await engine.submit(proposal.request.id, requester)
    submit = {
        "calls": len(log.calls),
        "bytes": log.bytes,
        "trips": len(log.calls) and 1 + log.writes,
    }
    submit_keys = [k for _, keys in log.calls for k in keys]
    log.reset()
    approver = req.open_step().assignee
    decided = await engine.decide(req.id, 0, approver, "approve")
    assert decided.status is RequestStatus.APPROVED
    decide = {"calls": len(log.calls), "bytes": log.bytes, "trips": 1 + log.writes}
    decide_keys = [k for _, keys in log.calls for k in keys]
    keys = [k.replace(req.id, "R").replace(requester, "X") for k in submit_keys + decide_keys]
    return {"submit": submit, "decide": decide, "keys": keys}


async def test_a_submits_reads_do_not_depend_on_how_many_people_are_away(engine: Engine):
    """With 10 and then 2,000 people on approved leave this week, a leave's submit and its
    decision read the same keys and the same number of bytes, in 2 round trips each."""
    d = engine.directory
    first, second = "p00347", "p00348"  # two team leads under one manager
    assert d.get(first).manager == d.get(second).manager
    reach = {first, second} | {m.id for p in (first, second) for m in d.managers_above(p)}
    others = [p.id for p in d if p.id not in reach]
    log = ReadLog(engine)

    await book_approved_leave(engine, others[:10])
    few = await one_submit_and_decide(engine, log, first)
    await book_approved_leave(engine, others[10:2_000])
    many = await one_submit_and_decide(engine, log, second)

    assert await engine.store.redis.hlen(engine.keys.away_by) >= 2_000
    for kind in ("submit", "decide"):
        assert few[kind]["calls"] == many[kind]["calls"]
        assert few[kind]["trips"] == many[kind]["trips"] == 2
        assert abs(few[kind]["bytes"] - many[kind]["bytes"]) <= 16, (kind, few, many)
    assert few["keys"] == many["keys"]
    assert engine.keys.leave_calendar not in many["keys"]


async def test_an_approver_on_leave_is_still_routed_past(engine: Engine):
    """Reading only the request's reach still sees that its approver is away this week."""
    requester = "p02002"
    manager = engine.directory.get(requester).manager
    await book_approved_leave(engine, [manager])
    proposal = await engine.prepare_submit(
        requester, "leave", {"leave_type": "annual", "start": "2026-12-14", "end": "2026-12-15"}
    )
    req = await engine.submit(proposal.request.id, requester)
    step = req.open_step()
    assert step.approver == manager
    assert step.assignee == engine.directory.get(manager).manager


async def book_out(engine: Engine, leaves: list[tuple[str, date, date]], first: int = 0) -> None:
    """Book each (person, first day, last day) into the who's-out indexes with the write the
    transitions make, 250 a write; every third is still pending."""
    d = engine.directory
    now = datetime(2026, 12, 2, 9, 0, tzinfo=d.timezone_of(leaves[0][0]))
    for at in range(0, len(leaves), 250):
        tx = Tx()
        for i, (pid, start, end) in enumerate(leaves[at : at + 250], first + at):
            whos_out.write(
                tx,
                engine.keys,
                person=pid,
                name=d.get(pid).name,
                team=d.team_of(pid),
                request_id=f"R-{i:08d}",
                fields={"start": start.isoformat(), "end": end.isoformat()},
                booked=True,
                tentative=i % 3 == 0,
                now=now,
            )
        await engine.store.apply(tx)


async def test_whos_out_this_week_reads_this_weeks_buckets_only(engine: Engine):
    """With leave booked over a whole year, the organisation's week is one read of that week's
    days and the team's is its week's bucket: each lists the week's people and no one else."""
    d = engine.directory
    lead = d.get("p02003").manager
    team = d.team_of("p02003")
    members = [p.id for p in d.team_members(team)]
    outsiders = [p.id for p in d if d.team_of(p.id) != team][:300]
    leaves = []
    for i, pid in enumerate(outsiders + members):
        start = date(2026, 11, 30) + timedelta(days=(i % 50) * 7)  # over 50 weeks from 30 Nov
        leaves.append((pid, start, start + timedelta(days=1)))
    await book_out(engine, leaves)
    log = ReadLog(engine)
    week = (date(2026, 11, 30), date(2026, 12, 4))
    everyone = await engine.who_is_out(lead, *week)
    days = [engine.keys.out_day(week[0] + timedelta(days=i)) for i in range(5)]
    assert log.calls == [("evalsha", days)]
    expected = {pid for i, pid in enumerate(outsiders + members) if i % 50 == 0}
    assert {o.person for o in everyone.entries} == expected and everyone.total == len(expected)
    log.reset()
    mine = await engine.who_is_out(lead, *week, team=team)
    assert log.calls == [("hgetall", [engine.keys.out_week(week[0], team)])]
    assert {o.person for o in mine.entries} == expected & set(members)


async def test_the_organisations_who_is_out_comes_a_page_at_a_time(engine: Engine):
    """665 of 2,000 people out Wednesday to Friday: the first page is the 50 who left first
    (then by name), with the total; its read is the size it was with 82 out; the pages
    together list each person once, in that order."""
    d = engine.directory
    people = [p.id for p in d][:2_000]
    leaves = []
    for i, pid in enumerate(people):
        start = date(2026, 11, 23) + timedelta(days=i % 12)  # some from the week before
        leaves.append((pid, start, start + timedelta(days=i % 4)))
    booked = {pid: (start, end) for pid, start, end in leaves}
    await book_out(engine, leaves[:250])  # 82 of them are out from Wednesday 2 December to Friday
    log = ReadLog(engine)
    few = await engine.who_is_out(people[0], date(2026, 12, 2), date(2026, 12, 4))
    few_bytes = log.bytes
    await book_out(engine, leaves[250:], first=250)
    wednesday, friday = date(2026, 12, 2), date(2026, 12, 4)
    out = {p for p, (s, e) in booked.items() if s <= friday and e >= wednesday}
    want = sorted(out, key=lambda p: (booked[p][0], d.get(p).name))
    assert len(few.entries) == 50 and few.total * 8 < len(want)
    log.reset()
    page = await engine.who_is_out(people[0], wednesday, friday)
    assert page.total == len(want) and len(page.entries) == 50
    assert [o.person for o in page.entries] == want[:50]
    assert len(log.calls) == 1 and log.bytes < few_bytes * 1.2  # the page, not all who are out
    seen = [o.person for o in page.entries]
    while page.next_offset is not None:
        page = await engine.who_is_out(people[0], wednesday, friday, offset=page.next_offset)
        seen += [o.person for o in page.entries]
    assert seen == want
    assert all(o.tentative == (int(o.request_id[2:]) % 3 == 0) for o in page.entries)


async def delegate_many(engine: Engine, people: list[str], to: str | None = None) -> None:
    """Each person delegates to the next one (or to `to`) this week, in a few atomic writes."""
    for start in range(0, len(people), 250):
        tx = Tx()
        for i, pid in enumerate(people[start : start + 250], start):
            delegate = to or people[(i + 1) % len(people)]
            d = Delegation(
                id=f"D-{i:06d}",
                person=pid,
                delegate=delegate,
                start=date(2026, 11, 30),
                end=date(2026, 12, 11),
            )
            await delegation.store(engine, d, tx)
        await engine.store.apply(tx)


async def test_my_approvals_reads_the_same_with_10_and_2000_delegations(engine: Engine):
    """A manager's pending approvals read their own delegations only: the same keys and bytes
    whether 10 or 2,000 other people have delegated, and a delegation to them still counts."""
    d = engine.directory
    asker = "p00347"
    others = [p.id for p in d if p.id != asker and p.manager][:2_010]
    log = ReadLog(engine)
    await delegate_many(engine, others[:10])
    await delegate_many(engine, others[10:11], to=asker)
    await engine.my_approvals(asker)
    few = (list(log.calls), log.bytes)
    await delegate_many(engine, others[11:2_010])
    log.reset()
    await engine.my_approvals(asker)
    assert (list(log.calls), log.bytes) == few
    assert ("zcard", [engine.keys.user_open(others[10])]) in few[0]  # the delegator's tasks
    assert engine.keys.delegations not in [k for _, keys in few[0] for k in keys]


async def test_a_scheduler_tick_reads_whos_due_not_the_directory(engine: Engine):
    """After the first tick (which puts everyone in the due index once), a tick with nobody
    due is one read and no write, in an organisation of 2,100 people."""
    scheduler = Scheduler(engine)
    await scheduler.periodic()  # 09:00 wall time everywhere: digests are due, nobody has tasks
    log = ReadLog(engine)
    assert await scheduler.periodic() == 0
    assert log.calls == [("zrangebyscore", [engine.keys.periodic_due])] and log.writes == 0
    due = await engine.store.redis.zcard(engine.keys.periodic_due)
    assert due >= len(engine.directory)  # a digest per person, a weekly per manager


@pytest.mark.parametrize("locale", ["en", "zh"])
async def test_asking_who_is_out_in_the_organisation_says_how_many_and_how_to_narrow(
    engine: Engine, locale: str
):
    """120 out: the answer lists 50 in a message the model reads whole (under the 4,000
    characters an observation keeps), says it shows 1–50 of 120, that "more" gives the next 50
    and what narrows it, and offers page 2; page 2 offers the last 20, page 3 no more."""
    from agent.tools.base import ToolContext
    from agent.tools.read import WhoIsOutArgs, who_is_out

    people = [p.id for p in engine.directory][:120]
    await book_out(engine, [(p, date(2026, 12, 3), date(2026, 12, 4)) for p in people])
    ctx = ToolContext(engine, engine.person(people[0]), date(2026, 12, 2), locale, "t:1")
    more, team_word = ("“更多”", "团队") if locale == "zh" else ("“more”", "team")
    first = await who_is_out(ctx, WhoIsOutArgs(start="2026-12-03", scope="all"))
    lines = first.summary.splitlines()
    assert first.data["total"] == 120 and first.data["next_page"] == 2 and len(lines) == 52
    assert len(first.to_json()) < 4_000
    assert "1–50" in lines[0] and "120" in lines[0]
    assert more in lines[-1] and "50" in lines[-1] and team_word in lines[-1]
    second = await who_is_out(ctx, WhoIsOutArgs(start="2026-12-03", scope="all", page=2))
    assert second.data["next_page"] == 3 and "20" in second.summary.splitlines()[-1]
    last = await who_is_out(ctx, WhoIsOutArgs(start="2026-12-03", scope="all", page=3))
    assert last.data["next_page"] is None and more not in last.summary
    assert "101–120" in last.summary and len(last.summary.splitlines()) == 21
    team = await who_is_out(ctx, WhoIsOutArgs(start="2026-12-03"))  # a team's: everyone in it
    assert team.data["total"] == len(team.data["out"]) > 0


async def test_more_in_chat_shows_the_next_page_of_the_organisations_who_is_out(engine: Engine):
    """Through the offline planner, the agent loop and thread memory: the whole company's
    who's-out on Thursday shows 1–50 of 120, "more" shows 51–100, again 101–120."""
    from agent.events import FinalAnswer
    from agent.loop import Agent
    from agent.memory import ThreadMemory
    from agent.planner import OfflinePlanner

    people = [p.id for p in engine.directory][:120]
    await book_out(engine, [(p, date(2026, 12, 3), date(2026, 12, 4)) for p in people])
    agent = Agent(OfflinePlanner(), engine, ThreadMemory(engine.store.redis))
    heads = []
    for text in ("who is out on thursday across the whole company?", "more", "more"):
        events = [e async for e in agent.run("t:more", people[0], text)]
        assert isinstance(events[-1], FinalAnswer)
        heads.append(events[-1].text.splitlines()[0])
    assert ["1–50" in heads[0], "51–100" in heads[1], "101–120" in heads[2]] == [True] * 3
    assert all("120" in h for h in heads)


async def test_my_approvals_reads_a_page_however_many_wait(engine: Engine, clock):
    """A manager with 25 or 125 requests waiting reads the same keys: the oldest 20 records and
    the count, which says how many wait in all (what the surfaces' "and N more" shows)."""
    d = engine.directory
    requester = next(p for p in d if p.manager)
    manager = requester.manager
    claim = {
        "currency": "CNY",
        "category": "travel",
        "spent_on": "2026-11-30",
        "description": "taxi",
    }

    async def claims(n: int) -> list[str]:
        ids = []
        for i in range(n):
            p = await engine.prepare_submit(requester.id, "expense", {**claim, "amount": 10 + i})
            ids.append((await engine.confirm(p.pending.id, requester.id)).request.id)
            clock.advance(timedelta(minutes=1))
        return ids

    oldest = await claims(25)
    log = ReadLog(engine)
    few = await engine.my_approvals(manager)
    few_calls = list(log.calls)
    await claims(100)
    log.reset()
    many = await engine.my_approvals(manager)
    assert log.calls == few_calls
    # the holder's sorted list and its count; no older layout's key (`approvals-bot migrate` moved it)
    assert [name for name, _ in log.calls if name not in ("hget", "hmget")] == ["zrange", "zcard"]
    records = [k for name, keys in log.calls if name == "hmget" for k in keys]
    assert records == [engine.keys.request(i) for i in oldest[:APPROVALS_PAGE]]
    assert [r.id for r in many.requests] == [r.id for r in few.requests] == oldest[:20]
    assert (few.total, many.total) == (25, 125)
