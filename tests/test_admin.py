"""HR's admin commands: list, show and export requests, reasons left out unless asked for."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import secrets
import subprocess
import sys
from datetime import date
from importlib import resources

import pytest
import redis

from bot import admin, request_pages, request_rows
from bot.cli import main
from bot.runtime import build_runtime
from bot.settings import load_settings
from tests.conftest import real_redis_url
from tests.helpers import ANNUAL_2_DAYS, SICK_6_DAYS, submitted
from workflow.engine import Engine
from workflow.errors import NotFound, ValidationFailed


async def test_list_filters_by_status_process_and_dates(engine: Engine):
    """Filters narrow the list; an unknown status or process is a clear error."""
    a = await submitted(engine, fields=SICK_6_DAYS)
    b = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await engine.decide(b.id, 0, "emma", "approve")
    everything = await request_pages.find_requests(
        engine, since=None, until=None, status=None, process=None
    )
    assert {r.id for r in everything} == {a.id, b.id}
    approved = await request_pages.find_requests(
        engine, since=None, until=None, status="approved", process="leave"
    )
    assert [r.id for r in approved] == [b.id]
    assert (
        await request_pages.find_requests(
            engine, since=date(2026, 12, 3), until=None, status=None, process=None
        )
        == []
    )
    with pytest.raises(ValidationFailed, match="Unknown status"):
        await request_pages.find_requests(
            engine, since=None, until=None, status="lost", process=None
        )
    with pytest.raises(NotFound):
        await request_pages.find_requests(
            engine, since=None, until=None, status=None, process="holiday"
        )


async def test_export_leaves_reasons_out_unless_asked(engine: Engine):
    """CSV and JSON exports carry the facts; the medical reason only with --with-reasons."""
    await submitted(engine, fields={**SICK_6_DAYS, "reason": "胃肠炎"})
    found = await request_pages.find_requests(
        engine, since=None, until=None, status=None, process=None
    )
    text = request_rows.export(engine, found, "csv", with_reasons=False)
    [row] = list(csv.DictReader(io.StringIO(text)))
    assert (row["requester"], row["leave_type"], row["working_days"], row["waiting_for"]) == (
        "张三",
        "sick",
        "6.0",
        "王芳",
    )
    assert "胃肠炎" not in text
    assert (
        json.loads(request_rows.export(engine, found, "json", with_reasons=True))["reason"]
        == "胃肠炎"
    )


async def test_show_prints_steps_and_history(engine: Engine):
    """`show` gives the fields, steps and history of one request."""
    req = await submitted(engine)
    text = admin.details(engine, await admin.get_request(engine, req.id))
    assert "1. Manager: 王芳 — pending" in text and "张三: submitted" in text
    with pytest.raises(NotFound):
        await admin.get_request(engine, "R-NOPE")


def test_the_cli_says_what_is_wrong_in_one_line():
    """A bad date or a missing id is one line on stderr and exit 2."""
    env = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    bad = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "list", "--since", "yesterday"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert bad.returncode == 2 and "'yesterday' is not a date" in bad.stderr
    missing = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "show"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert missing.returncode == 2 and "needs a request id" in missing.stderr
    empty = subprocess.run(
        [sys.executable, "-m", "bot.cli", "requests", "export", "--format", "csv"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert empty.returncode == 0 and empty.stdout.startswith("request_id,process,requester_id")


EXPENSE = {
    "amount": 120,
    "currency": "CNY",
    "category": "meals",
    "spent_on": "2026-11-30",
    "description": "team lunch",
}


async def _ids(stream) -> list[str]:
    return [r.id async for _, r in stream]


async def test_lists_stream_in_pages_and_continue_after_a_cursor(engine: Engine, clock):
    """Requests stream newest first a page at a time, each once, even when many share one
    millisecond; a page's cursor continues exactly where it stopped."""
    from datetime import timedelta

    made = []
    for i in range(7):
        made.append((await submitted(engine, process="expense", fields=EXPENSE)).id)
        if i % 3 == 2:
            clock.advance(timedelta(minutes=1))  # the rest share a millisecond with a neighbour
    filters = {"since": None, "until": None, "status": None, "process": None}
    everything = await _ids(request_pages.iter_requests(engine, **filters, page=2))
    assert sorted(everything) == sorted(made) and len(everything) == 7
    assert everything[0] == made[-1]  # newest first
    first_page, cursor = [], None
    async for at, r in request_pages.iter_requests(engine, **filters, page=2):
        first_page.append(r.id)
        cursor = at
        if len(first_page) == 3:
            break
    rest = await _ids(request_pages.iter_requests(engine, **filters, after=cursor, page=2))
    assert first_page + rest == everything
    again = request_pages.Cursor.parse(str(cursor))
    assert await _ids(request_pages.iter_requests(engine, **filters, after=again)) == rest
    with pytest.raises(ValidationFailed, match="not a cursor"):
        request_pages.Cursor.parse("yesterday")


