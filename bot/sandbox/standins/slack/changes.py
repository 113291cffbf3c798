"""The stand-in's change feed: every state change as a small JSON-able record, to subscribers.

The sandbox forwards these to browsers (server-sent events or a WebSocket). A record is
`{"seq", "kind", "time", ...}` where `kind` is one of `message.posted`, `message.updated`,
`message.deleted`, `ephemeral.posted`, `ephemeral.deleted`, `view.opened`, `view.pushed`,
`view.updated`, `view.closed`, `home.published`, `status.set`, `title.set`, `prompts.set`,
`stream.started`, `stream.appended`, `stream.stopped`; `user` names the person whose client
shows the change (the DM's person, the ephemeral's or the view's owner; None in a channel),
and `channel`, `ts`, `thread_ts`, `message` or `view` carry the new state.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import AsyncIterator, Callable
from typing import Any

CHANGE_QUEUE_SIZE = 1000


class ChangeFeed:
    """Fan-out of change records to any number of asyncio queues."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._subscribers: set[asyncio.Queue[dict[str, Any]]] = set()
        self.seq = 0
        """The `seq` of the latest record (0 before any)."""

    def subscribe(self, maxsize: int = CHANGE_QUEUE_SIZE) -> asyncio.Queue[dict[str, Any]]:
        """A queue that receives a record for every change from now on.

        A subscriber that falls `maxsize` records behind gets its queue emptied and one
        `{"kind": "overflow"}` record: render again from a snapshot.
        """
        queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize)
        self._subscribers.add(queue)
        return queue

    def unsubscribe(self, queue: asyncio.Queue[dict[str, Any]]) -> None:
        """Stop delivering records to this queue."""
        self._subscribers.discard(queue)

    async def changes(self) -> AsyncIterator[dict[str, Any]]:
        """Iterate over records as they happen (unsubscribes when the loop ends)."""
        queue = self.subscribe()
        try:
            while True:
                yield await queue.get()
        finally:
            self.unsubscribe(queue)

    def publish(self, kind: str, **fields: Any) -> None:
        """Send one record (a deep copy of `fields`, so later changes do not leak in)."""
        self.seq += 1
        record = copy.deepcopy({"seq": self.seq, "kind": kind, "time": self._clock(), **fields})
        for queue in self._subscribers:
            try:
                queue.put_nowait(record)
            except asyncio.QueueFull:
                while not queue.empty():
                    queue.get_nowait()
                queue.put_nowait({"seq": self.seq, "kind": "overflow"})
