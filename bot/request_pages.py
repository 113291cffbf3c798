"""Submitted requests read for `approvals-bot requests list|export`, a page at a time.

Newest first, by submission time (keyset pages, so a year costs per request what a week does):
from their records as rows.lua prepares them, a closed month's kept rows while they are true
(bot/month_rows.py) or the archive; as Requests (`iter_requests`) or as the rows
bot/request_rows.py makes (`iter_table_pages`, `iter_csv_pages`, ...). The worker keeps a closed
month's rows with `keep_month` (bot/month_keeper.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, NamedTuple, TypedDict, TypeVar, Unpack

import orjson

from bot import archive, month_rows, request_rows
from workflow import codec
from workflow.engine import Engine
from workflow.errors import ValidationFailed
from workflow.models import Request, RequestStatus
from workflow.store import script_read

T = TypeVar("T")

# Requests read per round trip (one rows.lua script: Redis is held while it runs, ~1 ms for
# 500 records) while streaming a list or an export, and pages read ahead of the one in use.
PAGE = 500
READ_AHEAD = 4
# The worker's build of a month's rows (`keep_month`) lets its loop run the notifier, the
# scheduler and turns after each this many records: ~2-4 ms of CPU at a dense month's (a page
# of 500 in one go was 9-25 ms).
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
    columns = request_rows.export_columns(engine.config, filters.get("process"), with_reasons)
    async for page in iter_export_pages(engine, with_reasons=with_reasons, **filters):
        for cells in page:
            yield dict(zip(columns, cells, strict=True))


async def iter_export_pages(
    engine: Engine, *, with_reasons: bool, **filters: Unpack[Filters]
) -> AsyncIterator[list[tuple[Any, ...]]]:
    """The export rows of `iter_requests`'s requests, in its order, a page at a time, each
    row its cells in `request_rows.export_columns`' order: built from the stored compact
    records without building each Request (a month is tens of thousands of rows)."""
    rows = request_rows.Rows(engine, with_reasons, filters.get("process"))
    async for _, cells in _record_pages(engine, "export", rows.cells, filters):
        yield cells


async def iter_csv_pages(
    engine: Engine, *, with_reasons: bool, **filters: Unpack[Filters]
) -> AsyncIterator[list[str]]:
    """`iter_export_pages`' rows as the lines of a CSV export (the csv module's quoting and
    line ends; `ExportWriter.write_lines`), without making each row a tuple first."""
    rows = request_rows.Rows(engine, with_reasons, filters.get("process"))
    kept = None
    if not with_reasons and filters.get("process") is None:  # the kept rows' columns
        kept = request_rows.Kept(engine, request_rows.Lines(engine), rows, rows.kept_line)
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
    lines = request_rows.Lines(engine)
    kept = request_rows.Kept(engine, lines, request_rows.Rows(engine, False), lines.kept_line)
    async for entries, out in _record_pages(engine, "head", lines, filters, kept):
        yield [(e[0], int(e[1])) for e in entries], out


async def _record_pages(
    engine: Engine,
    mode: str,
    made: Callable[[dict[str, Any], request_rows.Entry], T],
    filters: Filters,
    kept: request_rows.Kept | None = None,
) -> AsyncIterator[tuple[list[Any], list[T]]]:
    """What `made` makes of each of `iter_requests`'s requests, a page at a time, with their
    entries (id, submission ms, ...): from the records as rows.lua prepares them for `mode`
    ('head': the record's own fields; 'export': and its steps' people and times), or, where it
    hands back a whole record, as `request_rows.prepared` does the same, instead of a Request.
    With `kept`, a closed month is read from its kept rows while they are true (`kept.made` of
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
                e = request_rows.prepared((cursor.request_id, str(cursor.score), "3"), c)
                entries.append(e)
                out.append(made(c, e))
            if len(out) >= page:
                yield entries, out
                entries, out = [], []
        if out:
            yield entries, out


async def _keeping(
    engine: Engine, kept: request_rows.Kept, month: str, page: int = PAGE, pause: int = 0
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
    lines = request_rows.Lines(engine)
    kept = request_rows.Kept(engine, lines, request_rows.Rows(engine, False), lines.kept_line)
    made = 0
    async for rows in _keeping(engine, kept, month, pause=KEEP_PAUSE):
        made += len(rows)
    return made


async def _live_pages(
    engine: Engine,
    mode: str,
    made: Callable[[dict[str, Any], request_rows.Entry], T],
    low: int | str,
    high: int | str,
    after: Cursor | None,
    page: int,
    status: str | None,
    process: str | None,
    every: bool,
    *,
    pause_every: int = 0,
) -> AsyncIterator[tuple[list[request_rows.Entry], list[T]]]:
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
            if (
                kind == 1
            ):  # request_rows.prepared by rows.lua (the object's closing brace left to add)
                try:
                    c = loads(e[3] + "}")
                except orjson.JSONDecodeError:  # cut at a form field named "st": read it whole
                    if (whole := await _whole(engine, e[0])) is None:
                        continue  # archived since
                    c = loads(whole)
                    e = request_rows.prepared(e, c)
            elif kind == 2:
                c = loads(e[3])
                e = request_rows.prepared(e, c)
            elif kind == 3:  # the older layout, until `approvals-bot migrate` rewrites it
                c = codec.compact(Request.model_validate_json(e[3]))
                e = request_rows.prepared(e, c)
            else:  # archived or expired since the page's ids were read
                continue
            if every or _kept(c["s"], c["p"], status, process):
                kept.append(e)
                out.append(made(c, e))
        if out:
            yield kept, out


async def _kept_pages(
    reader: month_rows.Reader,
    kept: request_rows.Kept,
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
