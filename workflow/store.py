"""Redis access for the engine: versioned records, batched reads and atomic transitions.

A transition is computed in Python from what was read, then written by one Lua call that
first checks the version of every record it was computed from (optimistic concurrency).
So each transition costs one round trip to read and one to write, on Redis or Redis Cluster.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, TypeVar

import redis.asyncio as aioredis
import redis.exceptions
from pydantic import BaseModel
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.client import NEVER_DECODE

from workflow import codec
from workflow.codec import COMPACT_FIELD, OLD_FIELD, VERSION_FIELD
from workflow.errors import OutcomeUnknown, StoreUnavailable
from workflow.keys import OrgKeys
from workflow.models import PendingAction, PendingStatus, Request
from workflow.ticks import TickBatch, per_caller
from workflow.transactions import is_cluster

R = TypeVar("R", bound=BaseModel)

# Outbox length kept by XADD's approximate trim: far beyond what the notifier lags by.
OUTBOX_MAXLEN = 100_000
_APPLY_LUA = resources.files("workflow").joinpath("lua", "apply.lua").read_text("utf-8")
# Read-only scripts run inside a read's pipeline by EVALSHA (loaded once per Redis on NOSCRIPT).
READ_SCRIPTS = {
    name: resources.files("workflow").joinpath("lua", f"{name}.lua").read_text("utf-8")
    for name in ("avail", "page", "outpage", "rows")
}
_READ_SHAS = {name: hashlib.sha1(text.encode()).hexdigest() for name, text in READ_SCRIPTS.items()}


class Conflict(Exception):
    """A guarded record changed since it was read; re-read and recompute."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


@dataclass
class Tx:
    """The writes of one transition, with the versions they were computed from."""

    keys: list[str] = field(default_factory=list)
    guards: list[list[int]] = field(default_factory=list)
    ops: list[list[Any]] = field(default_factory=list)

    def _k(self, key: str) -> int:
        try:
            return self.keys.index(key) + 1
        except ValueError:
            self.keys.append(key)
            return len(self.keys)

    def expect(self, key: str, version: int) -> Tx:
        """Write nothing unless `key` is still at `version` (0: it must not exist)."""
        self.guards.append([self._k(key), version])
        return self

    def put(self, key: str, record: BaseModel) -> Tx:
        """Replace a versioned record, bumping its version.

        A request or a pending action is written in the compact layout (codec.py, field
        `d`), and the older layout's field is dropped in the same step; other records keep
        their JSON in `data`. A done pending action is written as a new hash (`renew` in
        apply.lua), so that Redis stores its few small fields as a listpack again.
        """
        if isinstance(record, PendingAction) and record.status is not PendingStatus.OPEN:
            self.ops.append(["renew", self._k(key), codec.dumps(record), COMPACT_FIELD])
        elif isinstance(record, Request | PendingAction):
            self.ops.append(["put", self._k(key), codec.dumps(record), COMPACT_FIELD, OLD_FIELD])
        else:
            data = record.model_dump_json(exclude={"version"})
            self.ops.append(["put", self._k(key), data, OLD_FIELD, ""])
        return self

    def hset(self, key: str, name: str, value: str) -> Tx:
        self.ops.append(["hset", self._k(key), name, value])
        return self

    def hdel(self, key: str, name: str) -> Tx:
        self.ops.append(["hdel", self._k(key), name])
        return self

    def hincrby(self, key: str, name: str, by: int) -> Tx:
        self.ops.append(["hincrby", self._k(key), name, by])
        return self

    def hincrbyfloat(self, key: str, name: str, by: float) -> Tx:
        # a string keeps Lua's number formatting out of the stored value
        self.ops.append(["hincrbyfloat", self._k(key), name, repr(float(by))])
        return self

    def zadd(self, key: str, score: float, member: str) -> Tx:
        self.ops.append(["zadd", self._k(key), score, member])
        return self

    def zrem(self, key: str, member: str) -> Tx:
        self.ops.append(["zrem", self._k(key), member])
        return self

    def zswap(
        self, key: str, members: str, name: str, score: float, member: str, ttl_ms: int
    ) -> Tx:
        """Replace in sorted set `key` the member that hash `members` holds under `name` by
        `member` ('' removes it), keeping `key` for `ttl_ms`. The hash itself is not changed."""
        self.ops.append(["zswap", self._k(key), self._k(members), name, score, member, ttl_ms])
        return self

    def sadd(self, key: str, member: str) -> Tx:
        self.ops.append(["sadd", self._k(key), member])
        return self

    def srem(self, key: str, member: str) -> Tx:
        self.ops.append(["srem", self._k(key), member])
        return self

    def zremrangebyscore(self, key: str, max_score: float) -> Tx:
        """Remove members scored at most `max_score`."""
        self.ops.append(["zremrangebyscore", self._k(key), max_score])
        return self

    def zprune(self, zset: str, hash_key: str, max_score: float) -> Tx:
        """Remove members scored at most `max_score` from `zset` and the same fields from `hash_key`."""
        self.ops.append(["zprune", self._k(zset), self._k(hash_key), max_score])
        return self

    def span(self, key: str, field: str, add: str, remove: str, horizon: str) -> Tx:
        """Edit a list kept in one hash field (items start with their last day, ISO):
        drop items that ended before `horizon` and the item `remove`, then add `add` ('' adds none)."""
        self.ops.append(["span", self._k(key), field, add, remove, horizon])
        return self

    def lprune(self, key: str, prefix: str, horizon: str) -> Tx:
        """Drop a ledger's leave entries (fields starting with `prefix`) that ended before `horizon`."""
        self.ops.append(["lprune", self._k(key), prefix, horizon])
        return self

    def delete(self, key: str) -> Tx:
        self.ops.append(["del", self._k(key)])
        return self

    def pexpire(self, key: str, ms: int) -> Tx:
        self.ops.append(["pexpire", self._k(key), ms])
        return self

    def persist(self, key: str) -> Tx:
        self.ops.append(["persist", self._k(key)])
        return self

    def xadd(self, key: str, fields: dict[str, str]) -> Tx:
        flat = [x for kv in fields.items() for x in kv]
        self.ops.append(["xadd", self._k(key), OUTBOX_MAXLEN, flat])
        return self


