"""What a turn has already posted, so a turn run again after its runner died shows one answer.

A turn's views write here as they post: the streamed message's ts, each confirm card (its
ts and pending action), notices, and that the answer went out. A re-run reads it back and
continues the same stream, replaces each card in place instead of posting a second one,
and does nothing at all if the answer was already posted. The journal is deleted in the
same step that finishes the turn. A runner killed between posting a message and recording
it leaves that one message unrecorded: the re-run posts it again (a window of one round trip).
"""

from __future__ import annotations

import redis.asyncio as aioredis

from workflow.keys import turn_journal
from workflow.transactions import Group, hset_for, transact

JOURNAL_TTL_S = 86_400
ANSWERED = "answered"


class TurnJournal:
    """One turn's record of what it posted (a hash; an empty one on the first run)."""

    def __init__(self, redis: aioredis.Redis | None, key: str, attempt: int = 1) -> None:
        self.redis = redis
        self.key = key
        self.attempt = attempt
        self.seen: dict[str, str] = {}
        self._expiring = False
        self._staged: list[Group] = []

    @classmethod
    def none(cls) -> TurnJournal:
        """A journal that records nothing (a turn run outside the queue)."""
        return cls(None, "-")

    @classmethod
    def of(cls, redis: aioredis.Redis, org: str, entry_id: str, attempt: int) -> TurnJournal:
        return cls(redis, turn_journal(org, entry_id), attempt)

    async def load(self) -> TurnJournal:
        """Read what an earlier attempt posted (nothing to read on a first attempt)."""
        if self.redis is not None and self.attempt > 1:
            self.seen = dict(await self.redis.hgetall(self.key))
        return self

    def get(self, field: str) -> str | None:
        return self.seen.get(field)

    @property
    def answered(self) -> bool:
        return ANSWERED in self.seen

    async def put(self, field: str, value: str) -> None:
        """Record one posted thing (nothing when outside the queue): one round trip, shared
        with the other writes of the loop tick (workflow/transactions.py)."""
        if self.redis is not None and (group := self.record(field, value)) is not None:
            await transact(self.redis, group)

    def stage(self, field: str, value: str) -> None:
        """`put`, sent with the next write that takes `staged()` (or by `flush`)."""
        if (group := self.record(field, value)) is not None:
            self._staged.append(group)

    def staged(self) -> list[Group]:
        """The staged records, for the caller to send with its own write (they are then its to send)."""
        taken, self._staged = self._staged, []
        return taken

    async def flush(self) -> None:
        """Send the records nobody took (one round trip)."""
        if self.redis is not None and self._staged:
            await transact(self.redis, *self.staged())

    def record(self, field: str, value: str) -> Group | None:
        """`put` as a transaction for the caller to send with its own write (workflow/transactions.py),
        in the same round trip; None outside the queue (nothing to write). The first record of
        an attempt sets the journal's expiry, the others leave it."""
        self.seen[field] = value
        if self.redis is None:
            return None
        ttl_s = None if self._expiring else JOURNAL_TTL_S
        self._expiring = True
        return hset_for(self.key, field, value, ttl_s)
