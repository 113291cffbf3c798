"""The turn stream in Redis: enqueue (de-duplicated, one round trip), read, reclaim, lease, complete.

Every inbound message that needs an agent turn is one stream entry. Its platform event id is
the idempotency key: the "seen" marker and the XADD happen in one Lua script, so a retried
delivery either finds the entry queued (and is dropped) or adds it, never half of each.
A thread's entries are also kept in order in a list; only the head of that list may run,
and only while its runner holds the thread's lease, a key with a short expiry the runner
renews. A runner that dies leaves an entry nobody acked and a lease that runs out: another
runner reclaims the entry (XAUTOCLAIM) and runs the turn again.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial
from typing import Any

import orjson
import redis.asyncio as aioredis
import redis.exceptions

from bot.queue.batch import Reply, ScriptBatcher, settle
from bot.queue.errors import QueueUnavailable
from workflow.keys import (
    turn_attempts,
    turn_dead_letters,
    turn_journal,
    turn_lease,
    turn_order,
    turn_seen,
    turn_stream,
)
from workflow.ticks import TickBatch

GROUP = "turns"
ORDER_TTL_S = 7 * 86_400

# KEYS seen, stream, order · ARGV seen-ttl, field, value, …  → the entry id, or false (seen)
_ENQUEUE = """
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then return false end
local id = redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
redis.call('RPUSH', KEYS[3], id)
redis.call('EXPIRE', KEYS[3], __ORDER_TTL__)
return id
""".replace("__ORDER_TTL__", str(ORDER_TTL_S))

# KEYS attempts, stream, then order, lease a turn · ARGV id, token, lease-ms a turn
# (the turns a runner starts in one loop tick, in one call; every key is in the queue's slot)
# → per turn, n ≥ 1: the lease is ours and this is attempt n; 0: another runner holds the
#   thread; -1: an older entry of the thread goes first; -2: the entry is done already (or unknown)
# Safe to replay (the client retries a call whose reply was lost): a lease already held under
# the same token (a token is one run of one turn) answers the attempt it was taken for.
_ACQUIRE = """
local out = {}
for t = 1, #ARGV / 3 do
  local order, lease = KEYS[2 * t + 1], KEYS[2 * t + 2]
  local id, token = ARGV[3 * t - 2], ARGV[3 * t - 1]
  local first = redis.call('LINDEX', order, 0)
  while first and first ~= id and #redis.call('XRANGE', KEYS[2], first, first) == 0 do
    redis.call('LREM', order, 1, first)  -- an id whose entry is gone must not block the thread
    first = redis.call('LINDEX', order, 0)
  end
  if not first then
    out[t] = -2
  elseif first ~= id then
    out[t] = redis.call('LPOS', order, id) and -1 or -2
  elseif redis.call('GET', lease) == token then  -- this same call, sent again
    out[t] = tonumber(redis.call('HGET', KEYS[1], id)) or redis.call('HINCRBY', KEYS[1], id, 1)
  elseif not redis.call('SET', lease, token, 'NX', 'PX', ARGV[3 * t]) then
    out[t] = 0
  else
    out[t] = redis.call('HINCRBY', KEYS[1], id, 1)
  end
end
return out
"""

# KEYS lease, order a turn · ARGV lease-ms, then token, id a turn (every key is in the
# queue's hash slot) → per lease: 1 renewed (or taken back: it had run out while Redis was
# paused and nobody took it), 0 lost to another runner. A lease is taken back only while its
# turn heads its thread: a renewal that reaches Redis after the turn finished must not hold
# the thread for its next turn.
_RENEW = """
local out = {}
for t = 1, #KEYS / 2 do
  local key, token, id = KEYS[2 * t - 1], ARGV[2 * t], ARGV[2 * t + 1]
  local holder = redis.call('GET', key)
  if holder == token then
    out[t] = redis.call('PEXPIRE', key, ARGV[1])
  elseif not holder and redis.call('LINDEX', KEYS[2 * t], 0) == id then
    redis.call('SET', key, token, 'PX', ARGV[1])
    out[t] = 1
  else
    out[t] = 0
  end
