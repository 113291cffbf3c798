"""Compact records, retention to an archive, and the migration from the older layout."""

from __future__ import annotations

import csv
import gzip
import io
import json
from datetime import date, timedelta

import fakeredis
import pytest

from bot import archive, request_pages, request_rows
from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, submitted
from workflow.engine import Engine
from workflow.errors import InvalidState, NotAllowed
from workflow.migrate import migrate
from workflow.models import PendingStatus, RequestStatus
from workflow.payloads import DecidePayload, DelegatePayload, pending_payload


async def test_a_request_is_stored_compactly_and_the_older_layout_still_reads(engine: Engine):
    """A decided leave takes about half the bytes of its full JSON; a record written in the
    older layout is read as it is and rewritten compactly by its next transition."""
    r = engine.store.redis
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    done = await engine.decide(req.id, 0, "wangfang", "approve")
    stored = await r.hgetall(engine.keys.request(req.id))
    assert set(stored) == {"v", "d"}
    full = done.model_dump_json(exclude={"version"})
    assert len(stored["d"].encode()) < 0.6 * len(full.encode())
    assert (await engine.get_request(req.id, "zhangsan")).model_dump(exclude={"version"}) == (
        done.model_dump(exclude={"version"})
    )

    old = await submitted(engine, actor="lisi", fields=ANNUAL_2_DAYS)
    key = engine.keys.request(old.id)
    await r.hdel(key, "d")
    await r.hset(key, "data", old.model_dump_json(exclude={"version"}))
    assert (await engine.get_request(old.id, "lisi")).model_dump(exclude={"version"}) == (
        old.model_dump(exclude={"version"})
    )
    await engine.decide(old.id, 0, "wangfang", "approve")
    assert set(await r.hkeys(key)) == {"v", "d"}


async def test_decided_requests_past_the_retention_move_to_a_monthly_archive(
    engine: Engine, clock, tmp_path
):
    """After `retention_months`, decided requests leave Redis for a gzip of JSON lines per
    month; a pending one stays; `requests export` reads both; a dry run moves nothing."""
    decided = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(decided.id, 0, "wangfang", "approve")
    pending = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(days=70))
    recent = await submitted(
        engine,
        actor="lisi",
        fields={"leave_type": "annual", "start": "2027-02-15", "end": "2027-02-16"},
    )

    dry = await archive.archive(engine, tmp_path, 2, dry_run=True)
    assert dry.archived == 1 and not list(tmp_path.rglob("*.gz"))
    run = await archive.archive(engine, tmp_path, 2, dry_run=False)
    assert run.archived == 1
    [path] = tmp_path.rglob("*.gz")
    assert path.name == "requests-2026-12.jsonl.gz"
    with gzip.open(path, "rt", encoding="utf-8") as f:
        assert [json.loads(line)["id"] for line in f] == [decided.id]
    r = engine.store.redis
    assert not await r.exists(engine.keys.request(decided.id))
    assert decided.id not in await r.zrange(engine.keys.all_requests, 0, -1)
    assert decided.id not in {x.id for x in await engine.my_requests("zhangsan")}

    filters = {"since": None, "until": None, "status": None, "process": None}
    in_redis = [x.id async for _, x in request_pages.iter_requests(engine, **filters)]
    assert sorted(in_redis) == sorted([pending.id, recent.id])
    everything = [
        x async for _, x in request_pages.iter_requests(engine, **filters, archive_dir=tmp_path)
    ]
    assert [x.id for x in everything] == [*in_redis, decided.id]
    assert everything[-1].status is RequestStatus.APPROVED
    exported = [  # `requests export` and `requests list` read the archive as well
        line
        async for page in request_pages.iter_csv_pages(
            engine, **filters, with_reasons=False, archive_dir=tmp_path
        )
        for line in page
    ]
    columns = request_rows.export_columns(engine.config, None, False)
    expected = io.StringIO()
    module = csv.writer(expected, lineterminator="\r\n")
    module.writerows([request_rows.row(engine, x, False)[k] for k in columns] for x in everything)
    assert "".join(exported) == expected.getvalue() and len(exported) == 3
    listed = [
        line.split()[0]
        async for _, line in request_pages.iter_table_lines(engine, **filters, archive_dir=tmp_path)
    ]
    assert listed == [x.id for x in everything]
    again = await archive.archive(engine, tmp_path, 2, dry_run=False)
    assert again.archived == 0