# Connections per process; a burst beyond it waits for a free one instead of failing at once.
MAX_CONNECTIONS = 500
POOL_WAIT_S = 10


def connect(url: str | None, max_connections: int = MAX_CONNECTIONS) -> aioredis.Redis:
    """A Redis client for `url`, or an in-process fakeredis when None (nothing persisted)."""
    if url is None:
        import fakeredis  # the embedded default only; production never imports it

        return fakeredis.FakeAsyncRedis(decode_responses=True)
    # A restarted or failed-over Redis drops pooled connections: retry on a fresh one. Replaying
    # a transition is safe, since its version guards refuse a second write.
    retry = Retry(ExponentialBackoff(cap=1.0, base=0.05), 3)
    errors = [redis.exceptions.ConnectionError, redis.exceptions.TimeoutError]
    if url.startswith(("redis+cluster://", "rediss+cluster://")):
        from redis.asyncio.cluster import RedisCluster

        return RedisCluster.from_url(
            url.replace("+cluster", "", 1),
            decode_responses=True,
            retry=retry,
            max_connections=max_connections,
        )
    # redis-py's default pool fails at once ("Too many connections") when a burst of turns
    # needs more than it holds: 154 of 500 simultaneous requests were lost that way. A
    # blocking pool makes the burst queue for a connection.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        max_connections=max_connections,
        timeout=POOL_WAIT_S,
        decode_responses=True,
        retry=retry,
        retry_on_error=errors,
    )
    return aioredis.Redis(connection_pool=pool)


_APPLY_SHA = hashlib.sha1(_APPLY_LUA.encode()).hexdigest()


