"""A budget for failed verifications at the HTTP edge: per client address, and for every process together.

Someone who cannot sign requests learns nothing from our answers (they are all the same), but
each attempt still costs a little work and, before this existed, a log line. Past the budget a
client's requests are answered 429 without any work, and the log says so once per window
instead of once per request.

The per-address count is per process (in memory). The total is shared by every `serve` and
`worker` process through Redis (`SharedTotal`: one atomic INCR-with-expiry per failure, a
fixed window by the wall clock, a short deadline), so an attacker spread over N processes
gets one budget, not N. When Redis does not answer in time the process falls back to its own
count — logged once per window and counted in
`approvals_verify_budget_fallbacks_total` — rather than failing open or shut.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict, deque
from collections.abc import Callable

import redis.asyncio as aioredis
import redis.exceptions
import structlog
from prometheus_client import Counter

from bot.settings import Settings
from workflow.keys import verify_failures

log = structlog.get_logger("edge")
MAX_TRACKED = 10_000  # client addresses remembered at once (the oldest is forgotten first)
SHARED_DEADLINE_S = 0.25  # a failed verification never waits longer than this on Redis
FALLBACKS = Counter(
    "approvals_verify_budget_fallbacks_total",
    "Times the shared failed-verification budget was unreachable and this process's own was used.",
)
# INCR and, for the window's first failure, its expiry: one atomic call
_ADD = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return n
"""


class SharedTotal:
    """Failed verifications of every process together, one Redis counter per fixed window."""

    def __init__(
        self,
        redis: aioredis.Redis,
        window_s: float,
        *,
        deadline_s: float = SHARED_DEADLINE_S,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.redis = redis
        self.window_s = window_s
        self.deadline_s = deadline_s
        self._wall = wall  # the wall clock: every process must agree on the window
        self._add = redis.register_script(_ADD)
        self._last: tuple[int, int] = (-1, 0)  # (window, count) last seen: no call once spent

    def _window(self) -> int:
        return int(self._wall() // self.window_s)

    async def add(self) -> int:
        """Count one failure; returns the total so far in this window.

        Raises:
            TimeoutError, redis.exceptions.RedisError, OSError: Redis did not answer in time.
        """
        window = self._window()
        async with asyncio.timeout(self.deadline_s):
            count = int(
                await self._add(keys=[verify_failures(window)], args=[int(self.window_s * 2000)])
            )
        self._last = (window, count)
        return count

    async def count(self, limit: int) -> int:
        """The total so far in this window (without a call once it is known to be over `limit`).

        Raises:
            TimeoutError, redis.exceptions.RedisError, OSError: Redis did not answer in time.
        """
        window = self._window()
        if self._last[0] == window and self._last[1] >= limit:
            return self._last[1]
        async with asyncio.timeout(self.deadline_s):
            raw = await self.redis.get(verify_failures(window))
        count = int(raw or 0)
        self._last = (window, count)
        return count


class VerificationBudget:
    """Failed verifications per client address and in total, over a sliding window."""

    def __init__(
        self,
        per_client: int = 30,
        total: int = 300,
        window_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
        shared: SharedTotal | None = None,
    ) -> None:
        """Args:
        shared: the total of every process together (None: this process's count only).
        """
        self.per_client = per_client
        self.total = total
        self.window_s = window_s
        self._clock = clock
        self.shared = shared
        self._by_client: OrderedDict[str, deque[float]] = OrderedDict()
        self._all: deque[float] = deque()
        self._warned: dict[str, float] = {}

    def _trim(self, stamps: deque[float], now: float) -> deque[float]:
        while stamps and stamps[0] <= now - self.window_s:
            stamps.popleft()
        return stamps

    def client_blocked(self, client: str) -> bool:
        """Whether this client used up its budget (answer 429, do nothing)."""
        stamps = self._by_client.get(client)
        if stamps is None:
            return False
        blocked = len(self._trim(stamps, self._clock())) >= self.per_client
        if blocked:
            self._warn_once(f"client:{client}", "verification_budget_spent", client=client)
        return blocked

    def share(self, redis: aioredis.Redis | None) -> None:
        """Keep the total in this Redis, with every other process's (unless already shared;
        None: there is no store, as in a test of parsing alone, and this process counts alone)."""
        if self.shared is None and redis is not None:
            self.shared = SharedTotal(redis, self.window_s)

    async def exhausted(self) -> bool:
        """Whether failures from everyone together used up the budget (all processes when shared)."""
        total = len(self._trim(self._all, self._clock()))
        if self.shared is not None:
            try:
                total = await self.shared.count(self.total)
            except (TimeoutError, redis.exceptions.RedisError, OSError) as e:
                self._fell_back(e)
        blocked = total >= self.total
        if blocked:
            self._warn_once("total", "verification_budget_spent_total")
        return blocked

    async def failed(self, client: str) -> None:
        """Count one failed verification from this client (and in the shared total)."""
        now = self._clock()
        stamps = self._by_client.pop(client, None) or deque()
        stamps.append(now)
        self._by_client[client] = self._trim(stamps, now)
        while len(self._by_client) > MAX_TRACKED:
            self._by_client.popitem(last=False)
        self._all.append(now)  # kept always: the fallback when the shared total is unreachable
        self._trim(self._all, now)
        if self.shared is not None:
            try:
                await self.shared.add()
            except (TimeoutError, redis.exceptions.RedisError, OSError) as e:
                self._fell_back(e)

    def _fell_back(self, error: BaseException) -> None:
        FALLBACKS.inc()
        self._warn_once(
            "shared",
            "verification_budget_shared_unavailable",
            error=type(error).__name__,
            using="this process's own count",
        )

    def _warn_once(self, key: str, event: str, **fields: str) -> None:
        now = self._clock()
        if now - self._warned.get(key, -self.window_s) >= self.window_s:
            self._warned[key] = now
            if len(self._warned) > MAX_TRACKED:
                self._warned.clear()
            log.warning(event, window_s=self.window_s, **fields)


def client_address(remote: str | None) -> str:
    """The address a budget is kept for (the peer; a proxy in front shares one budget)."""
    return remote or "-"


def budget_for(settings: Settings) -> VerificationBudget:
    """The budget the settings give (VERIFY_FAILURES_PER_CLIENT, VERIFY_FAILURES_TOTAL).

    The edge that uses it shares its total over its Redis (`VerificationBudget.share`).
    """
    return VerificationBudget(settings.verify_failures_per_client, settings.verify_failures_total)
