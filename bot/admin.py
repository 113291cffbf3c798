"""`approvals-bot requests list|show|export`: HR's view of every request, from the server side.

Reasons are medical data: exports leave them out unless --with-reasons is given.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypedDict, TypeVar, Unpack

import orjson
import redis.asyncio as aioredis

from agent.i18n import fmt_amount
from agent.tools.describe import expense_what, what, what_of, where_it_is
from bot import archive, month_rows
from bot.directory_sources import from_feishu, from_slack, managers_csv, read_csv
from bot.settings import Settings
from bot.wording import history_note
from workflow import codec
from workflow.config import FieldType, OrgConfig
from workflow.directory_sync import Diff, SourceRow, build_people, diff, load, merged, save
from workflow.engine import Engine
from workflow.errors import NotFound, ValidationFailed
from workflow.keys import OrgKeys
from workflow.models import Request, RequestStatus
from workflow.store import hmget_record, script_read, versioned

T = TypeVar("T")

# An export's columns: these, a column per form field (export_fields), then these.
HEAD_COLUMNS = [
    "request_id",
    "process",
    "requester_id",
    "requester",
    "team",
    "status",
    "submitted_at",
    "decided_at",
]
TAIL_COLUMNS = ["working_days", "approvers", "waiting_for", "decided_by"]
# Free text a person wrote about why (a sick leave's reason is medical data): only in the
# `reason` column, and only with --with-reasons.
REASON_FIELDS = ("reason", "description", "purpose")


def export_fields(config: OrgConfig, process: str | None = None) -> list[str]:
    """The form fields an export has a column for: those of its processes (all, or `process`),
    in the organisation file's order, each name once, the reasons left out."""
    names = dict.fromkeys(
        f.name
        for p in config.processes
        if process is None or p.key == process
        for f in p.fields
        if f.name not in REASON_FIELDS
    )
    return list(names)


def export_columns(config: OrgConfig, process: str | None, with_reasons: bool) -> list[str]:
    """The columns of an export, in order (the CSV header)."""
    reason = ["reason"] if with_reasons else []
    return HEAD_COLUMNS + export_fields(config, process) + TAIL_COLUMNS + reason


# Requests read per round trip (one rows.lua script: Redis is held while it runs, ~1 ms for
# 500 records) while streaming a list or an export, and pages read ahead of the one in use.
PAGE = 500
READ_AHEAD = 4
# The worker's build of a month's rows (`keep_month`) lets its loop run the notifier, the
# scheduler and turns after each this many records: ~2-4 ms of CPU at a dense month's (500, a
# page, were 9-18 ms, the more while a chunk is compressed beside it).
KEEP_PAUSE = 100
# `requests list` shows this many, then the next page's cursor (unless --all or --limit).
LIST_PAGE = 100


class Cursor(NamedTuple):
    """Where a page of `requests list` stopped: the submission time (ms) and id of its last
    request (a tuple: one is made for every row of a month's list)."""

    score: int
    request_id: str

    def __str__(self) -> str:
        return f"{self.score}:{self.request_id}"

    @classmethod
    def parse(cls, text: str) -> Cursor:
        score, _, request_id = text.partition(":")
        if not score.isdigit() or not request_id:
            raise ValidationFailed(
                f"{text!r} is not a cursor; pass the value printed after --after by the previous page."
            )
        return cls(int(score), request_id)


def _check_filters(engine: Engine, status: str | None, process: str | None) -> None:
    if status is not None and status not in {s.value for s in RequestStatus}:
        raise ValidationFailed(
            f"Unknown status {status!r}; use one of {', '.join(s.value for s in RequestStatus)}."
        )
    if process is not None:
        engine.process(process)


def _bounds(since: date | None, until: date | None) -> tuple[int | str, int | str]:
    low = int(datetime.combine(since, time(0), UTC).timestamp() * 1000) if since else "-inf"
    high = (
        int(datetime.combine(until + timedelta(days=1), time(0), UTC).timestamp() * 1000) - 1
        if until
        else "+inf"
    )
    return low, high


async def iter_requests(
    engine: Engine,
    *,
    since: date | None,
    until: date | None,
    status: str | None,
    process: str | None,
    after: Cursor | None = None,
    page: int = PAGE,
    archive_dir: Path | None = None,
) -> AsyncIterator[tuple[Cursor, Request]]:
    """Submitted requests in a submission-date range, newest first, `page` per round trip,
    then (with `archive_dir`) those archived for their age, read a month file at a time.

    Pages are cut by submission time (keyset), so reading a year costs the same per request
    as reading a week, and memory holds one page at a time.
    """
    _check_filters(engine, status, process)
    in_redis: set[str] = set()  # decided requests seen in Redis: an interrupted archive run
    async for ids in _pages(engine, *_bounds(since, until), after, page):
        requests = {r.id: r for r in await engine._requests([rid for rid, _ in ids])}
        for rid, score in ids:
            r = requests.get(rid)
            if r is None or not _kept(r.status.value, r.process, status, process):
                continue
            if archive_dir is not None and r.status.is_final:
                in_redis.add(r.id)
            yield Cursor(score, rid), r
    if archive_dir is not None:
        async for cursor, r in _archived(engine, archive_dir, since, until, after, in_redis):
            if _kept(r.status.value, r.process, status, process):
                yield cursor, r


