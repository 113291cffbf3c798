"""The calls of one event-loop tick joined into one: one round trip for many callers.

Many coroutines of one process reach the same kind of Redis call in the same few loop
iterations (a runner's turns start a read's worth at a time and, on a busy runner, finish and
save many to a tick). Each used to make its own round trip, and Redis its own read and write
for it: for a small command, most of Redis's CPU. A `TickBatch` collects the calls of a tick
and sends them as one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

MAX_BATCH = 256  # calls sent at once: bounds how long Redis is busy with one batch


def per_caller(replies: Sequence[Any], sizes: Iterable[int]) -> list[list[Any] | BaseException]:
    """One pipeline's replies cut into its callers' (`sizes`: how many commands each queued, in
    order): each caller's replies, or the first error among them (that caller's alone)."""
    out: list[list[Any] | BaseException] = []
    at = 0
    for size in sizes:
        got, at = list(replies[at : at + size]), at + size
        out.append(next((r for r in got if isinstance(r, Exception)), got))
    return out


class TickBatch(Generic[T, R]):
    """Calls of one loop tick sent together: `send` is given all their items at once and returns
    one result an item, in order. Each caller gets its own result, or raises it if it is an
    exception (that caller's alone); an error `send` raises is raised to every caller.

    A caller that stops waiting (cancelled) does not stop the call: the others wait on it too.
    """

    def __init__(
        self,
        send: Callable[[list[T]], Awaitable[list[R | BaseException]]],
        max_batch: int = MAX_BATCH,
    ) -> None:
        self.send = send
        self.max_batch = max_batch
        self._pending: list[tuple[T, asyncio.Future[R]]] = []
        self._loop: asyncio.AbstractEventLoop | None = None  # the loop the next flush runs in
        self._sending: set[asyncio.Task[None]] = set()

    async def __call__(self, item: T) -> R:
        loop = asyncio.get_running_loop()
        if self._loop is not loop:  # none scheduled (or one of a loop that has ended: a test's)
            self._pending = []
            self._loop = loop
            loop.call_soon(self._flush)  # the rest of this tick's calls join before it is sent
        future: asyncio.Future[R] = loop.create_future()
        self._pending.append((item, future))
        return await future

    def _flush(self) -> None:
        self._loop = None
        pending, self._pending = self._pending, []
        for i in range(0, len(pending), self.max_batch):
            task = asyncio.ensure_future(self._send(pending[i : i + self.max_batch]))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def _send(self, batch: list[tuple[T, asyncio.Future[R]]]) -> None:
        try:
            results = await self.send([item for item, _ in batch])
            if len(results) != len(batch):
                raise RuntimeError(f"{len(results)} results for {len(batch)} calls")
        except BaseException as e:  # each caller raises it (a cancelled send: they are cancelled)
            for _, future in batch:
                if not future.done():
                    if isinstance(e, asyncio.CancelledError):
                        future.cancel()
                    else:
                        future.set_exception(e)
            if not isinstance(e, Exception):
                raise
            return
        for (_, future), result in zip(batch, results, strict=True):
            if future.done():
                continue
            if isinstance(result, BaseException):
                future.set_exception(result)
            else:
                future.set_result(result)
