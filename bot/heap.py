"""The garbage collector tuned for a process that has loaded its long-lived objects.

`serve` (a burst of acks) and `requests list|export` (a month of rows) allocate fast enough
to trigger many collections, each walking everything start-up made. Frozen, that heap is out
of the collector's sight; and as what they allocate is freed by reference counting (no
cycles), the young generation is collected rarely.
"""

from __future__ import annotations

import gc

# The young generation's threshold (Python's default: 700). A burst of acks keeps ~55 tracked
# objects alive per request in flight (1,000 DMs at once took the count from ~30k to ~85k), so
# at 700 a burst ran ~80 young and several full collections that walked those requests again
# and again: a fifth of an ack's CPU; a month's export spent ~10% of its CPU collecting.
YOUNG = 100_000


def settle() -> tuple[int, ...]:
    """Freeze what exists now and collect the young generation every YOUNG allocations;
    returns the thresholds before, for `unsettle`."""
    before = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG, *before[1:])
    return before


def unsettle(before: tuple[int, ...]) -> None:
    gc.set_threshold(*before)
    gc.unfreeze()
