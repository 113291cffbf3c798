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

from agent.tools.describe import what, what_of, where_it_is
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


# Requests read per round trip while streaming a list or an export, and per read script
# (a script holds Redis while it runs: 500 keys take about a millisecond).
PAGE = 2000
BODIES_PER_SCRIPT = 500
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
    async for _, cells in _record_pages(engine, orjson.loads, rows.cells, filters):
        yield cells


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
    async for page in _record_pages(engine, codec.head, Lines(engine), filters):
        yield page


async def _record_pages(
    engine: Engine,
    decode: Callable[[bytes], dict[str, Any]],
    made: Callable[[dict[str, Any]], T],
    filters: Filters,
) -> AsyncIterator[tuple[list[tuple[str, int]], list[T]]]:
    """What `made` makes of each of `iter_requests`'s requests, a page at a time, with their
    (id, submission ms): from the compact records (workflow/codec.py's short names), each
    body decoded by `decode` (a codec function that leaves out what `made` does not need)
    instead of a Request."""
    # Each record is made into its row as soon as it is decoded, never kept for the page: a
    # page of parsed records alive at once makes the garbage collector walk them over and
    # over (it tripled a month's CPU).
    since, until, after = filters.get("since"), filters.get("until"), filters.get("after")
    status, process = filters.get("status"), filters.get("process")
    page, archive_dir = filters.get("page", PAGE), filters.get("archive_dir")
    _check_filters(engine, status, process)
    in_redis: set[str] = set()
    async for ids, bodies in _bodies(engine, _pages(engine, since, until, after, page)):
        keys, out = [], []
        for key, body, old in zip(ids, bodies[0::2], bodies[1::2], strict=True):
            if body is not None:
                c = decode(body)
            elif old is not None:  # the older layout, until `approvals-bot migrate` rewrites it
                c = codec.compact(Request.model_validate_json(old))
            else:  # archived or expired since the page's ids were read
                continue
            if _kept(c["s"], c["p"], status, process):
                keys.append(key)
                out.append(made(c))
                if archive_dir is not None and c["s"] in _FINAL:
                    in_redis.add(key[0])
        if out:
            yield keys, out
    if archive_dir is not None:
        keys, out = [], []
        async for cursor, r in _archived(engine, archive_dir, since, until, after, in_redis):
            if _kept(r.status.value, r.process, status, process):
                keys.append((cursor.request_id, cursor.score))
                out.append(made(codec.compact(r)))
            if len(out) >= page:
                yield keys, out
                keys, out = [], []
        if out:
            yield keys, out


_FINAL = frozenset(s.value for s in RequestStatus if s.is_final)


async def _bodies(
    engine: Engine, pages: AsyncIterator[list[tuple[str, int]]]
) -> AsyncIterator[tuple[list[tuple[str, int]], list[Any]]]:
    """Each page of ids with its records' stored bodies (`bodies.lua`: `d`, `data` per key,
    BODIES_PER_SCRIPT keys a script, a page's scripts in one round trip).

    The next pages are read while the caller works through this one: on a busy machine a
    round trip waits for Redis to get a core, and that wait, not the reading, was most of a
    large month's time.
    """
    queue: asyncio.Queue[tuple[list[tuple[str, int]], list[Any]] | Exception | None]
    queue = asyncio.Queue(maxsize=2)
    prefix = engine.keys.request("")

    async def read(ids: list[tuple[str, int]]) -> list[Any]:
        # bytes: the client encodes each str argument in Python, which was most of the cost
        # of sending a page's keys
        keys = [(prefix + rid).encode() for rid, _ in ids]
        chunks = await engine.store.read(
            *(
                script_read("bodies", keys[i : i + BODIES_PER_SCRIPT], [], as_bytes=True)
                for i in range(0, len(keys), BODIES_PER_SCRIPT)
            )
        )
        return [body for chunk in chunks for body in chunk]

    async def produce() -> None:
        try:
            async for ids in pages:
                await queue.put((ids, await read(ids)))
        except Exception as e:  # handed to the reader, which raises it where it reads
            await queue.put(e)
        else:
            await queue.put(None)

    producer = asyncio.ensure_future(produce())
    try:
        while (item := await queue.get()) is not None:
            if isinstance(item, Exception):
                raise item
            yield item
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
) -> AsyncIterator[list[tuple[str, int]]]:
    """Pages of (request id, submission ms), newest first, from the index of all requests."""
    low, high = _bounds(since, until)
    last = after
    if after is not None and (high == "+inf" or after.score < int(high)):
        high = after.score
    offset = 0
    while True:
        [flat] = await engine.store.read(
            script_read("page", [engine.keys.all_requests], [high, low, offset, page])
        )
        if not flat:
            return
        pairs = iter(flat)
        entries = list(zip(pairs, map(int, pairs), strict=True))
        fresh = (
            entries
            if last is None
            else [e for e in entries if e[1] < last.score or e[0] < last.request_id]
        )
        if not fresh:  # a page of requests all submitted in the same millisecond, all seen
            offset += page
            continue
        offset = 0
        yield fresh
        last = Cursor(fresh[-1][1], fresh[-1][0])
        high = fresh[-1][1]
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