class Filters(TypedDict, total=False):
    """Which requests a list or an export reads (the keywords of `iter_requests`)."""

    since: date | None
    until: date | None
    status: str | None
    process: str | None
    after: Cursor | None
    page: int
    archive_dir: Path | None


async def iter_export_rows(
    engine: Engine, *, with_reasons: bool, **filters: Unpack[Filters]
) -> AsyncIterator[dict[str, Any]]:
    """The export rows of `iter_requests`'s requests, in its order, as column → value."""
    columns = export_columns(engine.config, filters.get("process"), with_reasons)
    async for page in iter_export_pages(engine, with_reasons=with_reasons, **filters):
        for cells in page:
            yield dict(zip(columns, cells, strict=True))


async def iter_export_pages(
    engine: Engine, *, with_reasons: bool, **filters: Unpack[Filters]
) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The export rows of `iter_requests`'s requests, in its order, a page at a time, each
    row its cells in `export_columns`' order: built from the stored compact records without
    building each Request (a month is tens of thousands of rows)."""
    rows = Rows(engine, with_reasons, filters.get("process"))
    async for _, cells in _record_pages(engine, "export", rows.cells, filters):
        yield cells


async def iter_csv_pages(
    engine: Engine, *, with_reasons: bool, **filters: Unpack[Filters]
) -> AsyncIterator[list[str]]:
    """`iter_export_pages`' rows as the lines of a CSV export (the csv module's quoting and
    line ends; `ExportWriter.write_lines`), without making each row a tuple first."""
    rows = Rows(engine, with_reasons, filters.get("process"))
    kept = None
    if not with_reasons and filters.get("process") is None:  # the kept rows' columns
        kept = Kept(engine, Lines(engine), rows, rows.kept_line)
    async for _, lines in _record_pages(engine, "export", rows.line, filters, kept):
        yield lines


async def iter_table_lines(
    engine: Engine, **filters: Unpack[Filters]
) -> AsyncIterator[tuple[Cursor, str]]:
    """`requests list`'s lines (`table_line`) of `iter_requests`'s requests, in its order."""
    async for keys, lines in iter_table_pages(engine, **filters):
        for (rid, score), line in zip(keys, lines, strict=True):
            yield Cursor(score, rid), line


async def iter_table_pages(
    engine: Engine, **filters: Unpack[Filters]
) -> AsyncIterator[tuple[list[tuple[str, int]], list[str]]]:
    """`requests list`'s lines of `iter_requests`'s requests, in its order, a page at a time
    with each line's (request id, submission ms): built from the stored compact records
    without building each Request."""
    lines = Lines(engine)
    kept = Kept(engine, lines, Rows(engine, False), lines.kept_line)
    async for entries, out in _record_pages(engine, "head", lines, filters, kept):
        yield [(e[0], int(e[1])) for e in entries], out


# A record as rows.lua hands it: id, submission ms, kind, body and, for an export, the
# steps' people ("approvers \x1d-joined \x1c holder \x1c deciders \x1d-joined"), the
# submission and decision times (isoformat).
Entry = tuple[str, ...]


def _prepared(e: Entry, c: dict[str, Any]) -> Entry:
    """The entry rows.lua makes of a whole compact record `c` that it left to Python."""
    steps = c.get("st", [])
    current = c.get("c")
    holder = "" if current is None else steps[current].get("h", "")
    approvers = "\x1d".join([s["a"] for s in steps])
    decided = "\x1d".join([s["by"] for s in steps if "by" in s])
    people = f"{approvers}\x1c{holder}\x1c{decided}"
    return (*e[:3], "", people, _iso(c.get("sa")), _iso(c.get("da")))


class Kept:
    """How a view (`requests list`, or the CSV of every process without reasons) uses a closed
    month's kept rows (bot/month_rows.py): `made` of a kept row is the view's output, as its
    own function makes it of a record; reading a month's records to keep them, `row` is what
    is kept of each."""

    def __init__(
        self, engine: Engine, lines: Lines, rows: Rows, made: Callable[[list[Any]], Any]
    ) -> None:
        self.lines, self.rows, self.made = lines, rows, made
        self.signature = month_rows.signature(engine)

    def row(self, c: dict[str, Any], e: Entry) -> list[Any]:
        """A record's kept row (month_rows.KEPT_FIELDS)."""
        what, tail, people = self.lines.what(c), self.rows.tail(c, e), e[4]
        if c["s"] != "pending":  # its holder is not shown: fewer sets of people to name
            approvers, _, deciders = people.split("\x1c")
            people = f"{approvers}\x1c\x1c{deciders}"
        return [c["i"], int(e[1]), c["s"], c["p"], c["r"], people, what, tail]


