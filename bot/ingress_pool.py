"""`serve` on more than one core: extra processes that answer the same port and only ack.

One process acks one request at a time, so a burst's last ack waits for every ack before
it. With INGRESS_PROCESSES=N (or `serve --ingress-processes N`), `serve` forks N-1 copies of
itself before it opens any connection or event loop; each binds PORT with SO_REUSEPORT, so
the kernel spreads connections over them. The copies serve every route as the first process
does but run no turns: the first process (and the workers) run those. A copy that dies takes
the whole `serve` down with it, so the supervisor restarts all of it rather than leaving a
port that drops a share of the connections; a copy whose first process is gone stops too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from dataclasses import dataclass, field

import structlog

log = structlog.get_logger("bot")
WATCH_EVERY_S = 1.0
STOP_WITHIN_S = 10.0  # a copy still running this long after SIGTERM is killed


def _exit_status(pid: int) -> int | None:
    """The child's wait status if it has exited (reaping it), None while it runs; never blocks."""
    done, status = os.waitpid(pid, os.WNOHANG)
    return status if done else None


def _kill(pid: int) -> None:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)  # a SIGKILLed child is gone at once


@dataclass
class IngressPool:
    """Which process this is (0: the first) and, in the first, the pids of its copies."""

    count: int = 1
    index: int = 0
    parent: int = field(default_factory=os.getpid)
    children: list[int] = field(default_factory=list)
    failed: bool = False  # a copy exited on its own, or the first process went away

    @property
    def shared_port(self) -> bool:
        return self.count > 1

    @classmethod
    def fork(cls, count: int) -> IngressPool:
        """Fork `count - 1` copies; call before any event loop, thread or connection exists."""
        pool = cls(count)
        for index in range(1, count):
            pid = os.fork()
            if pid == 0:
                return cls(count, index, pool.parent)
            pool.children.append(pid)
        return pool

    async def watch(self, stop: asyncio.Event) -> None:
        """Set `stop` when a copy has exited (first process) or the first process is gone (a copy)."""
        while not stop.is_set():
            if self.index and os.getppid() != self.parent:
                log.error("ingress_parent_gone", index=self.index)
                self.failed = True
                stop.set()
                return
            for pid in self.children:
                status = _exit_status(pid)
                if status is not None:
                    log.error("ingress_process_exited", pid=pid, status=status)
                    self.children.remove(pid)
                    self.failed = True
                    stop.set()
                    return
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), WATCH_EVERY_S)

    async def stop_children(self) -> int:
        """SIGTERM every copy and wait for it (SIGKILL after STOP_WITHIN_S); the exit code."""
        for pid in self.children:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        give_up = time.monotonic() + STOP_WITHIN_S
        for pid in self.children:
            while _exit_status(pid) is None:
                if time.monotonic() > give_up:
                    log.error("ingress_process_killed", pid=pid, after_s=STOP_WITHIN_S)
                    _kill(pid)
                    break
                await asyncio.sleep(0.05)
        self.children = []
        return 1 if self.failed else 0