class Rows:
    """Export rows from requests in the compact layout (workflow/codec.py's short names), as
    cells in `export_columns`' order; names and teams are looked up once per export."""

    def __init__(self, engine: Engine, with_reasons: bool, process: str | None = None) -> None:
        self.with_reasons = with_reasons
        self.columns = export_columns(engine.config, process, with_reasons)
        self._fields = export_fields(engine.config, process)
        self._blanks = [""] * len(self._fields)  # a field the request does not have
        self._names = _Names(engine)
        self._requesters = _Requesters(self._names)

    def __call__(self, c: dict[str, Any]) -> dict[str, Any]:
        """The row as column → value."""
        return dict(zip(self.columns, self.cells(c), strict=True))

    def cells(self, c: dict[str, Any]) -> tuple[Any, ...]:
        names, f, steps, status = self._names, c.get("f", {}), c.get("st", []), c["s"]
        name, team = self._requesters[c["r"]]
        waiting = ""
        if status == "pending" and (current := c.get("c")) is not None:
            waiting = names[step["h"]] if "h" in (step := steps[current]) else ""
        out = (
            c["i"],
            c["p"],
            c["r"],
            name,
            team,
            status,
            _iso(c.get("sa")),
            _iso(c.get("da")),
            *map(f.get, self._fields, self._blanks),
            c.get("x", {}).get("working_days", ""),
            " → ".join([names[s["a"]] for s in steps]),
            waiting,
            ", ".join([names[s["by"]] for s in steps if "by" in s]),
        )
        if self.with_reasons:
            return (*out, f.get("reason") or f.get("description") or f.get("purpose") or "")
        return out


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
        self.write_rows([self._rows.cells(codec.compact(r))])

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
    """`requests list`'s lines from requests in the compact layout; names and the
    descriptions of leave (a month repeats the same dates many times) are looked up once."""

    def __init__(self, engine: Engine) -> None:
        self.config = engine.config
        self._middles = _Middles(_Names(engine))
        self._leave: dict[tuple[Any, ...], str] = {}

    def __call__(self, c: dict[str, Any]) -> str:
        return f"{c['i']:<11} {self._middles[c['s'], c['r']]}{self.what(c)}"

    def what(self, c: dict[str, Any]) -> str:
        f, x = c["f"], c.get("x", {})
        if c["k"] != "leave":
            return what_of(c["k"], c["p"], f, x, self.config, "en")
        key = (
            c["p"],
            f["leave_type"],
            f["start"],
            f["end"],
            f.get("start_half"),
            f.get("end_half"),
            x.get("working_days"),
        )
        if (found := self._leave.get(key)) is None:
            found = self._leave[key] = what_of(c["k"], c["p"], f, x, self.config, "en")
        return found


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
