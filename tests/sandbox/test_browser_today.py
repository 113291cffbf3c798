"""The sandbox page's "today" is the product's, in the viewer's zone: the top bar and the
message times agree even when the UTC date is another day (22:50 UTC on 1 Dec is 06:50 on
2 Dec in Shanghai). Same rules as test_browser.py (skipped without playwright or
/usr/bin/chromium unless REQUIRE_BROWSER=1).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

from bot.sandbox.server import Sandbox
from tests.sandbox.browser import chromium
from tests.sandbox.conftest import runtime_at, sandbox_of

ZHANG, OLIVER = "U0ZHANGSAN", "U0OLIVER"
LATE_ON_1_DEC = datetime(2026, 12, 1, 22, 50, tzinfo=UTC)  # 2 Dec 06:50 in Shanghai

pytestmark = pytest.mark.slow


@pytest.fixture
async def late_sandbox() -> AsyncIterator[Sandbox]:
    runtime = runtime_at(LATE_ON_1_DEC)
    yield sandbox_of(runtime)
    await runtime.redis.aclose()


async def test_the_top_bar_and_the_messages_agree_on_today(late_sandbox: Sandbox):
    from playwright.async_api import expect

    url = await late_sandbox.start("127.0.0.1", 0)
    try:
        async with chromium() as browser:
            # a browser in London, as the page's own clock would be: not what decides today
            context = await browser.new_context(locale="zh-CN", timezone_id="Europe/London")
            page = await context.new_page()
            await page.goto(url + "#" + ZHANG)
            await expect(page.locator("#live")).to_have_class("live on")
            today = page.locator("#topbar-right .chip-info").last
            await expect(today).to_contain_text("12月2日")  # Shanghai's day, not UTC's 1 Dec
            await page.locator("#composer-input").fill("我还有几天年假？")
            await page.locator("#composer-input").press("Enter")
            await expect(page.locator("#messages .day-divider")).to_have_text("今天")
            sent = page.locator("#messages time").first
            await expect(sent).to_have_attribute("title", "2026年12月2日星期三 06:50")
            # two-digit hours, as on the cards ("06:50（北京时间）") and in the Feishu view
            await expect(sent).to_have_text("06:50")

            # Oliver in London: the same instant is still 1 Dec there, in the bar and the chat
            page = await context.new_page()
            await page.goto(url + "#" + OLIVER)
            await expect(page.locator("#live")).to_have_class("live on")
            await expect(page.locator("#topbar-right .chip-info").last).to_contain_text("12月1日")
    finally:
        await late_sandbox.stop()
