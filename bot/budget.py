"""A budget for failed verifications at the HTTP edge: per client address and for the whole process.

Someone who cannot sign requests learns nothing from our answers (they are all the same), but
each attempt still costs a little work and, before this existed, a log line. Past the budget a
client's requests are answered 429 without any work, and the log says so once per window
instead of once per request. Counts are per process (in memory): an attacker spread over many
`serve` processes gets each process's budget, which is still bounded.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

import structlog

from bot.settings import Settings

log = structlog.get_logger("edge")
MAX_TRACKED = 10_000  # client addresses remembered at once (the oldest is forgotten first)


class VerificationBudget:
    """Failed verifications per client address and in total, over a sliding window."""

    def __init__(
        self,
        per_client: int = 30,
        total: int = 300,
        window_s: float = 60.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.per_client = per_client
        self.total = total
        self.window_s = window_s
        self._clock = clock
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

    def exhausted(self) -> bool:
        """Whether failures from everyone together used up the process's budget."""
        blocked = len(self._trim(self._all, self._clock())) >= self.total
        if blocked:
            self._warn_once("total", "verification_budget_spent_total")
        return blocked

    def failed(self, client: str) -> None:
        """Count one failed verification from this client."""
        now = self._clock()
        stamps = self._by_client.pop(client, None) or deque()
        stamps.append(now)
        self._by_client[client] = self._trim(stamps, now)
        while len(self._by_client) > MAX_TRACKED:
            self._by_client.popitem(last=False)
        self._all.append(now)
        self._trim(self._all, now)

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
    """The budget the settings give (VERIFY_FAILURES_PER_CLIENT, VERIFY_FAILURES_TOTAL)."""
    return VerificationBudget(settings.verify_failures_per_client, settings.verify_failures_total)
