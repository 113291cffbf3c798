"""requests list|export read the next page while the caller works through this one: the next
request goes out before the caller's work on a page starts, even when the reader suspends once
before it sends (as redis-py does, checking a pooled connection)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from bot.request_pages import _read_ahead


async def test_the_next_page_is_asked_for_before_the_caller_works_on_this_one():
    sent: list[int] = []

    async def pages() -> AsyncIterator[int]:
        for n in range(4):
            await asyncio.sleep(0)  # the connection check before a request is written
            sent.append(n)
            await asyncio.sleep(0.01)  # Redis reading the page
            yield n

    asked_before_work = []
    async for n in _read_ahead(pages()):
        asked_before_work.append(n + 1 in sent or n == 3)
        # the caller's work on a page: no await, as when it makes a page's rows
    assert asked_before_work == [True, True, True, True]
