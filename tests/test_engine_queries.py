"""Queries: people see their own requests and approvals; details only for those entitled; who's out without reasons."""

from __future__ import annotations

import json
from datetime import date

import pytest

from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, submitted
from workflow.engine import Engine
from workflow.errors import NotAllowed, NotFound, ValidationFailed
from workflow.models import RequestStatus


async def test_request_details_are_for_the_requester_the_chain_and_hr(engine: Engine):
    """The requester, approvers on the chain and HR read a request; a colleague or another team's head cannot."""
    req = await submitted(engine)
    for viewer in ("zhangsan", "wangfang", "liuyang"):
        assert (await engine.get_request(req.id, viewer)).fields["reason"] == "flu"
    for viewer in ("lisi", "emma", "sarah"):
        with pytest.raises(NotAllowed, match="not yours to see"):
            await engine.get_request(req.id, viewer)
    with pytest.raises(NotFound):
        await engine.get_request("R-MISSING", "zhangsan")


async def test_who_is_out_shows_names_and_dates_only(engine: Engine):
    """Who's out lists people and dates, marks pending leave as tentative, and never says the type or reason."""
    sick = await submitted(engine)
    await engine.decide(sick.id, 0, "wangfang", "approve")
    await engine.decide(sick.id, 1, "liuyang", "approve")
    await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    out = (await engine.who_is_out("priya", date(2026, 12, 1), date(2026, 12, 31))).entries
    assert [(o.person, o.tentative) for o in out] == [("zhangsan", False), ("oliver", True)]
    text = json.dumps([o.as_dict() for o in out], ensure_ascii=False)
    assert "sick" not in text and "flu" not in text
    assert set(out[0].as_dict()) == {
        "person",
        "name",
        "start",
        "end",
        "start_half",
        "end_half",
        "tentative",
    }
    sales = await engine.who_is_out("priya", date(2026, 12, 1), date(2026, 12, 31), team="sales")
    assert [o.person for o in sales.entries] == ["oliver"]
    assert (await engine.who_is_out("priya", date(2027, 2, 1), date(2027, 2, 5))).entries == []
    with pytest.raises(ValidationFailed, match="before"):
        await engine.who_is_out("priya", date(2026, 12, 5), date(2026, 12, 1))


async def test_a_leave_is_in_the_organisations_list_once_whatever_happens_to_it(engine: Engine):
    """Pending, then approved: the organisation's list shows the leave once, with its status; a
    withdrawn one goes; a new name at approval replaces the old one, never beside it."""
    from datetime import datetime

    from workflow import whos_out
    from workflow.store import Tx

    days = (date(2026, 12, 1), date(2026, 12, 31))
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    [pending] = (await engine.who_is_out("priya", *days)).entries
    assert (pending.person, pending.tentative) == ("zhangsan", True)
    await engine.decide(req.id, 0, "wangfang", "approve")
    page = await engine.who_is_out("priya", *days)
    assert [(o.person, o.tentative) for o in page.entries] == [("zhangsan", False)]
    assert page.total == 1
    other = await submitted(engine, actor="lisi", fields=ANNUAL_2_DAYS)
    assert (await engine.who_is_out("priya", *days)).total == 2
    await engine.withdraw(other.id, "lisi")
    assert [o.person for o in (await engine.who_is_out("priya", *days)).entries] == ["zhangsan"]

    now = datetime(2026, 12, 2, 9, 0, tzinfo=engine.directory.timezone_of("lisi"))
    r, fields = engine.store.redis, {"start": "2026-12-09", "end": "2026-12-10"}
    for name, tentative in (("Li Si", True), ("Si Li", False)):  # renamed before approval
        tx = Tx()
        whos_out.write(
            tx,
            engine.keys,
            person="lisi",
            name=name,
            team="t",
            request_id="R-1",
            fields=fields,
            booked=True,
            tentative=tentative,
            now=now,
        )
        await engine.store.apply(tx)
    [member] = await r.zrange(engine.keys.out_day(date(2026, 12, 10)), 0, -1)
    assert member.startswith("Si Li\x1f") and member.endswith("|a")


async def test_the_approvers_view_shows_teammates_out_and_the_balance_after(engine: Engine):
    """王芳's card for 张三 shows 李四 out on overlapping days (not 张三 himself, not other teams) and 张三's balance after."""
    await submitted(
        engine,
        actor="lisi",
        fields={"leave_type": "annual", "start": "2026-12-07", "end": "2026-12-08"},
    )
    await submitted(
        engine,
        actor="oliver",
        fields={"leave_type": "annual", "start": "2026-12-07", "end": "2026-12-08"},
    )
    req = await submitted(engine, fields=SICK_6_DAYS)
    view = await engine.request_view(req.id, "wangfang")
    assert [(o.name, o.start.isoformat(), o.end.isoformat()) for o in view.team_out] == [
        ("李四", "2026-12-07", "2026-12-08")
    ]
    assert view.balance_after == 4