async def _record_pages(
    engine: Engine,
    mode: str,
    made: Callable[[dict[str, Any], Entry], T],
    filters: Filters,
    kept: Kept | None = None,
) -> AsyncIterator[tuple[list[Any], list[T]]]:
    """What `made` makes of each of `iter_requests`'s requests, a page at a time, with their
    entries (id, submission ms, ...): from the records as rows.lua prepares them for `mode`
    ('head': the record's own fields; 'export': and its steps' people and times), or, where it
    hands back a whole record, as `_prepared` does the same, instead of a Request. With
    `kept`, a closed month is read from its kept rows while they are true (`kept.made` of
    each), and a whole closed month read from its records is kept."""
    since, until, after = filters.get("since"), filters.get("until"), filters.get("after")
    status, process = filters.get("status"), filters.get("process")
    page, archive_dir = filters.get("page", PAGE), filters.get("archive_dir")
    _check_filters(engine, status, process)
    every = status is None and process is None
    in_redis: set[str] = set()
    low, high = _bounds(since, until)
    segments = [(low, high, None)] if kept is None else await _months(engine, low, high, after)
    for seg_low, seg_high, month in segments:
        last = after
        if month is not None and kept is not None:
            reader, used = month_rows.Reader(engine, month, kept.signature), False
            async for entries, out, passed in _kept_pages(
                reader, kept, int(seg_low), int(seg_high), after, status, process
            ):
                used, last = True, passed
                if archive_dir is not None:
                    in_redis.update(e[0] for e in entries)
                if out:
                    yield entries, out
            if reader.complete:
                continue
            # kept rows missing, stale or made otherwise (kept again if missing, or once the
            # month is settled); or they stopped being true half way, and the records are
            # read on from the last kept row passed
            month_low, month_high = month_rows.month_bounds(month)
            if (
                not used
                and (seg_low, seg_high) == (month_low, month_high)
                and (after is None or after.score > month_high)
                and (not reader.found or month_rows.settled(engine, month))
            ):
                # the month is read once, each record made into the row it keeps, and what
                # is shown made from those rows, as it will be from now on
                async for rows in _keeping(engine, kept, month, page):
                    if not every:
                        rows = [r for r in rows if _kept(r[2], r[3], status, process)]
                    if archive_dir is not None:
                        in_redis.update(r[0] for r in rows)
                    if rows:  # a kept row starts as an entry does: id, submission ms
                        yield rows, list(map(kept.made, rows))
                continue
        async for entries, out in _live_pages(
            engine, mode, made, seg_low, seg_high, last, page, status, process, every
        ):
            if archive_dir is not None:  # only decided requests are archived: the others are
                in_redis.update(e[0] for e in entries)  # never looked for
            yield entries, out
    if archive_dir is not None:
        entries, out = [], []
        async for cursor, r in _archived(engine, archive_dir, since, until, after, in_redis):
            if _kept(r.status.value, r.process, status, process):
                c = codec.compact(r)
                e = _prepared((cursor.request_id, str(cursor.score), "3"), c)
                entries.append(e)
                out.append(made(c, e))
            if len(out) >= page:
                yield entries, out
                entries, out = [], []
        if out:
            yield entries, out


async def _keeping(
    engine: Engine, kept: Kept, month: str, page: int = PAGE, pause: int = 0
) -> AsyncIterator[list[list[Any]]]:
    """A closed month read from its records, each made into the row it keeps, a page at a
    time (the loop running its other tasks after each `pause` records, if given); kept
    (month_rows.Keeping) once every page was read."""
    keeping = month_rows.Keeping(
        engine, month, await month_rows.changes(engine, month), kept.signature
    )
    low, high = month_rows.month_bounds(month)
    async for _, rows in _live_pages(
        engine, "export", kept.row, low, high, None, page, None, None, True, pause_every=pause
    ):
        await keeping.add(rows)
        yield rows
    await keeping.save()


async def keep_month(engine: Engine, month: str) -> int:
    """Read a closed month from its records and keep its rows now, whether or not they were
    kept and true (bot/month_keeper.py); returns how many rows were kept."""
    lines = Lines(engine)
    kept = Kept(engine, lines, Rows(engine, False), lines.kept_line)
    made = 0
    async for rows in _keeping(engine, kept, month, pause=KEEP_PAUSE):
        made += len(rows)
    return made


async def _live_pages(
    engine: Engine,
    mode: str,
    made: Callable[[dict[str, Any], Entry], T],
    low: int | str,
    high: int | str,
    after: Cursor | None,
    page: int,
    status: str | None,
    process: str | None,
    every: bool,
    *,
    pause_every: int = 0,
) -> AsyncIterator[tuple[list[Entry], list[T]]]:
    """`_record_pages` from the records between `low` and `high` (ms): each page's entries
    kept by the filters and what `made` made of them (pages with none are left out). With
    `pause_every`, the loop runs its other tasks after each that many records."""
    # Each record is made into its row as soon as it is decoded, never kept for the page: a
    # page of parsed records alive at once makes the garbage collector walk them over and
    # over (it tripled a month's CPU). (A month being kept holds its rows, not its records.)
    loads = orjson.loads
    async for entries in _read_ahead(_pages(engine, low, high, after, page, mode)):
        kept, out = [], []
        for n, e in enumerate(entries, 1):
            if pause_every and n % pause_every == 0:
                await asyncio.sleep(0)
            kind = e[2]
            if kind == 1:  # prepared by rows.lua (the object's closing brace left to add)
                try:
                    c = loads(e[3] + "}")
                except orjson.JSONDecodeError:  # cut at a form field named "st": read it whole
                    if (whole := await _whole(engine, e[0])) is None:
                        continue  # archived since
                    c = loads(whole)
                    e = _prepared(e, c)
            elif kind == 2:
                c = loads(e[3])
                e = _prepared(e, c)
            elif kind == 3:  # the older layout, until `approvals-bot migrate` rewrites it
                c = codec.compact(Request.model_validate_json(e[3]))
                e = _prepared(e, c)
            else:  # archived or expired since the page's ids were read
                continue
            if every or _kept(c["s"], c["p"], status, process):
                kept.append(e)
                out.append(made(c, e))
        if out:
            yield kept, out


