"""Retention: decided requests older than `policy.retention_months` move to a compressed archive.

`approvals-bot requests archive` writes each such request as one JSON line to
`<ARCHIVE_DIR>/<org>/requests-YYYY-MM.jsonl.gz` (the month it was submitted in; a run
appends a gzip member, which every gzip reader reads on), and only then removes it from
Redis with its index entries, in guarded transitions: a request that changed meanwhile
stays. A run that stops half way leaves a request in both places; the next run archives it
again, and readers keep one copy. `requests list|export` read the archive's months too.
"""

from __future__ import annotations

import asyncio
import gzip
import os
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from workflow.engine import Engine
from workflow.keys import month_of
from workflow.leave import LEAVE_PREFIX
from workflow.models import Request
from workflow.store import Conflict, Tx

PAGE = 500


def month_file(directory: Path, org: str, month: date) -> Path:
    return directory / org / f"requests-{month:%Y-%m}.jsonl.gz"


def cutoff(engine: Engine, months: int) -> datetime:
    """Requests decided before this moment are old enough to archive (months of ~30.44 days)."""
    return engine.clock.now(UTC) - timedelta(days=round(months * 30.44))


@dataclass
class ArchiveRun:
    archived: int = 0
    kept_changed: int = 0
    files: set[str] | None = None


async def archive(engine: Engine, directory: Path, months: int, *, dry_run: bool) -> ArchiveRun:
    """Move decided requests older than `months` to the archive; with dry_run, only count them."""
    before = cutoff(engine, months)
    run, keys = ArchiveRun(files=set()), engine.keys
    high = int(before.timestamp() * 1000)  # submitted before the cutoff, at least
    last: tuple[int, str] | None = None
    while True:
        [entries] = await engine.store.read(
            ("zrevrangebyscore", [keys.all_requests, high, "-inf", 0, PAGE, True])
        )
        fresh = [
            (rid, int(score))
            for rid, score in entries
            if last is None or int(score) < last[0] or rid < last[1]
        ]
        if not fresh:
            return run
        last = (fresh[-1][1], fresh[-1][0])
        high = last[0]
        requests = await engine._requests([rid for rid, _ in fresh])
        old = [
            r
            for r in requests
            if r.status.is_final and r.decided_at is not None and r.decided_at < before
        ]
        by_month: dict[date, list[Request]] = {}
        for r in old:
            at = (r.submitted_at or r.created_at).astimezone(UTC).date()
            by_month.setdefault(date(at.year, at.month, 1), []).append(r)
        if not dry_run:
            for month, rs in by_month.items():
                path = month_file(directory, keys.org, month)
                await asyncio.to_thread(_append, path, [r.model_dump_json() for r in rs])
                run.files.add(str(path))
            for r in old:
                counted = month_of(r.submitted_at or r.created_at)
                tx = (
                    Tx()
                    .expect(keys.request(r.id), r.version)
                    .delete(keys.request(r.id))
                    .zrem(keys.all_requests, r.id)
                    .zrem(keys.user_requests(r.requester), r.id)
                    .hdel(keys.ledger(r.requester), LEAVE_PREFIX + r.id)
                    .hincrby(keys.month_changes, counted, 1)
                    # its kept rows are stale now; the month may never be read again to remake them
                    .delete(keys.month_rows(counted))
                )
                try:
                    await engine.store.apply(tx)
                except Conflict:  # changed since it was read: it stays, archived again later
                    run.kept_changed += 1
                    run.archived -= 1
        run.archived += len(old)
        if len(entries) < PAGE and len(fresh) == len(entries):
            return run


def _append(path: Path, lines: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "at", encoding="utf-8") as f:
        for line in lines:
            f.write(line + "\n")
        f.flush()
        os.fsync(f.fileno())


def read_month(path: Path) -> list[Request]:
    """The archived requests of one month file, each once, newest first."""
    if not path.exists():
        return []
    seen: dict[str, Request] = {}
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                r = Request.model_validate_json(line)
                seen[r.id] = r
    return sorted(seen.values(), key=lambda r: (r.submitted_at or r.created_at, r.id), reverse=True)


def archived(
    directory: Path, org: str, since: date | None, until: date | None
) -> Iterator[Request]:
    """Archived requests submitted from `since` to `until` (UTC days), newest first."""
    folder = directory / org
    if not folder.is_dir():
        return
    found = sorted(folder.glob("requests-*.jsonl.gz"), reverse=True)
    lo = datetime.combine(since, time(0), UTC) if since else None
    hi = datetime.combine(until + timedelta(days=1), time(0), UTC) if until else None
    for path in found:
        month = date.fromisoformat(path.name[len("requests-") : len("requests-") + 7] + "-01")
        if until is not None and month > until:
            continue
        if since is not None and month < date(since.year, since.month, 1):
            break
        for r in read_month(path):
            at = r.submitted_at or r.created_at
            if (lo is None or at >= lo) and (hi is None or at < hi):
                yield r


async def archived_async(
    directory: Path, org: str, since: date | None, until: date | None
) -> AsyncIterator[Request]:
    """The same, reading each month file in a thread."""
    it = archived(directory, org, since, until)
    sentinel = object()
    while (r := await asyncio.to_thread(next, it, sentinel)) is not sentinel:
        yield r  # type: ignore[misc]