async def test_migrate_moves_the_older_indexes_over(engine: Engine):
    """Approved leave in the older `away` set and `leave_calendar` hash is routed around and
    shown as out after `approvals-bot migrate`, and the old keys are gone."""
    r, k = engine.store.redis, engine.keys
    entry = {
        "request_id": "R-OLDLEAVE",
        "person": "wangfang",
        "start": "2026-12-01",
        "end": "2026-12-04",
        "start_half": False,
        "end_half": False,
        "status": "approved",
    }
    await r.zadd(
        k.away, {"wangfang|2026-12-01|2026-12-04|R-OLDLEAVE": date(2026, 12, 4).toordinal()}
    )
    await r.hset(k.leave_calendar, "wangfang|R-OLDLEAVE", json.dumps(entry))
    done = await migrate(engine)
    assert (done.away, done.calendar) == (1, 1)
    assert not await r.exists(k.away, k.leave_calendar)
    out = await engine.who_is_out("lisi", date(2026, 12, 1), date(2026, 12, 4))
    assert [o.person for o in out.entries] == ["wangfang"]
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    assert req.open_step().assignee == "david"  # wangfang is away: her manager holds it
    assert (await migrate(engine)).away == 0


async def test_migrate_moves_the_organisations_week_buckets_to_its_day_indexes(engine: Engine):
    """Leave in the older whole-organisation week buckets is listed a page at a time after
    `approvals-bot migrate`, once per leave however many weeks it spans; the old buckets go
    and the teams' stay; a second run moves nothing."""
    r, k = engine.store.redis, engine.keys
    old_week = k.old_out_weeks.removesuffix("*")
    team_key = k.out_week(date(2026, 11, 30), "product")
    await r.hset(team_key, "lisi|R-A", "2026-12-03|2026-12-08||a")
    await r.hset(
        old_week + "2026-11-30",
        mapping={
            "lisi|R-A": "2026-12-03|2026-12-08||a",
            "oliver|R-B": "2026-12-01|2026-12-01|s|p",
            "someone-who-left|R-C": "2026-12-01|2026-12-02||a",
        },
    )
    await r.hset(old_week + "2026-12-07", "lisi|R-A", "2026-12-03|2026-12-08||a")
    # a bucket a bench filled on a simulated clock, kept 9 more days: its leave is kept as long
    # (less the days from its last day, Wednesday 8 January, to the week's Sunday)
    await r.hset(old_week + "2025-01-06", "oliver|R-D", "2025-01-07|2025-01-08||a")
    await r.pexpire(old_week + "2025-01-06", 9 * 86_400_000)
    done = await migrate(engine)
    assert done.out_weeks == 3
    assert 4 * 86_400_000 < await r.pttl(k.out_day(date(2025, 1, 8))) <= 5 * 86_400_000
    assert not await r.exists(*(old_week + w for w in ("2026-11-30", "2026-12-07", "2025-01-06")))
    assert await r.exists(team_key)
    week = await engine.who_is_out("zhangsan", date(2026, 11, 30), date(2026, 12, 11))
    assert [(o.person, o.start_half, o.tentative) for o in week.entries] == [
        ("oliver", True, True),
        ("lisi", False, False),
    ]
    later = await engine.who_is_out("zhangsan", date(2026, 12, 8), date(2026, 12, 8))
    assert [o.person for o in later.entries] == ["lisi"]
    assert (await migrate(engine)).out_weeks == 0


async def _older_layout_open_steps(engine: Engine, clock) -> list[str]:
    """Two open steps and a decided one in wangfang's set, as the older layout kept them."""
    r, k = engine.store.redis, engine.keys
    first = await submitted(engine, fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(hours=1))
    second = await submitted(engine, actor="lisi", fields=ANNUAL_2_DAYS)
    decided = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await engine.decide(decided.id, 0, decided.steps[0].assignee, "approve")
    await r.delete(k.user_open("wangfang"))
    await r.sadd(k.old_user_tasks("wangfang"), first.id, second.id, decided.id)
    return [first.id, second.id]


async def test_migrate_moves_open_steps_into_their_holders_lists_oldest_first(
    engine: Engine, clock
):
    """Open steps kept in the older per-person set are listed in "my approvals" after
    `approvals-bot migrate`, oldest first; one no longer held is dropped; a second run moves
    nothing."""
    still_open = await _older_layout_open_steps(engine, clock)

    assert (await migrate(engine)).open_steps == 2
    mine = await engine.my_approvals("wangfang")
    assert ([x.id for x in mine.requests], mine.total) == (still_open, 2)
    assert not await engine.store.redis.exists(engine.keys.old_user_tasks("wangfang"))
    assert (await migrate(engine)).open_steps == 0


async def test_migrate_keep_old_keeps_the_older_sets_however_often_they_are_read(
    engine: Engine, clock
):
    """`approvals-bot migrate --keep-old` moves the open steps and leaves the older sets where
    they were: reading "my approvals" lists the moved steps and leaves the sets alone too."""
    still_open = await _older_layout_open_steps(engine, clock)
    old = engine.keys.old_user_tasks("wangfang")

    assert (await migrate(engine, keep_old=True)).open_steps == 2
    for _ in range(2):
        mine = await engine.my_approvals("wangfang")
        assert ([x.id for x in mine.requests], mine.total) == (still_open, 2)
    assert await engine.store.redis.scard(old) == 3


