"""`approvals-bot requests list|show|export`: HR's view of every request, from the server side.

Reasons are medical data: exports leave them out unless --with-reasons is given.
"""

from __future__ import annotations

import asyncio
import csv
import io
import operator
from collections.abc import AsyncIterator, Iterable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any, NamedTuple, TextIO, TypedDict, Unpack

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
    """The export rows of `iter_requests`'s requests, in its order, built from the stored
    compact records without building each Request."""
    rows = Rows(engine, with_reasons, filters.get("process"))
    async for _, c in iter_records(engine, **filters):
        yield rows(c)


async def iter_table_lines(
    engine: Engine, **filters: Unpack[Filters]
) -> AsyncIterator[tuple[Cursor, str]]:
    """`requests list`'s lines (`table_line`) of `iter_requests`'s requests, in its order,
    built from the stored compact records without building each Request."""
    lines = Lines(engine)
    async for cursor, c in iter_records(engine, **filters, whole=False):
        yield cursor, lines(c)


async def iter_records(
    engine: Engine, *, whole: bool = True, **filters: Unpack[Filters]
) -> AsyncIterator[tuple[Cursor, dict[str, Any]]]:
    """`iter_requests`'s requests as compact records (workflow/codec.py's short names), read
    by a script a page and orjson instead of a Request each; without `whole`, only the
    request's own fields before its steps (codec.head)."""
    since, until, after = filters.get("since"), filters.get("until"), filters.get("after")
    status, process = filters.get("status"), filters.get("process")
    page, archive_dir = filters.get("page", PAGE), filters.get("archive_dir")
    _check_filters(engine, status, process)
    decode = orjson.loads if whole else codec.head
    in_redis: set[str] = set()
    async for ids, bodies in _bodies(engine, _pages(engine, since, until, after, page)):
        for (rid, score), body, old in zip(ids, bodies[0::2], bodies[1::2], strict=True):
            if body is not None:
                c = decode(body)
            elif old is not None:  # the older layout, until `approvals-bot migrate` rewrites it
                c = codec.compact(Request.model_validate_json(old))
            else:  # archived or expired since the page's ids were read
                continue
            if not _kept(c["s"], c["p"], status, process):
                continue
            if archive_dir is not None and RequestStatus(c["s"]).is_final:
                in_redis.add(rid)
            yield Cursor(score, rid), c
    if archive_dir is not None:
        async for cursor, r in _archived(engine, archive_dir, since, until, after, in_redis):
            if _kept(r.status.value, r.process, status, process):
                yield cursor, codec.compact(r)


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

    async def read(ids: list[tuple[str, int]]) -> list[Any]:
        keys = [engine.keys.request(rid) for rid, _ in ids]
        chunks = await engine.store.read(
            *(
                script_read("bodies", keys[i : i + BODIES_PER_SCRIPT], [])
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
        [entries] = await engine.store.read(
            ("zrevrangebyscore", [engine.keys.all_requests, high, low, offset, page, True])
        )
        if not entries:
            return
        fresh = [
            (rid, int(score))
            for rid, score in entries
            if last is None or int(score) < last.score or rid < last.request_id
        ]
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


class _Names:
    """People's names looked up once per list or export: a month repeats the same few
    thousand people across tens of thousands of rows."""

    def __init__(self, engine: Engine) -> None:
        self.directory = engine.directory
        self._names: dict[str, str] = {}

    def name(self, person_id: str) -> str:
        if (found := self._names.get(person_id)) is None:
            found = self._names[person_id] = self.directory.get(person_id).name
        return found


class Rows(_Names):
    """Export rows from requests in the compact layout (workflow/codec.py's short names);
    names and teams are looked up once per export."""

    def __init__(self, engine: Engine, with_reasons: bool, process: str | None = None) -> None:
        super().__init__(engine)
        self.with_reasons = with_reasons
        # every field column, empty: a row fills in those its request has
        self._blank = dict.fromkeys(export_fields(engine.config, process), "")
        self._teams: dict[str, str] = {}

    def team(self, person_id: str) -> str:
        if (found := self._teams.get(person_id)) is None:
            found = self._teams[person_id] = self.directory.team_of(person_id)
        return found

    def __call__(self, c: dict[str, Any]) -> dict[str, Any]:
        name, f, steps = self.name, c.get("f", {}), c.get("st", [])
        current = c.get("c")
        step = steps[current] if c["s"] == "pending" and current is not None else None
        out = {
            "request_id": c["i"],
            "process": c["p"],
            "requester_id": c["r"],
            "requester": name(c["r"]),
            "team": self.team(c["r"]),
            "status": c["s"],
            "submitted_at": _iso(c.get("sa")),
            "decided_at": _iso(c.get("da")),
            **self._blank,
            **{k: v for k, v in f.items() if k in self._blank},  # in the blank's places
            "working_days": c.get("x", {}).get("working_days", ""),
            "approvers": " → ".join([name(s["a"]) for s in steps]),
            "waiting_for": name(step["h"]) if step and "h" in step else "",
            "decided_by": ", ".join([name(s["by"]) for s in steps if "by" in s]),
        }
        if self.with_reasons:
            out["reason"] = f.get("reason") or f.get("description") or f.get("purpose") or ""
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
    """Writes export rows to a stream as they come (CSV with its header first, or JSON lines)."""

    def __init__(
        self,
        engine: Engine,
        out: TextIO,
        fmt: str,
        with_reasons: bool,
        process: str | None = None,
    ) -> None:
        self.engine, self.out, self.fmt, self.with_reasons = engine, out, fmt, with_reasons
        self.process = process  # the export's one process, if filtered: only its fields
        self.count = 0
        self._csv: Any = None  # a csv writer (its type is private to the csv module)
        columns = export_columns(engine.config, process, with_reasons)
        self._cells = operator.itemgetter(*columns)
        if fmt != "json":
            self._csv = csv.writer(out, lineterminator="\r\n")
            self._csv.writerow(columns)

    def write(self, r: Request) -> None:
        self.write_row(row(self.engine, r, self.with_reasons, self.process))

    def write_row(self, x: dict[str, Any]) -> None:
        self.count += 1
        if self._csv is not None:
            self._csv.writerow(self._cells(x))
        else:
            self.out.write(orjson.dumps(x).decode() + "\n")

    def close(self) -> None:
        self.out.flush()


TABLE_HEADER = f"{'REQUEST':<11} {'STATUS':<10} {'REQUESTER':<14} WHAT"


def table_line(engine: Engine, r: Request) -> str:
    return Lines(engine)(codec.compact(r))


class Lines(_Names):
    """`requests list`'s lines from requests in the compact layout; names and the
    descriptions of leave (a month repeats the same dates many times) are looked up once."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.config = engine.config
        self._leave: dict[tuple[Any, ...], str] = {}

    def __call__(self, c: dict[str, Any]) -> str:
        return f"{c['i']:<11} {c['s']:<10} {self.name(c['r']):<14} {self.what(c)}"

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
