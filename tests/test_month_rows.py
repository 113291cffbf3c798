"""A closed month's `requests list` and CSV rows, kept once (bot/month_rows.py): the same lines
as each request's own, never stale after a request changes, names as the directory says now."""

from __future__ import annotations

import csv
import io
from datetime import date, timedelta
from typing import Any

from bot import archive, month_rows, request_pages, request_rows
from tests.helpers import ANNUAL_2_DAYS, submitted
from tests.test_admin import EXPENSE, _mixed
from workflow.engine import Engine
from workflow.models import Request

EVERYTHING: dict[str, Any] = {"since": None, "until": None, "status": None, "process": None}


async def _requests(engine: Engine, **filters: Any) -> list[Request]:
    """The requests as the engine's records say, in the list's order."""
    return [r async for _, r in request_pages.iter_requests(engine, **{**EVERYTHING, **filters})]


async def _listed(engine: Engine, **filters: Any) -> list[str]:
    return [
        line
        async for _, line in request_pages.iter_table_lines(engine, **{**EVERYTHING, **filters})
    ]


async def _csv(engine: Engine, **filters: Any) -> str:
    pages = request_pages.iter_csv_pages(engine, **{**EVERYTHING, **filters}, with_reasons=False)
    return "".join([line async for page in pages for line in page])


def _expected_csv(engine: Engine, requests: list[Request]) -> str:
    """What the csv module writes of the rows built from each Request."""
    out = io.StringIO()
    columns = request_rows.export_columns(engine.config, None, False)
    csv.writer(out, lineterminator="\r\n").writerows(
        [request_rows.row(engine, r, False)[k] for k in columns] for r in requests
    )
    return out.getvalue()


async def _closed_month(engine: Engine, clock) -> list[Request]:
    """Requests of every kind submitted in December 2026, then the clock in January."""
    await _mixed(engine)
    for amount in (99.5, 1234.5):
        await submitted(
            engine, actor="oliver", process="expense", fields={**EXPENSE, "amount": amount}
        )
        clock.advance(timedelta(minutes=1))
    clock.advance(timedelta(days=31))
    return await _requests(engine)


def _no_records(monkeypatch) -> None:
    """From here on, a list or export reading any record fails the test."""

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("read the records, not the kept rows")

    monkeypatch.setattr(request_pages, "_pages", refuse)


async def test_a_closed_month_is_kept_and_then_read_as_its_records_say(
    engine: Engine, clock, monkeypatch
):
    """The first list of a closed month reads its records and keeps its rows; from then on
    its list and CSV come from the kept rows, line for line what each request's own row is,
    with filters, date bounds and a page cursor."""
    requests = await _closed_month(engine, clock)
    lines = [request_rows.table_line(engine, r) for r in requests]
    assert await _listed(engine) == lines
    assert await engine.store.redis.exists(engine.keys.month_rows("2026-12"))
    day = requests[0].submitted_at.date()  # type: ignore[union-attr]
    assert await _listed(engine, since=day + timedelta(days=1)) == []

    _no_records(monkeypatch)
    assert await _listed(engine) == lines
    text = await _csv(engine)
    assert text == _expected_csv(engine, requests)
    # an amount as a plain decimal with its currency's minor units, the currency beside it
    assert ",120.00,CNY," in text and ",99.50,CNY," in text and ",1234.50,CNY," in text
    assert await _listed(engine, status="pending") == [
        request_rows.table_line(engine, r) for r in requests if r.status.value == "pending"
    ]
    assert await _listed(engine, process="leave") == [
        request_rows.table_line(engine, r) for r in requests if r.process == "leave"
    ]
    assert await _listed(engine, since=day, until=day) == lines
    first, cursor = [], None
    async for at, line in request_pages.iter_table_lines(engine, **EVERYTHING):
        first.append(line)
        cursor = at
        if len(first) == 2:
            break
    assert first + await _listed(engine, after=cursor) == lines


