"""The injected clock: "now" and "today" always come from here, never from datetime.now()."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workflow.errors import ConfigError


def zone(name: str) -> ZoneInfo:
    """The ZoneInfo for an IANA name, or a ConfigError naming it."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ConfigError(
            f"Unknown timezone {name!r}; use an IANA name such as Asia/Shanghai."
        ) from e


class Clock(Protocol):
    """Where the engine reads the time."""

    def now(self, tz: ZoneInfo | None = None) -> datetime:
        """The current time, aware, in `tz` (UTC when None)."""
        ...


class SystemClock:
    """The real time."""

    def now(self, tz: ZoneInfo | None = None) -> datetime:
        return datetime.now(tz or UTC)


@dataclass
class FixedClock:
    """A clock standing still until advanced; for tests and demos.

    A naive `at` is a wall time that holds in every timezone (APPROVALS_NOW=2026-12-02T09:00
    means 9 o'clock for each person where they are); an aware `at` is one instant.
    """

    at: datetime
    _offset: timedelta = field(default=timedelta(0))

    def now(self, tz: ZoneInfo | None = None) -> datetime:
        tz = tz or UTC
        if self.at.tzinfo is None:
            return self.at.replace(tzinfo=tz) + self._offset
        return (self.at + self._offset).astimezone(tz)

    def advance(self, delta: timedelta) -> None:
        """Move the clock forward by `delta`."""
        self._offset += delta


def parse_fixed_now(value: str) -> FixedClock:
    """A FixedClock from an ISO string such as 2026-12-02T09:00 (APPROVALS_NOW)."""
    try:
        return FixedClock(datetime.fromisoformat(value))
    except ValueError as e:
        raise ConfigError(
            f"APPROVALS_NOW={value!r} is not an ISO date-time; use e.g. 2026-12-02T09:00."
        ) from e


def today_in(clock: Clock, tz: ZoneInfo) -> date:
    """Today's date where the person is."""
    return clock.now(tz).date()


def epoch_ms(clock: Clock) -> int:
    """Milliseconds since the epoch, for stored timestamps and scores."""
    return int(clock.now(UTC).timestamp() * 1000)