async def test_my_requests_by_status_newest_first(engine: Engine, clock):
    """My requests lists only mine, newest first, and filters by status."""
    from datetime import timedelta

    a = await submitted(engine, fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(minutes=1))
    b = await submitted(
        engine, fields={"leave_type": "sick", "start": "2026-12-03", "end": "2026-12-03"}
    )
    await engine.withdraw(a.id, "zhangsan")
    mine = await engine.my_requests("zhangsan")
    assert [r.id for r in mine] == [b.id, a.id]
    assert [r.id for r in await engine.my_requests("zhangsan", RequestStatus.WITHDRAWN)] == [a.id]
    assert await engine.my_requests("lisi") == []


async def test_balances_list_every_type_with_unpaid_unlimited(engine: Engine):
    """Balances show allowance, used, pending and available per type; CN annual is 10, unpaid has none."""
    rows = {b.leave_type: b for b in await engine.balances("zhangsan", 2026)}
    assert rows["annual"].allowance == 10 and rows["annual"].available == 10
    assert rows["unpaid"].allowance is None and rows["unpaid"].available is None
    uk = {b.leave_type: b for b in await engine.balances("oliver", 2026)}
    assert uk["annual"].allowance == 25


async def test_working_days_explains_public_holidays_in_the_persons_language(engine: Engine):
    """The working-days query names the holidays inside the range, in Chinese for a Chinese-locale person."""
    result = engine.working_days("zhangsan", date(2026, 9, 28), date(2026, 10, 9))
    assert result["working_days"] == 5
    assert "国庆节" in {h["name"] for h in result["public_holidays"]}
    with pytest.raises(ValidationFailed):
        engine.working_days("zhangsan", date(2026, 10, 9), date(2026, 9, 28))


async def test_pending_actions_are_visible_only_to_their_person(engine: Engine):
    """A pending action can be read by the one person bound to it."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    assert (await engine.pending_action(p.pending.id, "zhangsan")).request_id == p.request.id
    with pytest.raises(NotAllowed):
        await engine.pending_action(p.pending.id, "wangfang")


async def test_old_leave_leaves_the_calendar_so_transitions_do_not_slow_down(engine: Engine, clock):
    """Leave that ended months ago is pruned from the shared calendar, the away index and the ledger."""
    from datetime import timedelta

    old = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(old.id, 0, "wangfang", "approve")
    r = engine.store.redis
    ledger = engine.keys.ledger("zhangsan")
    assert [
        o.person
        for o in (await engine.who_is_out("lisi", old.leave_start(), old.leave_end())).entries
    ] == ["zhangsan"]
    assert await r.hget(engine.keys.away_by, "zhangsan") == f"2026-12-15|2026-12-14|{old.id}"
    assert await r.hexists(ledger, f"leave:{old.id}")
    clock.advance(timedelta(days=200))
    await submitted(
        engine,
        actor="lisi",
        fields={"leave_type": "annual", "start": "2027-06-21", "end": "2027-06-22"},
    )
    # the team's week and the organisation's days go 120 days after them (real Redis time)
    week = engine.keys.out_week(date(2026, 12, 14), engine.directory.team_of("zhangsan"))
    assert await r.pttl(week) > 0
    assert await r.pttl(engine.keys.out_day(date(2026, 12, 15))) > 0
    new = await submitted(
        engine, fields={"leave_type": "annual", "start": "2027-06-28", "end": "2027-06-29"}
    )
    await engine.decide(new.id, 0, "wangfang", "approve")
    assert await r.hget(engine.keys.away_by, "zhangsan") == f"2027-06-29|2027-06-28|{new.id}"
    assert not await r.hexists(ledger, f"leave:{old.id}")  # the days used are still counted:
    assert (await engine.balances("zhangsan", 2026))[0].used == 2
    assert old.id in {
        x.id for x in await engine.my_requests("zhangsan")
    }  # the person's own history stays


async def test_an_unsent_draft_is_its_authors_alone(engine: Engine):
    """Before Submit, even the approvers on the chain and HR cannot read a draft (its reason may be medical)."""
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    assert (await engine.get_request(p.request.id, "zhangsan")).fields["reason"] == "flu"
    for viewer in ("wangfang", "liuyang"):
        with pytest.raises(NotAllowed):
            await engine.get_request(p.request.id, viewer)
