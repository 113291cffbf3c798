"""Background work we keep a reference to, so nothing is garbage-collected mid-way and shutdown can drain it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import structlog

log = structlog.get_logger("bot")


class BackgroundTasks:
    """A set of running tasks: `spawn` after acking a platform, `drain` on shutdown."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[Any]] = set()

    def spawn(self, coro: Coroutine[Any, Any, Any], *, name: str) -> asyncio.Task[Any]:
        task = asyncio.create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            # once, with its traceback: the repr alone hid where it failed
            log.error("background_task_failed", task=task.get_name(), exc_info=error)

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout_s: float = 30) -> None:
        """Wait for running work to finish (cancel what is left after `timeout_s`)."""
        if not self._tasks:
            return
        _, pending = await asyncio.wait(set(self._tasks), timeout=timeout_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    async def idle(self) -> None:
        """Wait until nothing is running (tests wait for observable state this way)."""
        while self._tasks:
            await asyncio.gather(*set(self._tasks), return_exceptions=True)