end
return out
"""

# KEYS lease, attempts · ARGV token, id, refund (1: the attempt did not count, e.g. shutdown)
# Only a lease still ours is given back, and its attempt refunded: safe to send again, and a
# refund for an acquire that took nothing changes nothing.
_RELEASE = """
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[3] == '1' then redis.call('HINCRBY', KEYS[2], ARGV[2], -1) end
return redis.call('DEL', KEYS[1])
"""

# KEYS attempts, stream, then order, lease, journal a turn · ARGV group, then id, token a turn
# The turns a runner finished in one loop tick, done in one call: each leaves its thread's
# order, its lease (if still its own) and its journal; all are acked and deleted together.
_FINISH = """
local ids = {}
for t = 1, (#KEYS - 2) / 3 do
  local id, token = ARGV[2 * t], ARGV[2 * t + 1]
  redis.call('LREM', KEYS[3 * t], 1, id)
  if redis.call('GET', KEYS[3 * t + 1]) == token then redis.call('DEL', KEYS[3 * t + 1]) end
  redis.call('DEL', KEYS[3 * t + 2])
  ids[t] = id
end
redis.call('HDEL', KEYS[1], unpack(ids))
redis.call('XACK', KEYS[2], ARGV[1], unpack(ids))
redis.call('XDEL', KEYS[2], unpack(ids))
return #ids
"""

# KEYS order, lease, attempts, stream, journal, dead · ARGV id, token, group, field, value, …
# A turn buried in the dead-letter stream, done in the same step; safe to send again (the
# client retries a call whose reply it lost): an entry already gone is not buried twice.
_BURY = """
redis.call('LREM', KEYS[1], 1, ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if redis.call('GET', KEYS[2]) == ARGV[2] then redis.call('DEL', KEYS[2]) end
redis.call('XACK', KEYS[4], ARGV[3], ARGV[1])
local gone = redis.call('XDEL', KEYS[4], ARGV[1]) == 0
redis.call('DEL', KEYS[5])
if gone then return false end
return redis.call('XADD', KEYS[6], '*', unpack(ARGV, 4))
"""


@dataclass(frozen=True)
class Turn:
    """One queued turn: which platform handles it, its thread (for ordering) and its data."""

    id: str
    platform: str
    kind: str
    thread: str
    data: dict[str, Any]
    key: str  # the idempotency key it was queued under

    @classmethod
    def of(cls, entry_id: str, fields: dict[str, str]) -> Turn:
        return cls(
            id=entry_id,
            platform=fields.get("platform", ""),
            kind=fields.get("kind", ""),
            thread=fields.get("thread", ""),
            data=orjson.loads(fields.get("data") or "{}"),
            key=fields.get("key", ""),
        )

    def fields(self) -> dict[str, str]:
        return {
            "platform": self.platform,
            "kind": self.kind,
            "thread": self.thread,
            "key": self.key,
            "data": orjson.dumps(self.data).decode(),
        }


def _flat(fields: dict[str, str]) -> list[str]:
    return [x for kv in fields.items() for x in kv]


def _entry(then: Reply, value: Any) -> None:
    """The enqueue script's reply as `enqueue` gives it: the entry id, None (seen), or the error."""
    then(value if isinstance(value, QueueUnavailable) else str(value) if value else None)


class TurnQueue:
    """The turn stream and its consumer group, over one Redis client (and a fast one for ingress)."""

    def __init__(
        self,
        redis: aioredis.Redis,
        org: str,
        ingress: aioredis.Redis | None = None,
        *,
        deadline_s: float = 1.0,
    ) -> None:
        self.redis = redis
        self.org = org
        self.stream = turn_stream(org)
        self.dead = turn_dead_letters(org)
        self._alone: set[asyncio.Future[None]] = set()  # enqueues not batched (a cluster)
        self.use_ingress(ingress if ingress is not None else redis, deadline_s)
        self._acquire = redis.register_script(_ACQUIRE)
        self._renew = redis.register_script(_RENEW)
        self._release = redis.register_script(_RELEASE)
        self._finish = redis.register_script(_FINISH)
        self._bury = redis.register_script(_BURY)
        # the turns a runner starts, or finishes, in one loop tick: one call for all of them
        self._acquiring: TickBatch[tuple[Turn, str, int], int] = TickBatch(self._acquire_all)
        self._finishing: TickBatch[tuple[Turn, str], None] = TickBatch(self._finish_all)

    def use_ingress(self, client: aioredis.Redis, deadline_s: float) -> None:
        """Queue through `client`, each enqueue within `deadline_s` (start-up; tests that break it)."""
        # (a batcher replaced here keeps its connections until the process ends: tests only)
        self.ingress = client
        self.deadline_s = deadline_s
        self._enqueue = client.register_script(_ENQUEUE)
        # a single Redis: a burst's enqueues share round trips; a cluster: one call each
        self._batched = (
            ScriptBatcher(client, _ENQUEUE, self._enqueue.sha, deadline_s)
            if isinstance(client, aioredis.Redis)
            else None
        )

    async def warm(self) -> None:
        """Open the enqueue batches' connections (before any burst)."""
        if self._batched is not None:
            await self._batched.warm()

    async def aclose(self) -> None:
        """Close the connections this queue opened itself (the batches')."""
        if self._batched is not None:
            await self._batched.aclose()

    async def ensure_group(self) -> None:
        """Create the consumer group (from the stream's start) if it does not exist yet."""
        try:
            await self.redis.xgroup_create(self.stream, GROUP, id="0", mkstream=True)
        except redis.exceptions.ResponseError as e:
            if "BUSYGROUP" not in str(e):
                raise

    async def enqueue(
        self,
        platform: str,
        key: str,
        kind: str,
        thread: str,
        data: dict[str, Any],
        *,
        seen_ttl_s: int,
    ) -> str | None:
        """Queue a turn unless `key` was queued before; the entry id, or None for a duplicate.

        One script on the ingress client (short socket timeout, no retries), sent with the
        other enqueues of the same moment (bot/queue/batch.py), within `deadline_s`: a call
        that timed out may or may not have run, and either way the platform's retry gives
        the right answer (it finds the entry, or queues it).

        Raises:
            QueueUnavailable: Redis did not answer within the deadline, or failed.
        """
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        turn = Turn("", platform, kind, thread, data, key)
        self.enqueue_then(turn, seen_ttl_s, partial(settle, future))
        return await future  # type: ignore[no-any-return]

    def enqueue_then(self, turn: Turn, seen_ttl_s: int, then: Reply) -> None:
        """`enqueue` without a task or future of its own (an ack's): `then` is told the entry
        id, None for a duplicate, or the QueueUnavailable that stopped it."""
        org, thread = self.org, turn.thread
        keys = [turn_seen(org, turn.platform, turn.key), self.stream, turn_order(org, thread)]
        args = [seen_ttl_s, *_flat(turn.fields())]
        if self._batched is not None:
            self._batched.call(keys, args, partial(_entry, then))
            return
        task = asyncio.ensure_future(self._enqueue_alone(keys, args, then))
        self._alone.add(task)
        task.add_done_callback(self._alone.discard)

    async def _enqueue_alone(self, keys: list[str], args: list[Any], then: Reply) -> None:
        """One enqueue on its own (a cluster: no batch), within the deadline."""
        try:
            async with asyncio.timeout(self.deadline_s):
                entry = await self._enqueue(keys=keys, args=args)
        except (TimeoutError, redis.exceptions.RedisError, OSError) as e:
            then(QueueUnavailable(repr(e)[:200]))
            return
        _entry(then, entry)

    async def read(self, consumer: str, count: int, block_ms: int | None = None) -> list[Turn]:
        """New entries for this consumer; each entry goes to one consumer of the group."""
        if count <= 0:
            return []
        try:
            reply = await self.redis.xreadgroup(
                GROUP, consumer, {self.stream: ">"}, count=count, block=block_ms
            )
        except redis.exceptions.ResponseError as e:
            if "NOGROUP" not in str(e):
                raise
            await self.ensure_group()
            return []
        return [Turn.of(i, f) for _, entries in reply or [] for i, f in entries if f]

    async def reclaim(self, consumer: str, min_idle_ms: int, count: int) -> list[Turn]:
        """Entries another consumer read and left idle for `min_idle_ms` (it died): now ours."""
        if count <= 0:
            return []
        _, entries, *_ = await self.redis.xautoclaim(
            self.stream, GROUP, consumer, min_idle_time=min_idle_ms, start_id="0-0", count=count
        )
        return [Turn.of(i, f) for i, f in entries if f]

    async def touch(self, consumer: str, ids: list[str]) -> None:
        """Reset the idle time of entries this consumer is working on, so nobody reclaims them."""
        if ids:
            await self.redis.xclaim(self.stream, GROUP, consumer, 0, ids, justid=True)

    async def acquire(self, turn: Turn, token: str, lease_ms: int) -> int:
        """Try to start `turn`: see _ACQUIRE for what the answer means (sent with the other
        turns this process starts in the same loop tick)."""
        return await self._acquiring((turn, token, lease_ms))

    async def _acquire_all(self, calls: list[tuple[Turn, str, int]]) -> list[int]:
        keys = [turn_attempts(self.org), self.stream]
        args: list[Any] = []
        for turn, token, lease_ms in calls:
            keys += [turn_order(self.org, turn.thread), turn_lease(self.org, turn.thread)]
            args += [turn.id, token, lease_ms]
        return [int(state) for state in await self._acquire(keys=keys, args=args)]

    async def renew(self, held: list[tuple[Turn, str]], lease_ms: int) -> list[bool]:
        """Renew the leases `held` (turn, token) in one call: per lease, whether it is still ours."""
        if not held:
            return []
        keys: list[str] = []
        args: list[Any] = [lease_ms]
        for turn, token in held:
            keys += [turn_lease(self.org, turn.thread), turn_order(self.org, turn.thread)]
            args += [token, turn.id]
        renewed = await self._renew(keys=keys, args=args)
        return [bool(r) for r in renewed]

    async def release(self, turn: Turn, token: str, *, refund: bool = False) -> None:
        """Give the thread back without finishing the turn (it will run again)."""
        await self._release(
            keys=[turn_lease(self.org, turn.thread), turn_attempts(self.org)],
            args=[token, turn.id, "1" if refund else "0"],
        )

    async def finish(self, turn: Turn, token: str, dead: dict[str, str] | None = None) -> None:
        """The turn is done (or, with `dead`, buried in the dead-letter stream): the thread moves on.

        A done turn is finished with the others this process finishes in the same loop tick."""
        if dead is None:
            await self._finishing((turn, token))
            return
        await self._bury(
            keys=[
                turn_order(self.org, turn.thread),
                turn_lease(self.org, turn.thread),
                turn_attempts(self.org),
                self.stream,
                turn_journal(self.org, turn.id),
                self.dead,
            ],
            args=[turn.id, token, GROUP, *_flat({**turn.fields(), **dead})],
        )

    async def _finish_all(self, calls: list[tuple[Turn, str]]) -> list[None]:
        keys = [turn_attempts(self.org), self.stream]
        args: list[Any] = [GROUP]
        for turn, token in calls:
            keys += [
                turn_order(self.org, turn.thread),
                turn_lease(self.org, turn.thread),
                turn_journal(self.org, turn.id),
            ]
            args += [turn.id, token]
        await self._finish(keys=keys, args=args)
        return [None] * len(calls)

    async def depth(self) -> int:
        """Turns queued or running."""
        return int(await self.redis.xlen(self.stream))

    async def dead_letters(self, count: int = 100) -> list[tuple[str, dict[str, str]]]:
        """The dead-letter stream, oldest first."""
        return list(await self.redis.xrange(self.dead, count=count))

    async def replay(self, dead_id: str) -> str | None:
        """Queue a dead letter's turn again (a new entry) and remove it from the dead letters."""
        found = await self.redis.xrange(self.dead, dead_id, dead_id)
        if not found:
            return None
        turn = Turn.of(dead_id, found[0][1])
        entry = await self._enqueue(
            keys=[
                turn_seen(self.org, turn.platform, f"replay:{dead_id}"),
                self.stream,
                turn_order(self.org, turn.thread),
            ],
            args=[86_400, *_flat(turn.fields())],
        )
        await self.redis.xdel(self.dead, dead_id)
        return str(entry) if entry else None