async def _kept_pages(
    reader: month_rows.Reader,
    kept: Kept,
    low: int,
    high: int,
    after: Cursor | None,
    status: str | None,
    process: str | None,
) -> AsyncIterator[tuple[list[list[Any]], list[Any], Cursor | None]]:
    """A month's kept rows between `low` and `high` (ms), after `after`: each chunk's rows
    the filters keep (a kept row starts as an entry does: id, ms), what `kept.made` made of
    them, and the last row passed (where reading the records goes on should the kept rows
    stop being true)."""
    last = after
    made = kept.made
    every = status is None and process is None
    async for rows in _read_ahead(reader.chunks()):
        if not rows:
            continue
        first = rows[0]
        if (
            every
            and (after is None or (first[1], first[0]) < (after.score, after.request_id))
            and first[1] <= high
            and rows[-1][1] >= low
        ):
            # the whole chunk (rows run newest first; a kept row starts as an entry does)
            last = Cursor(rows[-1][1], rows[-1][0])
            yield rows, list(map(made, rows)), last
            continue
        entries, out = [], []
        for row in rows:
            rid, ms = row[0], row[1]
            if (
                ms > high
                or ms < low
                or (after is not None and (ms, rid) >= (after.score, after.request_id))
            ):
                continue
            if every or _kept(row[2], row[3], status, process):
                entries.append(row)
                out.append(made(row))
        rid, ms = rows[-1][0], rows[-1][1]
        if ms <= high and (last is None or (ms, rid) < (last.score, last.request_id)):
            last = Cursor(ms, rid)
        yield entries, out, last


async def _months(
    engine: Engine, low: int | str, high: int | str, after: Cursor | None
) -> list[tuple[int | str, int | str, str | None]]:
    """The range's parts, newest first: the closed months (each with its month) and, as one
    part, whatever is newer than the last of them."""
    if after is not None and (high == "+inf" or after.score < int(high)):
        high = after.score
    if low == "-inf" or high == "+inf":
        [oldest, newest] = await engine.store.read(
            ("zrange", [engine.keys.all_requests, 0, 0, False, True]),
            ("zrange", [engine.keys.all_requests, -1, -1, False, True]),
        )
        if not oldest:
            return [(low, high, None)]
        first = int(oldest[0][1]) if low == "-inf" else int(low)
        top = int(newest[0][1]) if high == "+inf" else int(high)
    else:
        first, top = int(low), int(high)
    out: list[tuple[int | str, int | str, str | None]] = []
    month = month_rows.month_at(top) if top >= first else None
    upper: int | str = high
    while month is not None and not month_rows.closed(engine, month):
        month_low = month_rows.month_bounds(month)[0]
        if month_low <= first:
            return [(low, high, None)]
        month = month_rows.month_at(month_low - 1)
    if month is None:
        return [(low, high, None)]
    month_high = month_rows.month_bounds(month)[1]
    if month_high < top:  # the open months' part
        out.append((month_high + 1, upper, None))
    while True:
        month_low, month_high = month_rows.month_bounds(month)
        out.append(
            (
                max(month_low, first) if low != "-inf" else month_low,
                min(month_high, int(high)) if high != "+inf" else month_high,
                month,
            )
        )
        if month_low <= first:
            return out
        month = month_rows.month_at(month_low - 1)


async def _whole(engine: Engine, request_id: str) -> str | None:
    """A request's stored compact record, whole."""
    [body] = await engine.store.read(("hget", [engine.keys.request(request_id), "d"]))
    return body


async def _read_ahead(pages: AsyncIterator[T]) -> AsyncIterator[T]:
    """`pages`, the next ones read while the caller works through this one: on a busy
    machine a round trip waits for Redis to get a core, and that wait, not the reading, was
    most of a large month's time."""
    queue: asyncio.Queue[tuple[T] | Exception | None] = asyncio.Queue(maxsize=READ_AHEAD)

    async def produce() -> None:
        try:
            async for item in pages:
                await queue.put((item,))
        except Exception as e:  # handed to the reader, which raises it where it reads
            await queue.put(e)
        else:
            await queue.put(None)

    producer = asyncio.ensure_future(produce())
    try:
        while (item := await queue.get()) is not None:
            if isinstance(item, Exception):
                raise item
            # Let the reader send its next request before this page's work holds the loop:
            # redis-py checks a pooled connection with a zero-timeout read before it sends,
            # which suspends the reader once, so without this Redis read the next page only
            # after this one was done (a 42,867-row month: list 1.38 -> 0.76 s, export 1.94 ->
            # 1.09 s, with Redis's script and this process's work now overlapping).
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            yield item[0]
    finally:  # done, or the caller stopped early (a page of a list)
        producer.cancel()
        # waited for, so a caller that stops after a page does not leave the read pending
        # when its loop closes ("Task was destroyed but it is pending!")
        with contextlib.suppress(asyncio.CancelledError):
            await producer


