"""`approvals-bot worker`: the notifier and the scheduler, side by side; run as many as you like."""

from __future__ import annotations

import asyncio
import contextlib

import redis.exceptions
import structlog

from bot.notifier import OutboxWorker
from workflow.scheduler import Scheduler

log = structlog.get_logger("worker")


async def run_scheduler(scheduler: Scheduler, stop: asyncio.Event, *, tick_s: float = 5.0) -> None:
    """Handle due items and queue digests every tick until `stop` is set."""
    while not stop.is_set():
        try:
            while await scheduler.run_due():
                pass
            await scheduler.periodic()
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("scheduler_unreachable", error=repr(e)[:200])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), tick_s)


async def run_worker(notifier: OutboxWorker, scheduler: Scheduler, stop: asyncio.Event) -> None:
    """The notifier and the scheduler until `stop` is set."""
    await asyncio.gather(notifier.run(stop), run_scheduler(scheduler, stop))
