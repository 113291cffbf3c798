"""A closed month's `requests list|export` rows, made once and kept compressed in Redis.

A dense month is ~43,000 requests. Read from their records, each costs Redis a lookup and a
read script's searches, and this process a parse (~16 µs a row on each side). Once a month is
over its requests rarely change, so the first list or export of a whole closed month keeps
what its rows need (`KEPT_FIELDS`), zlib-compressed, `CHUNK` rows a hash field, in
`OrgKeys.month_rows`, with the month's change count (`OrgKeys.month_changes`) read before its
records were. Every write or removal of a request bumps its month's count in the same atomic
step (transitions.Change.finish, bot/archive.py), so kept rows are read only while the count
is still the one they were made at: a request changed since is never shown stale — its month
is read from the records again, and kept anew once `settled` (until then its pending requests
are still being decided, and remaking its rows at each read would double each read's cost).
People's names and teams are looked up when
the rows are read (a directory sync renames people); rows made from another organisation
file, or by other code (`signature`: the source of the modules that make and render
rows), are not used: the worker remakes them (bot/month_keeper.py).

Each kept row: [request id, submission ms, status, process, requester id, the steps' people
(as rows.lua joins them), the list's description, the CSV cells of the request's own facts
after its status (submitted, decided, the form's fields, working days; quoted)].
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import zlib
from collections.abc import AsyncIterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson

from workflow.engine import Engine
from workflow.store import bytes_read

# Rows a hash field: the first page of a list decompresses one field, not the month.
CHUNK = 1000
# Bytes of a chunk's JSON compressed between the loop's other tasks (`Keeping`): ~2 ms of CPU.
PIECE = 32_768
# zlib's level: a dense month's rows are 238 bytes each, 47 compressed at 6 (52 at 4, 61 at 1;
# jemalloc rounds each field up), made at ~14 µs a row (4: ~6.5; 1: ~5; 2-core EPYC), once a
# month.
LEVEL = 6
KEPT_FIELDS = ("id", "ms", "status", "process", "requester", "people", "what", "csv_tail")


# What a kept row's fields and cells are made by: a change in any of them (a field, a catalogue
# sentence, a date or amount format, a column) makes rows kept before stale.
RENDERED_BY = (
    "agent/catalogue.py",
    "agent/i18n.py",
    "agent/tools/describe.py",
    "bot/month_rows.py",
    "bot/request_pages.py",
    "bot/request_rows.py",
    "bot/wording.py",
)


@functools.cache
def _code() -> str:
    root = Path(__file__).resolve().parent.parent
    code = hashlib.sha1()
    for name in RENDERED_BY:
        code.update((root / name).read_bytes())
    return code.hexdigest()


def signature(engine: Engine) -> str:
    """What kept rows were made with: the code that makes and renders them, and the
    organisation file's processes and leave types (their names are in the rows)."""
    config = engine.config
    parts = [_code(), *(p.model_dump_json() for p in config.processes)]
    parts += [t.model_dump_json() for t in config.leave_types]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:16]


def month_bounds(month: str) -> tuple[int, int]:
    """The first and last submission ms (UTC) of `month` (`YYYY-MM`)."""
    first = date.fromisoformat(month + "-01")
    after = (first + timedelta(days=32)).replace(day=1)
    return _ms(first), _ms(after) - 1


def month_at(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).strftime("%Y-%m")


def closed(engine: Engine, month: str) -> bool:
    """Whether `month` ended before today (UTC): only those are kept."""
    return month_bounds(month)[1] < _ms(engine.clock.now(UTC).date())


def settled(engine: Engine, month: str) -> bool:
    """Whether every request of `month` still pending has expired (`expire_after_days` after
    its end, and a day for the scheduler): from then on its requests rarely change."""
    days = engine.config.policy.expire_after_days + 1
    return month_bounds(month)[1] < _ms(engine.clock.now(UTC).date() - timedelta(days=days))


def _ms(day: date) -> int:
    return int(datetime(day.year, day.month, day.day, tzinfo=UTC).timestamp() * 1000)


async def changes(engine: Engine, month: str) -> str:
    """The month's change count now (read before its records, for `save`)."""
    [count] = await engine.store.read(("hget", [engine.keys.month_changes, month]))
    return count or "0"


class Reader:
    """A month's kept rows, a chunk at a time, while they are true: each chunk is read with the
    month's change count, and reading stops at the first chunk whose count (or signature) is
    not the month's now; `complete` tells whether every row was read."""

    def __init__(self, engine: Engine, month: str, sig: str) -> None:
        self.engine, self.month, self.sig = engine, month, sig
        self.complete = False
        self.found = False  # rows kept with this signature, true or not

    async def chunks(self) -> AsyncIterator[list[list[Any]]]:
        keys, k = self.engine.keys, 0
        while True:
            count, (made_at, sig, n, body) = await self.engine.store.read(
                ("hget", [keys.month_changes, self.month]),
                bytes_read("hmget", [keys.month_rows(self.month), "g", "s", "n", str(k)]),
            )
            if made_at is None or sig.decode() != self.sig:
                return
            self.found = True
            if made_at.decode() != (count or "0"):
                return
            if k < int(n):
                if body is None:
                    return
                yield orjson.loads(zlib.decompress(body))
                k += 1
            if k >= int(n):
                self.complete = True
                return


class Keeping:
    """A month's rows being kept, made from its records as they were when its change count was
    `made_at`: compressed `CHUNK` rows at a time as they are `add`ed, then `save`d.

    A worker's event loop also runs its notifier, scheduler and turns, so a build never holds
    it for long: a chunk (~14-25 ms of CPU at a dense month's 238-byte rows) is compressed
    `PIECE` bytes at a time, the loop's other tasks run between (as fast as one go, and it
    held the loop's longest stall lower than compressing in a thread, whose handing back of
    the GIL waits on a busy machine); a chunk's rows are let go once compressed, not all of a
    month's at the end (freeing 43,000 rows at once held the loop ~9 ms).
    """

    def __init__(self, engine: Engine, month: str, made_at: str, sig: str) -> None:
        self.engine, self.month = engine, month
        self.fields: dict[str, str | bytes] = {"g": made_at, "s": sig}
        self.chunks = 0
        self._rows: list[list[Any]] = []

    async def add(self, rows: list[list[Any]]) -> None:
        """The next rows (newest first, as the month's list runs)."""
        self._rows += rows
        while len(self._rows) >= CHUNK:
            chunk, self._rows = self._rows[:CHUNK], self._rows[CHUNK:]
            await self._compress(chunk)

    async def _compress(self, rows: list[list[Any]]) -> None:
        raw = orjson.dumps(rows)
        z, parts = zlib.compressobj(LEVEL), []
        for k in range(0, len(raw), PIECE):
            parts.append(z.compress(raw[k : k + PIECE]))
            await asyncio.sleep(0)
        parts.append(z.flush())
        self.fields[str(self.chunks)] = b"".join(parts)
        self.chunks += 1

    async def save(self) -> None:
        """Keep the rows added. Written in one transaction, so a reader sees the old rows or
        the new ones; rows kept at a count that has moved on are never read."""
        if self._rows:
            await self._compress(self._rows)
            self._rows = []
        self.fields["n"] = str(self.chunks)
        key = self.engine.keys.month_rows(self.month)
        async with self.engine.store.redis.pipeline(transaction=True) as tx:
            tx.delete(key)
            tx.hset(key, mapping=self.fields)  # type: ignore[arg-type]
            await tx.execute()