def _kept(value: str, of_process: str, status: str | None, process: str | None) -> bool:
    return (status is None or value == status) and (process is None or of_process == process)


async def _archived(
    engine: Engine,
    archive_dir: Path,
    since: date | None,
    until: date | None,
    after: Cursor | None,
    in_redis: set[str],
) -> AsyncIterator[tuple[Cursor, Request]]:
    """Archived requests not also seen in Redis (an archive run that stopped half way)."""
    async for r in archive.archived_async(archive_dir, engine.keys.org, since, until):
        at = int((r.submitted_at or r.created_at).timestamp() * 1000)
        if r.id in in_redis or (
            after is not None and (at, r.id) >= (after.score, after.request_id)
        ):
            continue
        yield Cursor(at, r.id), r


async def _pages(
    engine: Engine,
    low: int | str,
    high: int | str,
    after: Cursor | None,
    page: int,
    mode: str | None = None,
) -> AsyncIterator[list[Any]]:
    """Pages of (request id, submission ms) submitted between `low` and `high` (ms, or '-inf'
    / '+inf'), newest first, from the index of all requests; with `mode` ('head' or
    'export'), rows.lua's entries instead (the ms then a str)."""
    last = after
    if after is not None and (high == "+inf" or after.score < int(high)):
        high = after.score
    offset = 0
    index, prefix = engine.keys.all_requests, engine.keys.request("")
    width = 7 if mode == "export" else 4
    while True:
        entries: list[Any]
        if mode is None:
            [flat] = await engine.store.read(
                script_read("page", [index], [high, low, offset, page])
            )
            pairs = iter(flat)
            entries = list(zip(pairs, map(int, pairs), strict=True))
        else:
            [flat] = await engine.store.read(
                script_read("rows", [index], [high, low, offset, page, prefix, mode])
            )
            entries = list(zip(*[iter(flat)] * width, strict=True))
        if not entries:
            return
        # The page starts at the last one's millisecond: those of that millisecond from the
        # last one's id on (the index orders them by id, descending) were already given.
        skip = 0
        if last is not None:
            while (
                skip < len(entries)
                and int(entries[skip][1]) == last.score
                and entries[skip][0] >= last.request_id
            ):
                skip += 1
        if skip == len(entries):  # a page of requests all submitted in the same millisecond
            offset += page
            continue
        fresh = entries[skip:] if skip else entries
        offset = 0
        yield fresh
        last = Cursor(int(fresh[-1][1]), fresh[-1][0])
        high = last.score
        if len(entries) < page:
            return


async def find_requests(
    engine: Engine,
    *,
    since: date | None,
    until: date | None,
    status: str | None,
    process: str | None,
    limit: int = 10_000,
) -> list[Request]:
    """Submitted requests in a submission-date range, newest first, filtered by status and process."""
    out: list[Request] = []
    async for _, r in iter_requests(
        engine, since=since, until=until, status=status, process=process
    ):
        out.append(r)
        if len(out) >= limit:
            break
    return out


async def get_request(engine: Engine, request_id: str) -> Request:
    [raw] = await engine.store.read(hmget_record(engine.keys.request(request_id)))
    req = versioned(Request, raw)
    if req is None:
        raise NotFound(f"There is no request {request_id}.")
    return req


def row(
    engine: Engine, r: Request, with_reasons: bool, process: str | None = None
) -> dict[str, Any]:
    return Rows(engine, with_reasons, process)(codec.compact(r))


def _iso(value: str | None) -> str:
    """A stored time as Python's isoformat writes it (pydantic writes UTC as 'Z')."""
    if not value:
        return ""
    return value[:-1] + "+00:00" if value[-1] == "Z" else value


class _Names(dict[str, str]):
    """People's names (person id → name), each looked up once per list or export: a month
    repeats the same few thousand people across tens of thousands of rows."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self.directory = engine.directory

    def __missing__(self, person_id: str) -> str:
        found = self[person_id] = self.directory.get(person_id).name
        return found


class _Requesters(dict[str, tuple[str, str]]):
    """People's (name, team), each looked up once per export."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, person_id: str) -> tuple[str, str]:
        found = self[person_id] = (self.names[person_id], self.names.directory.team_of(person_id))
        return found