def cli_org(monkeypatch, tmp_path) -> tuple[str, str]:
    """The demo organisation under a fresh id on the real Redis, for the command line: (its
    Redis URL, its id)."""
    url = real_redis_url()
    org = "t" + secrets.token_hex(6)
    config = tmp_path / "org.toml"
    demo = resources.files("workflow.data").joinpath("demo_org.toml").read_text("utf-8")
    config.write_text(demo.replace('id = "acme"', f'id = "{org}"', 1), "utf-8")
    monkeypatch.setenv("APPROVALS_CONFIG", str(config))
    monkeypatch.setenv("REDIS_URL", url)
    return url, org


def test_requests_list_pages_from_the_command_line(monkeypatch, capsys, tmp_path):
    """`requests list` prints a page and the --after cursor of the next (--limit N rows a
    page), and every request with --all."""
    url, org = cli_org(monkeypatch, tmp_path)

    async def fill() -> None:
        runtime = build_runtime(load_settings())
        try:
            for _ in range(5):
                await submitted(runtime.engine, process="expense", fields=EXPENSE)
        finally:
            await runtime.close()

    asyncio.run(fill())
    capsys.readouterr()
    try:
        assert main(["requests", "list", "--limit", "2"]) == 0
        out = capsys.readouterr().out.splitlines()
        assert len(out) == 4 and out[-1].startswith(
            "(2 shown; --all for every one, or the next page: --after "
        )
        cursor = out[-1].split("--after ")[1].rstrip(")")
        assert main(["requests", "list", "--after", cursor]) == 0
        rest = capsys.readouterr().out.splitlines()
        assert rest[-1] == "(3 requests)"
        assert not {line.split()[0] for line in out[1:3]} & {line.split()[0] for line in rest[1:4]}
        monkeypatch.setattr(request_pages, "LIST_PAGE", 3)  # a page unless --all
        assert main(["requests", "list"]) == 0
        page = capsys.readouterr().out.splitlines()
        assert len(page) == 5 and "--all for every one" in page[-1]
        assert main(["requests", "list", "--all"]) == 0
        assert capsys.readouterr().out.splitlines()[-1] == "(5 requests)"
    finally:
        client = redis.Redis.from_url(url)
        for key in client.scan_iter(match="{" + org + "}:*", count=500):
            client.delete(key)
        client.close()


async def _mixed(engine: Engine) -> list:
    """Pending and approved leave, a rejected expense, and an expense in the older layout."""
    from workflow.codec import OLD_FIELD

    a = await submitted(engine, fields={**SICK_6_DAYS, "reason": "胃肠炎"})
    b = await submitted(engine, actor="oliver", fields=ANNUAL_2_DAYS)
    await engine.decide(b.id, 0, "emma", "approve")
    c = await submitted(engine, process="expense", fields=EXPENSE)
    old = await submitted(engine, process="expense", fields=EXPENSE)
    await engine.decide(c.id, 0, c.open_step().assignee, "reject", "no receipt")
    key = engine.keys.request(old.id)  # as the older layout stored it: the full JSON in `data`
    await engine.store.redis.hset(key, OLD_FIELD, old.model_dump_json(exclude={"version"}))
    await engine.store.redis.hdel(key, "d")
    return [a, b, c, old]


async def test_list_lines_read_from_stored_records_say_what_the_requests_say(engine: Engine):
    """`requests list` reads its lines from the stored records without building a Request:
    each says the id, status, requester and what the request is, as the Request does, the
    older layout too, with filters and a page cursor."""
    from agent.tools.describe import what

    made = await _mixed(engine)
    for filters in (
        {"status": None, "process": None},
        {"status": "pending", "process": None},
        {"status": None, "process": "leave"},
    ):
        requests = [
            r
            async for _, r in request_pages.iter_requests(engine, since=None, until=None, **filters)
        ]
        expected = [
            f"{r.id:<11} {r.status.value:<10} {engine.person(r.requester).name:<14} "
            + what(r, engine.config, "en")
            for r in requests
        ]
        got = [
            line
            async for _, line in request_pages.iter_table_lines(
                engine, since=None, until=None, **filters, page=2
            )
        ]
        assert got == expected and got
    lines = [
        line
        async for _, line in request_pages.iter_table_lines(
            engine, since=None, until=None, status=None, process=None
        )
    ]
    assert sorted(line.split()[0] for line in lines) == sorted(r.id for r in made)
    assert any("Sick leave" in line and "6 working days" in line for line in lines)


async def test_streamed_export_rows_match_the_requests_rows(engine: Engine):
    """The export streamed from the stored records (no Request built) has exactly the rows of
    the requests it lists: pending, approved, rejected, expenses, an older-layout record, with
    filters and a page cursor."""
    a, b, c, old = await _mixed(engine)
    everything: list[dict] = []
    for filters in (
        {"status": None, "process": None},
        {"status": "pending", "process": None},
        {"status": None, "process": "expense"},
    ):
        expected = [
            request_rows.row(engine, r, True, filters["process"])
            async for _, r in request_pages.iter_requests(engine, since=None, until=None, **filters)
        ]
        got = [
            x
            async for x in request_pages.iter_export_rows(
                engine, since=None, until=None, **filters, with_reasons=True, page=2
            )
        ]
        assert got == expected and got
        everything = everything or got
    london = next(x for x in everything if x["request_id"] == b.id)  # UTC+0: stored with a 'Z'
    assert london["submitted_at"] == b.submitted_at.isoformat()
    ids = [
        x["request_id"]
        async for x in request_pages.iter_export_rows(
            engine, since=None, until=None, status=None, process=None, with_reasons=False
        )
    ]
    assert sorted(ids) == sorted([a.id, b.id, c.id, old.id])