async def test_a_list_reads_a_records_own_fields_without_its_steps(engine: Engine):
    """codec.head gives a stored request's own fields (id, status, requester, form, derived)
    exactly as the whole record has them, also when a form field is itself named like the
    steps ('st'): the cut is not made there, the whole record is read."""
    import orjson

    from workflow import codec

    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(req.id, 0, "wangfang", "approve")
    body = await engine.store.redis.hget(engine.keys.request(req.id), "d")
    own = {k: v for k, v in orjson.loads(body).items() if k in {"i", "p", "k", "r", "s", "f", "x"}}
    assert codec.head(body) == own and codec.head(body.encode()) == own
    assert "st" not in own and own["s"] == "approved"
    # a form field named "st" inside the form, after another, and one that quotes it
    nested = body.replace('"f":{', '"f":{"note":"a,\\"st\\":[","st":[{"a":1}],', 1)
    assert nested.index(',"st":') < nested.index('"x":')
    whole = orjson.loads(nested)
    assert whole["f"]["st"] == [{"a": 1}]
    read = codec.head(nested)  # the whole record: the cut would have been inside the form
    assert {k: read[k] for k in own} == {k: whole[k] for k in own}


async def test_a_done_pending_action_keeps_only_what_a_later_click_reads(engine: Engine):
    """Once confirmed, a submit's pending action drops the form it carried (under Redis's
    64-byte listpack limit), and a repeat click and a cancel after it still answer truthfully."""
    r = engine.store.redis
    p = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    key = engine.keys.pending(p.pending.id)
    assert "flu" in (await r.hgetall(key))["d"]  # the open action holds what its card shows
    first = await engine.confirm(p.pending.id, "zhangsan")

    stored = await r.hgetall(key)
    assert set(stored) == {"v", "d"}
    assert len(stored["d"].encode()) <= 64 and "flu" not in stored["d"]
    assert await r.pttl(key) > 7 * 86_400_000  # still kept for a late click
    if not isinstance(r, fakeredis.FakeAsyncRedis):  # remade small: ~170 bytes, not ~320
        assert await r.object("encoding", key) == "listpack"
    again = await engine.confirm(p.pending.id, "zhangsan")
    assert again.repeated and again.request.id == first.request.id
    assert again.request.status is RequestStatus.PENDING
    with pytest.raises(InvalidState, match="already confirmed"):
        await engine.cancel(p.pending.id, "zhangsan")
    with pytest.raises(NotAllowed):
        await engine.confirm(p.pending.id, "lisi")


async def test_a_replaced_or_cancelled_draft_still_says_so_once_compacted(engine: Engine):
    """A draft replaced by a correction says what replaced it; a cancelled one refuses its
    Submit; a pending action in the older layout (full JSON in `data`) is still confirmed."""
    first = await engine.prepare_submit("zhangsan", "leave", SICK_6_DAYS)
    second = await engine.prepare_submit(
        "zhangsan", "leave", ANNUAL_2_DAYS, replaces=first.pending.id
    )
    replaced = await engine.pending_action(first.pending.id, "zhangsan")
    assert replaced.status is PendingStatus.CANCELLED
    assert replaced.result == {"replaced_by": second.pending.id}
    await engine.cancel(second.pending.id, "zhangsan")
    with pytest.raises(InvalidState, match="cancelled"):
        await engine.confirm(second.pending.id, "zhangsan")

    old = await engine.prepare_submit("lisi", "leave", ANNUAL_2_DAYS)
    key, r = engine.keys.pending(old.pending.id), engine.store.redis
    await r.hdel(key, "d")
    await r.hset(key, "data", old.pending.model_dump_json(exclude={"version"}))
    done = await engine.confirm(old.pending.id, "lisi")
    assert done.request.status is RequestStatus.PENDING
    assert set(await r.hkeys(key)) == {"v", "d"}


async def test_a_done_decision_and_delegation_keep_what_their_cards_say(engine: Engine):
    """A confirmed decision keeps its step (its card is registered for it) and a confirmed
    delegation whom it went to and when (a repeat click on its card says so)."""
    req = await submitted(engine, fields=ANNUAL_2_DAYS)
    p = await engine.prepare_decision("wangfang", req.id, "approve", "ok")
    await engine.confirm(p.pending.id, "wangfang")
    decided = await engine.pending_action(p.pending.id, "wangfang")
    assert isinstance(payload := pending_payload(decided), DecidePayload) and payload.step == 0

    d = await engine.prepare_delegation("wangfang", "lisi", date(2026, 12, 7), date(2026, 12, 9))
    await engine.confirm(d.pending.id, "wangfang")
    again = await engine.confirm(d.pending.id, "wangfang")
    assert again.repeated
    kept = pending_payload(await engine.pending_action(d.pending.id, "wangfang"))
    assert isinstance(kept, DelegatePayload)
    assert (kept.delegate, kept.start, kept.end) == ("lisi", date(2026, 12, 7), date(2026, 12, 9))