async def test_a_request_changed_after_its_month_was_kept_is_never_shown_stale(
    engine: Engine, clock
):
    """Deciding a request of a kept month makes the next list and export read the records
    again (kept anew once the month's pending requests have expired); a renamed person is
    shown by the new name."""
    pending = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await submitted(engine, process="expense", fields=EXPENSE)
    clock.advance(timedelta(days=31))
    await _listed(engine)  # kept
    kept_at = await engine.store.redis.hget(engine.keys.month_rows("2026-12"), "g")

    await engine.decide(pending.id, 0, pending.open_step().assignee, "approve")  # type: ignore[union-attr]
    requests = await _requests(engine)
    assert any(r.id == pending.id and r.status.value == "approved" for r in requests)
    assert await _listed(engine) == [request_rows.table_line(engine, r) for r in requests]
    assert await _csv(engine) == _expected_csv(engine, requests)
    # read from the records while its pending requests may still be decided, then kept anew
    assert await engine.store.redis.hget(engine.keys.month_rows("2026-12"), "g") == kept_at
    clock.advance(timedelta(days=engine.config.policy.expire_after_days + 1))
    assert await _listed(engine) == [request_rows.table_line(engine, r) for r in requests]
    assert await engine.store.redis.hget(engine.keys.month_rows("2026-12"), "g") != kept_at
    assert await _listed(engine) == [request_rows.table_line(engine, r) for r in requests]

    people = [
        p.model_copy(update={"name": "Twist, Oliver"}) if p.id == "oliver" else p
        for p in engine.config.people
    ]
    renamed = Engine(engine.config.model_copy(update={"people": people}), engine.store.redis, clock)
    listed = await _listed(renamed)
    assert listed == [request_rows.table_line(renamed, r) for r in requests]
    assert any("Twist, Oliver" in line for line in listed)
    assert '"Twist, Oliver"' in await _csv(renamed)


async def test_kept_rows_that_stop_being_true_half_way_are_read_on_from_the_records(
    engine: Engine, clock, monkeypatch
):
    """A request decided while its month's kept rows are being read: the rows already shown
    stand, and the rest come from the records, each request once, as it is now."""
    monkeypatch.setattr(month_rows, "CHUNK", 1)
    monkeypatch.setattr(request_pages, "READ_AHEAD", 1)  # rows are read as they were when read
    made = []
    for actor in ("oliver", "lisi", "zhangsan"):
        made.append(await submitted(engine, actor=actor, fields=ANNUAL_2_DAYS))
        made.append(await submitted(engine, process="expense", fields=EXPENSE))
        clock.advance(timedelta(minutes=1))
    clock.advance(timedelta(days=31))
    await _listed(engine)  # kept, a row a chunk
    oldest = (await _requests(engine))[-1]  # shown last (people's clocks differ)
    assert oldest.id in {r.id for r in made}
    shown, reads = [], []
    pages = request_pages._pages

    def counted(*args: Any, **kwargs: Any) -> Any:
        reads.append(args[3])  # where reading the records starts
        return pages(*args, **kwargs)

    monkeypatch.setattr(request_pages, "_pages", counted)
    async for _, line in request_pages.iter_table_lines(engine, **EVERYTHING):
        if not shown:  # the first kept row shown: the oldest is yet to be read
            await engine.decide(oldest.id, 0, oldest.open_step().assignee, "reject", "no")  # type: ignore[union-attr]
        shown.append(line)
    resumed = list(reads)
    now = await _requests(engine)
    assert shown == [request_rows.table_line(engine, r) for r in now]
    assert "rejected" in shown[-1] and shown[-1].startswith(oldest.id)
    assert len(resumed) == 1 and resumed[0] is not None  # read on from a kept row


async def test_a_kept_month_archived_since_is_read_from_the_archive(
    engine: Engine, clock, tmp_path
):
    """Archiving a kept month's decided requests makes its kept rows stale: the list shows
    each request once, from Redis or from the archive."""
    decided = await submitted(engine, fields=ANNUAL_2_DAYS)
    await engine.decide(decided.id, 0, "wangfang", "approve")
    pending = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    clock.advance(timedelta(days=70))
    before = await _listed(engine)
    assert [line.split()[0] for line in before] == [pending.id, decided.id]
    month = month_rows.month_at(int(decided.submitted_at.timestamp() * 1000))
    assert await engine.store.redis.exists(engine.keys.month_rows(month))
    assert (await archive.archive(engine, tmp_path, 2, dry_run=False)).archived == 1
    assert not await engine.store.redis.exists(engine.keys.month_rows(month))  # not kept forever
    assert await _listed(engine, archive_dir=tmp_path) == before
    assert await _listed(engine) == before[:1]


def test_rows_rendered_by_other_code_are_not_used(engine: Engine, monkeypatch):
    """A changed sentence or format in the code that renders rows changes the signature, so
    rows kept before it are remade instead of shown the old way."""
    before = month_rows.signature(engine)
    monkeypatch.setattr(month_rows, "_code", lambda: "another version of the catalogue")
    assert month_rows.signature(engine) != before


def test_an_amount_for_a_spreadsheet_is_a_plain_decimal_in_its_currencys_units():
    from agent.i18n import fmt_amount

    assert fmt_amount(1234567.5, "CNY", grouped=False) == "1234567.50"
    assert fmt_amount(1200, "JPY", grouped=False) == "1200"
    assert fmt_amount(86.4, "GBP") == "86.40" and fmt_amount(1200, "JPY") == "1,200"
    assert month_rows.month_bounds("2026-12") == (
        int(request_pages._bounds(date(2026, 12, 1), None)[0]),
        int(request_pages._bounds(None, date(2026, 12, 31))[1]),
    )