class _People(dict[str, tuple[str, str, str]]):
    """An export row's approvers, current holder and deciders, named, per entry's people
    (`_prepared`): joined once per export, as a month repeats the same managers. The holder
    is shown only where the request is pending (`Rows`: a decided one shows nobody)."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: str) -> tuple[str, str, str]:
        approvers, holder, decided = key.split("\x1c")
        names = self.names
        found = self[key] = (
            " → ".join([names[a] for a in approvers.split("\x1d")]) if approvers else "",
            names[holder] if holder else "",
            ", ".join([names[b] for b in decided.split("\x1d")]) if decided else "",
        )
        return found


class _Made(dict[str, str]):
    """`make(key)` per key, each made once."""

    def __init__(self, make: Callable[[str], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: str) -> str:
        found = self[key] = self.make(key)
        return found


class _Quoted(dict[Any, str]):
    """Cells as the csv module writes them (quoted where it would), per cells, each once."""

    def __init__(self, cells: Callable[[Any], tuple[Any, ...]]) -> None:
        super().__init__()
        self.cells = cells

    def __missing__(self, key: Any) -> str:
        found = self[key] = ",".join(map(_csv_cell, self.cells(key)))
        return found


def _csv_line(cells: Iterable[Any]) -> str:
    """One row as the csv module writes it, its line end included."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\r\n").writerow(cells)
    return buf.getvalue()


def _csv_cell(value: Any) -> str:
    """One cell as the csv module writes it within a row."""
    text = "" if value is None else str(value)
    if "," in text or '"' in text or "\r" in text or "\n" in text:
        return '"' + text.replace('"', '""') + '"'
    return text


_NONE: dict[str, Any] = {}  # a record's absent form or derived fields


class Rows:
    """Export rows from requests in the compact layout (workflow/codec.py's short names) with
    their entries (`_prepared`), as cells in `export_columns`' order or as CSV lines; names and
    teams are looked up and quoted once per export. An amount of money is written as a plain
    decimal with its currency's minor units ('86.40', JPY '1200'; `fmt_amount`), the
    currency in its own column."""

    def __init__(self, engine: Engine, with_reasons: bool, process: str | None = None) -> None:
        self.with_reasons = with_reasons
        self.columns = export_columns(engine.config, process, with_reasons)
        self._fields = export_fields(engine.config, process)
        self._blanks = [""] * len(self._fields)  # a field the request does not have
        money = {
            f.name for p in engine.config.processes for f in p.fields if f.type is FieldType.MONEY
        }
        self._money = [i for i, name in enumerate(self._fields) if name in money]
        self._names = _Names(engine)
        self._requesters = _Requesters(self._names)
        self._people = _People(self._names)
        # the CSV of the cells that repeat: requester id, name and team; the people, per set
        # of people, as `cells` names them (the holder only where the request is pending)
        self._requester_cells = _Quoted(lambda r: (r, *self._requesters[r]))
        self._process_cells = _Quoted(lambda p: (p,))
        self._pending_cells = _Quoted(self._people.__getitem__)
        self._decided_cells = _Quoted(lambda key: (self._people[key][0], "", self._people[key][2]))
        self._tail_commas = 2 + len(self._fields)  # commas in `tail` where none is quoted

    def __call__(self, c: dict[str, Any]) -> dict[str, Any]:
        """The row of a whole compact record as column → value."""
        e = _prepared((c["i"], "0", "2"), c)
        return dict(zip(self.columns, self.cells(c, e), strict=True))

    def _values(self, f: dict[str, Any]) -> list[Any]:
        """The form's values in the export's field columns, amounts written as decimals."""
        values = list(map(f.get, self._fields, self._blanks))
        for i in self._money:
            if isinstance(amount := values[i], int | float) and not isinstance(amount, bool):
                currency = f.get("currency")
                values[i] = fmt_amount(
                    amount, currency if isinstance(currency, str) else None, grouped=False
                )
        return values

    def cells(self, c: dict[str, Any], e: Entry) -> tuple[Any, ...]:
        f, status = c.get("f", _NONE), c["s"]
        approvers, holder, decided = self._people[e[4]]
        out = (
            c["i"],
            c["p"],
            c["r"],
            *self._requesters[c["r"]],
            status,
            e[5],
            e[6],
            *self._values(f),
            c.get("x", _NONE).get("working_days", ""),
            approvers,
            holder if status == "pending" else "",
            decided,
        )
        if self.with_reasons:
            return (*out, f.get("reason") or f.get("description") or f.get("purpose") or "")
        return out

    def tail(self, c: dict[str, Any], e: Entry) -> str:
        """The CSV of a row's cells after its status, up to its people: submitted, decided, the
        form's fields, working days (what a closed month keeps of it: bot/month_rows.py)."""
        cells = (
            e[5],
            e[6],
            *self._values(c.get("f", _NONE)),
            c.get("x", _NONE).get("working_days", ""),
        )
        text = ",".join(map(str, cells))
        # Most need no quoting, as the csv module would write them; a quote, a line break, a
        # null (written empty) or a comma the count finds, and each cell is quoted as it does.
        if (
            text.count(",") == self._tail_commas
            and '"' not in text
            and "\r" not in text
            and "\n" not in text
            and "None" not in text  # a null, or the text None
        ):
            return text
        return ",".join(map(_csv_cell, cells))

    def line(self, c: dict[str, Any], e: Entry) -> str:
        """The row as the csv module writes it (`cells`), line end included."""
        line = self._join(c["i"], c["p"], c["r"], c["s"], e[4], self.tail(c, e))
        if self.with_reasons:
            f = c.get("f", _NONE)
            reason = f.get("reason") or f.get("description") or f.get("purpose") or ""
            return f"{line},{_csv_cell(reason)}\r\n"
        return line + "\r\n"

    def kept_line(self, row: list[Any]) -> str:
        """The line of a month's kept row (bot/month_rows.py), as `line` makes it."""
        return self._join(row[0], row[3], row[4], row[2], row[5], row[7]) + "\r\n"

    def _join(
        self, rid: str, process: str, requester: str, status: str, people: str, tail: str
    ) -> str:
        # the cells that repeat (process, requester, people) are quoted once per export
        who = (self._pending_cells if status == "pending" else self._decided_cells)[people]
        if "," in rid or '"' in rid or "\n" in rid or "\r" in rid:  # never the engine's ids
            rid = _csv_cell(rid)
        return (
            f"{rid},{self._process_cells[process]},{self._requester_cells[requester]},"
            f"{status},{tail},{who}"
        )


