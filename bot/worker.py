"""`approvals-bot worker`: the notifier, the scheduler, the keeping of settled months' rows (and a
turn runner, see bot/serve.py); run as many as you like."""

from __future__ import annotations

import asyncio
import contextlib

import redis.exceptions
import structlog

from bot import month_keeper
from bot.notifier import OutboxWorker
from workflow.scheduler import Scheduler

log = structlog.get_logger("worker")


async def run_scheduler(scheduler: Scheduler, stop: asyncio.Event, *, tick_s: float = 5.0) -> None:
    """Handle due items and queue digests every tick until `stop` is set."""
    while not stop.is_set():
        try:
            # a backlog of thousands of due items must not keep SIGTERM waiting: check between batches
            while not stop.is_set() and await scheduler.run_due():
                pass
            if not stop.is_set():
                await scheduler.periodic()
        except (redis.exceptions.RedisError, OSError) as e:
            log.error("scheduler_unreachable", error=repr(e)[:200])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), tick_s)


async def run_worker(notifier: OutboxWorker, scheduler: Scheduler, stop: asyncio.Event) -> None:
    """The notifier, the scheduler and the month keeper until `stop` is set."""
    await asyncio.gather(
        notifier.run(stop),
        run_scheduler(scheduler, stop),
        month_keeper.run(scheduler.engine, stop),
    )