class _Coalescer:
    """Sends the round trips that concurrent transitions start in the same turn of the event
    loop as one pipeline (each transition's reads still arrive together, and each write is
    still its own atomic script): one system call and one connection per batch instead of per
    transition, for a runner's turns as for a bulk load (bench/scale_bench.py's fill)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._batch: TickBatch[Sequence[tuple[str, Sequence[Any]]], list[Any]] = TickBatch(
            self._send
        )

    async def submit(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        """The replies to `calls`, sent with the other calls of this loop tick; a call Redis
        refused raises its error (to this caller alone)."""
        return await self._batch(calls)

    async def _send(
        self, units: list[Sequence[tuple[str, Sequence[Any]]]]
    ) -> list[list[Any] | BaseException]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for calls in units:
                for name, args in calls:
                    _call(pipe, name, args)
            replies = await pipe.execute(raise_on_error=False)
        return per_caller(replies, map(len, units))


class Store:
    """The engine's view of Redis for one organisation."""

    def __init__(self, redis: aioredis.Redis, keys: OrgKeys, *, coalesce: bool = False) -> None:
        self.redis = redis
        self.keys = keys
        self._apply = redis.register_script(_APPLY_LUA)
        self._cluster = is_cluster(redis)
        if coalesce and self._cluster:
            raise ValueError("coalescing round trips needs one Redis, not a cluster")
        self._coalescer = _Coalescer(redis) if coalesce else None

    async def _run_apply(self, keys: list[str], spec: str) -> list[Any]:
        if self._coalescer is None:
            return await self._apply(keys=keys, args=[spec])
        call = ("evalsha", [_APPLY_SHA, len(keys), *keys, spec])
        try:
            [reply] = await self._coalescer.submit([call])
        except redis.exceptions.NoScriptError:
            await self.redis.script_load(_APPLY_LUA)
            [reply] = await self._coalescer.submit([call])
        return reply

    async def apply(self, tx: Tx) -> list[str]:
        """Run the transition atomically; Conflict if a guard failed. Returns outbox ids."""
        spec = json.dumps({"g": tx.guards, "o": tx.ops}, separators=(",", ":"))
        try:
            status, value = await self._run_apply(tx.keys, spec)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
            raise OutcomeUnknown(
                "The database stopped answering; whether this was recorded is not known yet.",
                zh="数据库没有响应，暂时无法确认是否已记录。",
            ) from e
        if status == "conflict":
            raise Conflict(tx.keys[int(value) - 1])
        return list(value)

    async def read(self, *calls: tuple[str, Sequence[Any]]) -> list[Any]:
        """Run several read commands in one round trip, e.g. ("hgetall", [key])."""
        try:
            try:
                return await self._pipelined(calls)
            except redis.exceptions.NoScriptError:
                # a fresh (or flushed) Redis: load the read scripts once, then read again
                for text in READ_SCRIPTS.values():
                    await self.redis.script_load(text)
                return await self._pipelined(calls)
        except (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError) as e:
            raise StoreUnavailable("The database is unreachable. Try again shortly.") from e

    async def _pipelined(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        scripted = [i for i, (name, _) in enumerate(calls) if name in ("evalsha", _EVALSHA_BYTES)]
        if scripted and self._cluster:
            # a cluster pipeline refuses EVALSHA: send the script calls beside the pipeline, at once
            plain = [c for i, c in enumerate(calls) if i not in scripted]
            got = await asyncio.gather(
                self._pipeline(plain), *(_call(self.redis, *calls[i]) for i in scripted)
            )
            rest, by_index = iter(got[0]), dict(zip(scripted, got[1:], strict=True))
            return [by_index[i] if i in by_index else next(rest) for i in range(len(calls))]
        return await self._pipeline(calls)

    async def _pipeline(self, calls: Sequence[tuple[str, Sequence[Any]]]) -> list[Any]:
        if not calls:
            return []
        if self._coalescer is not None:
            return await self._coalescer.submit(calls)
        async with self.redis.pipeline(transaction=False) as pipe:
            for name, args in calls:
                _call(pipe, name, args)
            return await pipe.execute()


def versioned(model: type[R], raw: Sequence[Any] | None, **known: Any) -> R | None:
    """Decode the reply of `HMGET key v d data` (hmget_record) into a record with its version.

    `d` holds the compact layout, `data` the older full JSON; either is read. `known`: the
    fields the key itself names, which the compact layout leaves out (a pending action's id).
    """
    if not raw:
        return None
    if len(raw) > 2 and raw[1] is not None:
        record = codec.loads(model, raw[1], **known)
    elif (old := raw[-1]) is not None:
        record = model.model_validate_json(old)
    else:
        return None
    record.version = int(raw[0] or 0)  # type: ignore[attr-defined]
    return record


def script_read(
    name: str, keys: Sequence[str | bytes], args: Sequence[Any], *, as_bytes: bool = False
) -> tuple[str, list[Any]]:
    """The read call running one of READ_SCRIPTS on `keys` with `args`, inside a pipelined read;
    with `as_bytes`, its reply's strings are left as Redis sent them (bytes) instead of decoded:
    for bodies handed to orjson, which reads bytes as fast, decoding them first costs as much
    as parsing them."""
    return (_EVALSHA_BYTES if as_bytes else "evalsha", [_READ_SHAS[name], len(keys), *keys, *args])


_EVALSHA_BYTES = "evalsha_bytes"  # a read call's name for EVALSHA with an undecoded reply
_BYTES = "bytes:"  # a read call's name prefix for a command whose reply stays undecoded


def bytes_read(command: str, args: Sequence[Any]) -> tuple[str, list[Any]]:
    """The read call running `command` with `args`, its reply's strings left as Redis sent
    them (bytes): for binary values (compressed), which no text decoding would survive."""
    return (_BYTES + command.upper(), list(args))


def _call(client: Any, name: str, args: Sequence[Any]) -> Any:
    """Queue one read call on a pipeline (or send it on a client: then an awaitable)."""
    if name == _EVALSHA_BYTES:
        return client.execute_command("EVALSHA", *args, **{NEVER_DECODE: []})
    if name.startswith(_BYTES):
        return client.execute_command(name.removeprefix(_BYTES), *args, **{NEVER_DECODE: []})
    return getattr(client, name)(*args)


def hmget_record(key: str) -> tuple[str, Sequence[Any]]:
    """The read call for a versioned record."""
    return ("hmget", [key, VERSION_FIELD, COMPACT_FIELD, OLD_FIELD])