def export(
    engine: Engine,
    requests: Iterable[Request],
    fmt: str,
    with_reasons: bool,
    process: str | None = None,
) -> str:
    buf = io.StringIO()
    writer = ExportWriter(engine, buf, fmt, with_reasons, process)
    for r in requests:
        writer.write(r)
    writer.close()
    return buf.getvalue()


class ExportWriter:
    """Writes export rows (`Rows.cells`) to a stream as they come (CSV with its header first,
    or JSON lines)."""

    def __init__(
        self,
        engine: Engine,
        out: TextIO,
        fmt: str,
        with_reasons: bool,
        process: str | None = None,
    ) -> None:
        self.out = out
        self.count = 0
        self._rows = Rows(engine, with_reasons, process)
        self._csv: Any = None  # a csv writer (its type is private to the csv module)
        self._line = io.StringIO()  # one row as the csv module quotes it
        if fmt != "json":
            self._csv = csv.writer(self._line, lineterminator="\r\n")
            self._csv.writerow(self._rows.columns)
            out.write(self._quoted())

    def write(self, r: Request) -> None:
        c = codec.compact(r)
        self.write_rows([self._rows.cells(c, _prepared((r.id, "0", "2"), c))])

    def write_lines(self, lines: list[str]) -> None:
        """CSV lines as `iter_csv_pages` makes them (after the header this writer wrote)."""
        self.count += len(lines)
        self.out.write("".join(lines))

    def write_rows(self, rows: list[tuple[Any, ...]]) -> None:
        self.count += len(rows)
        if self._csv is None:
            columns = self._rows.columns
            lines = [orjson.dumps(dict(zip(columns, x, strict=True))).decode() for x in rows]
            self.out.write("".join([line + "\n" for line in lines]))
            return
        # Most rows need no quoting: such a row is its cells joined, as the csv module writes
        # it, at a third of the module's cost per row, and a cell with a comma (but no quote or
        # line break) is quoted as the module quotes it; a row with a quote or a line break in
        # a cell, or an empty cell (None), is left to the module.
        commas, out = len(self._rows.columns) - 1, []
        for x in rows:
            text = ",".join(map(str, x))
            if (
                '"' not in text
                and "\r" not in text
                and "\n" not in text
                and ("None" not in text or None not in x)
            ):
                if text.count(",") != commas:  # e.g. decided_by: "Ann Lee, Bo Li"
                    text = ",".join([f'"{v}"' if "," in v else v for v in map(str, x)])
                out.append(text + "\r\n")
            else:
                self._csv.writerow(x)
                out.append(self._quoted())
        self.out.write("".join(out))

    def _quoted(self) -> str:
        """The row the csv writer just wrote, taken from its buffer."""
        line = self._line.getvalue()
        self._line.seek(0)
        self._line.truncate()
        return line

    def close(self) -> None:
        self.out.flush()


TABLE_HEADER = f"{'REQUEST':<11} {'STATUS':<10} {'REQUESTER':<14} WHAT"


def table_line(engine: Engine, r: Request) -> str:
    return Lines(engine)(codec.compact(r))