async def test_streamed_csv_is_what_the_csv_module_writes_of_each_requests_row(engine: Engine):
    """The streamed CSV export (rows needing no quotes joined without the csv module) is, byte
    for byte, what the csv module writes of the rows built from each Request: quotes, commas
    and line breaks in a cell, non-ASCII, numbers, the older layout, over several pages."""
    await _mixed(engine)
    tricky = {**EXPENSE, "amount": 99.5, "description": 'taxi, "airport"\nand back'}
    await submitted(engine, actor="oliver", process="expense", fields=tricky)
    commas = {**EXPENSE, "description": "hotel, two nights, breakfast"}
    await submitted(engine, actor="oliver", process="expense", fields=commas)
    everything = {"since": None, "until": None, "status": None, "process": None}
    requests = [r async for _, r in request_pages.iter_requests(engine, **everything)]
    for with_reasons in (False, True):
        expected = _module_csv(engine, requests, with_reasons)
        got = io.StringIO()
        writer = request_rows.ExportWriter(engine, got, "csv", with_reasons)
        async for page in request_pages.iter_export_pages(
            engine, **everything, with_reasons=with_reasons, page=2
        ):
            writer.write_rows(page)
        assert got.getvalue() == expected
        assert writer.count == len(requests) == 6
        assert await _streamed_csv(engine, with_reasons, page=2) == expected
    assert '"taxi, ""airport""\nand back"' in got.getvalue()
    assert ',"hotel, two nights, breakfast"\r\n' in got.getvalue()


async def test_csv_lines_match_the_csv_module_for_records_read_the_slow_way(config, redis, clock):
    """Rows the read script leaves to Python (a form field named like the steps, a record
    with a backslash among its steps' fields, the older layout), a requester whose name has
    a comma, a null field and pending requests (their holder named) come out of `requests
    export` as the csv module writes them, and out of `requests list` as their lines."""
    from workflow.codec import COMPACT_FIELD

    people = [  # a name the csv module quotes
        p.model_copy(update={"name": "Twist, Oliver"}) if p.id == "oliver" else p
        for p in config.people
    ]
    engine = Engine(config.model_copy(update={"people": people}), redis, clock)
    await _mixed(engine)

    async def stored_as(request_id: str, change) -> None:
        key = engine.keys.request(request_id)
        stored = json.loads(await engine.store.redis.hget(key, COMPACT_FIELD))
        change(stored)
        text = json.dumps(stored, separators=(",", ":"), ensure_ascii=False)
        await engine.store.redis.hset(key, COMPACT_FIELD, text)

    odd = await submitted(engine, actor="oliver", process="expense", fields=EXPENSE)
    await stored_as(  # a form field named like the steps, and a null
        odd.id, lambda d: d["f"].update({"st": {"x": 1}, "currency": None})
    )
    noted = await submitted(engine, process="expense", fields=EXPENSE)
    await stored_as(noted.id, lambda d: d["st"][0].update({"cm": 'said "no\\"'}))
    everything = {"since": None, "until": None, "status": None, "process": None}
    requests = [r async for _, r in request_pages.iter_requests(engine, **everything)]
    assert any(r.id == odd.id and r.fields["currency"] is None for r in requests)
    for with_reasons in (False, True):
        got = await _streamed_csv(engine, with_reasons, page=3)
        assert got == _module_csv(engine, requests, with_reasons)
    assert '"Twist, Oliver"' in got
    listed = [
        line async for _, line in request_pages.iter_table_lines(engine, **everything, page=3)
    ]
    assert listed == [request_rows.table_line(engine, r) for r in requests]


def _module_csv(engine: Engine, requests: list, with_reasons: bool) -> str:
    """What the csv module writes of the rows built from each Request."""
    out = io.StringIO()
    module = csv.writer(out, lineterminator="\r\n")
    columns = request_rows.export_columns(engine.config, None, with_reasons)
    module.writerow(columns)
    for r in requests:
        module.writerow([request_rows.row(engine, r, with_reasons)[k] for k in columns])
    return out.getvalue()


async def _streamed_csv(engine: Engine, with_reasons: bool, page: int) -> str:
    """Every request as `requests export --format csv` writes it, `page` read at a time."""
    out = io.StringIO()
    writer = request_rows.ExportWriter(engine, out, "csv", with_reasons)
    async for lines in request_pages.iter_csv_pages(
        engine,
        since=None,
        until=None,
        status=None,
        process=None,
        with_reasons=with_reasons,
        page=page,
    ):
        writer.write_lines(lines)
    return out.getvalue()
