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
from bot import archive
from bot.directory_sources import from_feishu, from_slack, managers_csv, read_csv
from bot.settings import Settings
from bot.wording import history_note
from workflow import codec
from workflow.config import OrgConfig
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
    async for ids in _pages(engine, since, until, after, page):
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
    async for _, lines in _record_pages(engine, "export", rows.line, filters):
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
    async for entries, lines in _record_pages(engine, "head", Lines(engine), filters):
        yield [(e[0], int(e[1])) for e in entries], lines


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


async def _record_pages(
    engine: Engine,
    mode: str,
    made: Callable[[dict[str, Any], Entry], T],
    filters: Filters,
) -> AsyncIterator[tuple[list[Entry], list[T]]]:
    """What `made` makes of each of `iter_requests`'s requests, a page at a time, with their
    entries (id, submission ms, ...): from the records as rows.lua prepares them for `mode`
    ('head': the record's own fields; 'export': and its steps' people and times), or, where it
    hands back a whole record, as `_prepared` does the same, instead of a Request."""
    # Each record is made into its row as soon as it is decoded, never kept for the page: a
    # page of parsed records alive at once makes the garbage collector walk them over and
    # over (it tripled a month's CPU).
    since, until, after = filters.get("since"), filters.get("until"), filters.get("after")
    status, process = filters.get("status"), filters.get("process")
    page, archive_dir = filters.get("page", PAGE), filters.get("archive_dir")
    _check_filters(engine, status, process)
    every = status is None and process is None
    in_redis: set[str] = set()
    loads = orjson.loads
    async for entries in _read_ahead(_pages(engine, since, until, after, page, mode)):
        kept, out = [], []
        for e in entries:
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
        if archive_dir is not None:  # only decided requests are archived: the others are
            in_redis.update(e[0] for e in kept)  # never looked for
        if out:
            yield kept, out
    if archive_dir is not None:
        kept, out = [], []
        async for cursor, r in _archived(engine, archive_dir, since, until, after, in_redis):
            if _kept(r.status.value, r.process, status, process):
                c = codec.compact(r)
                e = _prepared((cursor.request_id, str(cursor.score), "3"), c)
                kept.append(e)
                out.append(made(c, e))
            if len(out) >= page:
                yield kept, out
                kept, out = [], []
        if out:
            yield kept, out


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
    since: date | None,
    until: date | None,
    after: Cursor | None,
    page: int,
    mode: str | None = None,
) -> AsyncIterator[list[Any]]:
    """Pages of (request id, submission ms), newest first, from the index of all requests;
    with `mode` ('head' or 'export'), rows.lua's entries instead (the ms then a str)."""
    low, high = _bounds(since, until)
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
    """An export row's approvers, current holder's id and deciders, per entry's people
    (`_prepared`): joined once per export, as a month repeats the same managers. The holder
    is named only where the request is pending, as before (a decided one shows nobody)."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: str) -> tuple[str, str, str]:
        approvers, holder, decided = key.split("\x1c")
        names = self.names
        found = self[key] = (
            " → ".join([names[a] for a in approvers.split("\x1d")]) if approvers else "",
            holder,
            ", ".join([names[b] for b in decided.split("\x1d")]) if decided else "",
        )
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
    teams are looked up and quoted once per export."""

    def __init__(self, engine: Engine, with_reasons: bool, process: str | None = None) -> None:
        self.with_reasons = with_reasons
        self.columns = export_columns(engine.config, process, with_reasons)
        self._fields = export_fields(engine.config, process)
        self._blanks = [""] * len(self._fields)  # a field the request does not have
        self._names = _Names(engine)
        self._requesters = _Requesters(self._names)
        self._people = _People(self._names)
        # the CSV of the cells that repeat: requester id, name and team; the people
        self._requester_cells = _Quoted(lambda r: (r, *self._requesters[r]))
        self._pending_cells = _Quoted(self._pending)
        self._decided_cells = _Quoted(
            lambda key: (*self._people[key][:1], "", self._people[key][2])
        )
        # commas in `line`'s cells up to the people, where none needs quoting
        self._commas = 8 + len(self._fields)
        self._templates: dict[tuple[str, ...], str] = {}

    def _pending(self, key: str) -> tuple[str, str, str]:
        approvers, holder, decided = self._people[key]
        return approvers, self._names[holder] if holder else "", decided

    def __call__(self, c: dict[str, Any]) -> dict[str, Any]:
        """The row of a whole compact record as column → value."""
        e = _prepared((c["i"], "0", "2"), c)
        return dict(zip(self.columns, self.cells(c, e), strict=True))

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
            *map(f.get, self._fields, self._blanks),
            c.get("x", _NONE).get("working_days", ""),
            approvers,
            self._names[holder] if holder and status == "pending" else "",
            decided,
        )
        if self.with_reasons:
            return (*out, f.get("reason") or f.get("description") or f.get("purpose") or "")
        return out

    def line(self, c: dict[str, Any], e: Entry) -> str:
        """The row as the csv module writes it (`cells`), line end included."""
        f, status = c.get("f", _NONE), c["s"]
        # The row's cells, formatted by one template per set of form fields (a process's form,
        # mostly), up to the people (cells that repeat, quoted once: _Quoted): most need no
        # quoting (the csv module would write them so); a row with a quote, a line break or a
        # null, or a comma the count finds (also in a requester's name), is left to the module.
        names = tuple(f)
        template = self._templates.get(names) or self._template(names)
        own = template.format(
            c["i"],
            c["p"],
            self._requester_cells[c["r"]],
            status,
            e[5],
            e[6],
            c.get("x", _NONE).get("working_days", ""),
            *f.values(),
        )
        if (
            own.count(",") != self._commas
            or '"' in own
            or "\r" in own
            or "\n" in own
            or "None" in own  # a null (the module writes it empty), or the text None
        ):
            return _csv_line(self.cells(c, e))
        people = (self._pending_cells if status == "pending" else self._decided_cells)[e[4]]
        if self.with_reasons:
            reason = f.get("reason") or f.get("description") or f.get("purpose") or ""
            return f"{own},{people},{_csv_cell(reason)}\r\n"
        return f"{own},{people}\r\n"

    def _template(self, names: tuple[str, ...]) -> str:
        """`line`'s format of a row's cells up to its people, for a form with these fields in
        this order: id, process, requester (id, name, team), status, submitted, decided ({0}-{5}),
        the export's form fields (from the form's values, {7} on, or empty), working days ({6})."""
        where = {name: i for i, name in enumerate(names)}
        fields = [f"{{{7 + where[name]}}}" if name in where else "" for name in self._fields]
        found = self._templates[names] = ",".join(["{0},{1},{2},{3},{4},{5}", *fields, "{6}"])
        return found


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


class _Middles(dict[tuple[str, str], str]):
    """A list line's status and requester columns, padded, per (status, person): formatted
    once per list, as a month repeats them."""

    def __init__(self, names: _Names) -> None:
        super().__init__()
        self.names = names

    def __missing__(self, key: tuple[str, str]) -> str:
        status, person_id = key
        found = self[key] = f"{status:<10} {self.names[person_id]:<14} "
        return found


class Lines:
    """`requests list`'s lines from requests in the compact layout; names, the descriptions
    of leave (a month repeats the same dates many times) and of expenses but for the amount
    are made once."""

    def __init__(self, engine: Engine) -> None:
        self.config = engine.config
        self._middles = _Middles(_Names(engine))
        self._leave: dict[tuple[Any, ...], str] = {}
        self._expenses: dict[tuple[Any, ...], str] = {}

    def __call__(self, c: dict[str, Any], e: Entry | None = None) -> str:
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
        return f"{c['i']:<11} {self._middles[c['s'], c['r']]}{what}"

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