class Lines:
    """`requests list`'s lines from requests in the compact layout; names, the descriptions
    of leave (a month repeats the same dates many times) and of expenses but for the amount
    are made once."""

    def __init__(self, engine: Engine) -> None:
        self.config = engine.config
        names = _Names(engine)
        # the status and requester columns, padded, formatted once per list
        self._statuses = _Made(lambda status: f"{status:<10} ")
        self._requesters = _Made(lambda person_id: f"{names[person_id]:<14} ")
        self._leave: dict[tuple[Any, ...], str] = {}
        self._expenses: dict[tuple[Any, ...], str] = {}

    def __call__(self, c: dict[str, Any], e: Entry | None = None) -> str:
        return self._line(c["i"], c["s"], c["r"], self.what(c))

    def kept_line(self, row: list[Any]) -> str:
        """The line of a month's kept row (bot/month_rows.py), as `__call__` makes it."""
        return self._line(row[0], row[2], row[4], row[6])

    def _line(self, request_id: str, status: str, requester: str, what: str) -> str:
        return f"{request_id:<11} {self._statuses[status]}{self._requesters[requester]}{what}"

    def what(self, c: dict[str, Any]) -> str:
        """The request's description (the line's last column)."""
        f = c["f"]
        if c["k"] == "leave":
            x = c.get("x", _NONE)
            key = (
                c["p"],
                f["leave_type"],
                f["start"],
                f["end"],
                f.get("start_half"),
                f.get("end_half"),
                x.get("working_days"),
            )
            what = self._leave.get(key) or self._leave_what(key, c)
        elif c["p"] == "expense":
            currency = f.get("currency")
            key = (currency, f.get("category", ""))
            sentence = self._expenses.get(key) or self._expense(key, f)
            what = sentence.replace(_AMOUNT, fmt_amount(f.get("amount", 0), currency), 1)
        else:
            what = what_of(c["k"], c["p"], f, c.get("x", _NONE), self.config, "en")
        return what

    def _leave_what(self, key: tuple[Any, ...], c: dict[str, Any]) -> str:
        found = self._leave[key] = what_of(
            c["k"], c["p"], c["f"], c.get("x", _NONE), self.config, "en"
        )
        return found

    def _expense(self, key: tuple[Any, ...], f: dict[str, Any]) -> str:
        """An expense's description per currency and category, made once with a stand-in
        where its amount goes (amounts rarely repeat)."""
        name = self.config.processes_by_key["expense"].display_name("en")
        found = self._expenses[key] = expense_what(name, f, _AMOUNT, "en")
        return found


# Where an expense's amount goes in its cached description (`Lines`): text no name holds.
_AMOUNT = "\x00"


def table(engine: Engine, requests: list[Request]) -> str:
    lines = [TABLE_HEADER, *(table_line(engine, r) for r in requests)]
    lines.append(f"({len(requests)} request{'s' if len(requests) != 1 else ''})")
    return "\n".join(lines)


def details(engine: Engine, r: Request) -> str:
    d = engine.directory
    out = [
        f"{r.id} · {what(r, engine.config, 'en')}",
        f"requester: {d.get(r.requester).name} ({r.requester})",
        f"status: {where_it_is(r, d, 'en')}",
    ]
    for k, v in r.fields.items():
        out.append(f"  {k}: {v}")
    out.append("steps:")
    for s in r.steps:
        who = d.get(s.assignee or s.approver).name
        out.append(
            f"  {s.index + 1}. {s.name}: {who} — {s.status.value}"
            + (f" ({s.comment})" if s.comment else "")
        )
    out.append("history:")
    for h in r.history:
        actor = d.get(h.actor).name if h.actor else "system"
        note = history_note(h, engine, "en")
        out.append(f"  {h.at:%Y-%m-%d %H:%M} {actor}: {h.action}" + (f" — {note}" if note else ""))
    return "\n".join(out)


# --- directory sync -------------------------------------------------------------------------


async def directory_rows(source: str, settings: Settings, args: Any) -> list[SourceRow]:
    """The people of a source, as rows (see bot/directory_sources.py)."""
    if source == "csv":
        if not args.file:
            raise ValidationFailed("directory sync --from csv needs --file PATH (the HRIS export)")
        path = Path(args.file)
        return read_csv(await asyncio.to_thread(path.read_text, "utf-8"), path.name)
    if source == "slack":
        if settings.slack_bot_token is None:
            raise ValidationFailed("directory sync --from slack needs SLACK_BOT_TOKEN")
        return await from_slack(
            settings.slack_bot_token.get_secret_value(),
            base_url=settings.slack_api_url,
            manager_field=args.manager_field,
            managers=await asyncio.to_thread(managers_csv, Path(args.managers))
            if args.managers
            else None,
        )
    if settings.feishu_app_id is None or settings.feishu_app_secret is None:
        raise ValidationFailed(
            "directory sync --from feishu needs FEISHU_APP_ID and FEISHU_APP_SECRET"
        )
    return await from_feishu(
        settings.feishu_api_url,
        settings.feishu_app_id,
        settings.feishu_app_secret.get_secret_value(),
    )


async def directory_sync(
    redis: aioredis.Redis,
    config: OrgConfig,
    rows: list[SourceRow],
    *,
    source: str,
    default_timezone: str,
    default_country: str | None,
    dry_run: bool,
    now: datetime,
) -> Diff:
    """Validate the source's people against the organisation file, and store them unless dry_run.

    Nothing is written when any row has a problem (DirectorySyncError lists them all) or
    when the people and the file disagree (a role no one holds, an override matching nobody).
    """
    people = build_people(rows, default_timezone=default_timezone, default_country=default_country)
    merged(config, people)  # the processes' roles and the overrides must still hold
    keys = OrgKeys(config.organisation.id)
    change = diff(await load(redis, keys), people)
    if not dry_run:
        await save(redis, keys, people, {"source": source, "synced_at": now.isoformat()})
    return change
