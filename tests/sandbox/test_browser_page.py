"""The sandbox page itself in Chromium: one thread at a time, the sent message in view, a clear
error when the sandbox is unreachable or restarted, a 390 px wide phone, the viewer's language.

Same rules as test_browser.py (skipped without playwright or /usr/bin/chromium unless
REQUIRE_BROWSER=1). Steps are saved to artifacts/screenshots/page-*.png; the ones the README
and the issue show are written to docs/ when missing or with UPDATE_SCREENSHOTS=1.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from bot.runtime import Runtime
from bot.sandbox.server import Sandbox
from tests.sandbox.browser import ROOT, SHOTS, chromium

OLIVER, ZHANG, WANG = "U0OLIVER", "U0ZHANGSAN", "U0WANGFANG"
DOCS = ROOT / "docs"

pytestmark = pytest.mark.slow

Opener = Callable[..., Awaitable[Any]]


@pytest.fixture
async def open_page(sandbox: Sandbox) -> AsyncIterator[Opener]:
    """open_page(user, width=1440, height=900, locale="en-GB") → a page showing that person."""
    from playwright.async_api import expect

    url = await sandbox.start("127.0.0.1", 0)
    errors: list[str] = []
    try:
        async with chromium() as browser:

            async def opener(
                user: str, width: int = 1440, height: int = 900, locale: str = "en-GB"
            ) -> Any:
                context = await browser.new_context(
                    viewport={"width": width, "height": height},
                    locale=locale,
                    timezone_id="Europe/London",
                )
                page = await context.new_page()
                page.set_default_timeout(10_000)
                page.on("pageerror", lambda e: errors.append(str(e)))
                await page.goto(url + "#" + user)
                await expect(page.locator("#live")).to_have_class("live on")
                return page

            yield opener
    finally:
        await sandbox.stop()
    assert errors == []  # no script error on any page


async def shot(page: Any, name: str, doc: str | None = None) -> None:
    """Save the page to artifacts/screenshots/page-NAME.png (and docs/DOC when asked and due)."""
    await page.screenshot(path=str(SHOTS / f"page-{name}.png"))
    if doc is not None:
        target = DOCS / doc
        if not target.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
            await page.screenshot(path=str(target))


async def say(page: Any, text: str, composer: str = "#composer-input") -> None:
    await page.locator(composer).fill(text)
    await page.locator(composer).press("Enter")


async def in_view(page: Any, pane: str, item: Any) -> bool:
    """Whether `item` is wholly inside the visible part of the scrolling `pane`."""
    box = await page.locator(pane).bounding_box()
    mine = await item.bounding_box()
    return bool(
        box
        and mine
        and mine["y"] >= box["y"] - 1
        and mine["y"] + mine["height"] <= box["y"] + box["height"] + 1
    )


async def at_end(page: Any, pane: str) -> bool:
    return await page.locator(pane).evaluate(
        "e => e.scrollHeight - e.scrollTop - e.clientHeight < 2"
    )


async def test_one_thread_at_a_time_and_the_sent_message_stays_in_view(open_page: Opener):
    """A second message opens its own thread, alone; going back shows the first, alone.

    Before: the pane kept the old thread under the new one and scrolled to the old card, and
    the sent message ended below the fold when the opening thread narrowed the chat.
    """
    from playwright.async_api import expect

    page = await open_page(OLIVER, height=700)
    thread = page.locator("#thread-body")
    messages = page.locator("#messages")
    await say(page, "annual leave next Monday to Wednesday")
    await expect(thread.get_by_role("button", name="Submit", exact=True)).to_be_visible()

    # Fill the chat so that it scrolls (the sandbox answers an unknown command itself), then
    # ask a second, different thing.
    for n in range(3):
        await say(page, f"/help{n}")
        await expect(messages.locator(".msg.ephemeral")).to_have_count(n + 1)
    await say(page, "How many days of annual leave do I have?")
    sent = messages.locator(".msg", has_text="How many days of annual leave do I have?")
    await expect(thread.locator(".msg.parent")).to_contain_text(
        re.compile("How many days of annual leave do I have")
    )
    await expect(thread.locator(".msg").nth(1)).to_be_visible()  # the bot's answer
    await page.wait_for_timeout(300)  # the last refresh scrolls
    # Alone: no trace of the first thread, its card or its Submit.
    await expect(thread.locator(".msg.parent")).to_have_count(1)
    await expect(thread).not_to_contain_text("Mon 7 Dec")
    await expect(thread.get_by_role("button", name="Submit", exact=True)).to_have_count(0)
    # The sent message is in view in the chat, and the thread shows its end.
    assert await in_view(page, "#messages", sent)
    assert await at_end(page, "#thread-body")
    await shot(page, "01-second-thread-alone")

    # Back to the first thread: it alone, with its card.
    await messages.locator(".thread-summary").first.click()
    await expect(thread.locator(".msg.parent")).to_have_count(1)
    await expect(thread.locator(".msg.parent")).to_contain_text("annual leave next Monday")
    await expect(thread.get_by_role("button", name="Submit", exact=True)).to_have_count(1)
    await expect(thread).not_to_contain_text("How many days of annual leave do I have")
    await shot(page, "02-first-thread-alone", doc="sandbox-thread.png")

    # The same on 飞书: a second message's thread replaces the first one's.
    feishu = await open_page("feishu/" + ZHANG, locale="zh-CN")
    lk_thread = feishu.locator("#lk-thread-body")
    await say(feishu, "明天开始请两天病假", "#lk-input")
    await expect(lk_thread.get_by_role("button", name="提交")).to_be_visible()
    await say(feishu, "我还有几天年假？", "#lk-input")
    await expect(lk_thread.locator(".lk-msg").first).to_contain_text("我还有几天年假")
    await expect(lk_thread.locator(".lk-msg").nth(1)).to_be_visible()
    await expect(lk_thread).not_to_contain_text("明天开始请两天病假")
    await expect(lk_thread.get_by_role("button", name="提交")).to_have_count(0)
    await shot(feishu, "03-feishu-second-thread-alone")


async def test_an_unreachable_or_restarted_sandbox_is_said_and_nothing_is_lost(
    open_page: Opener, sandbox: Sandbox, sandbox_runtime: Runtime
):
    """Stopped: a banner, and a send that fails says so and keeps the text. Restarted (a new
    token): the page says to reload; after the reload it works again."""
    from playwright.async_api import expect

    page = await open_page(OLIVER)
    port = int(str(sandbox.base_url).rsplit(":", 1)[1])
    await sandbox.stop()
    banner = page.locator("#conn-banner")
    await expect(banner).to_have_text("Can't reach the sandbox — reconnecting…")
    await expect(page.locator("#live")).to_have_text("reconnecting…")
    await say(page, "annual leave next Monday to Wednesday")
    error = page.locator("#composer .send-error")
    await expect(error).to_have_text(
        "Can't reach the sandbox — is approvals-bot sandbox still running? Nothing was sent."
    )
    await expect(page.locator("#composer-input")).to_have_value(
        "annual leave next Monday to Wednesday"
    )
    await expect(page.locator("#toast")).to_be_hidden()  # said once, where they typed
    await shot(page, "04-offline-send-refused", doc="sandbox-offline.png")

    restarted = Sandbox(sandbox_runtime)
    await restarted.start("127.0.0.1", port)
    try:
        await expect(banner).to_contain_text("The sandbox has restarted: reload this page.")
        await say(page, "annual leave next Monday to Wednesday")
        await expect(error).to_have_text("The sandbox has restarted: reload this page.")
        await shot(page, "05-restarted-reload")
        await banner.get_by_role("button", name="Reload").click()
        await expect(page.locator("#live")).to_have_class("live on")
        await expect(banner).to_be_hidden()
        await say(page, "annual leave next Monday to Wednesday")
        await expect(
            page.locator("#thread-body").get_by_role("button", name="Submit", exact=True)
        ).to_be_visible()
        await expect(error).to_be_hidden()
    finally:
        await restarted.stop()


async def test_a_390_px_phone_in_chinese(open_page: Opener):
    """张三 on a phone: the page's own words in Chinese, nothing wider than the screen, people in a
    drawer, the thread over the chat, the form's required-field error in Chinese; 飞书 too."""
    from playwright.async_api import expect

    page = await open_page(ZHANG, width=390, height=844, locale="zh-CN")
    wide = "() => document.documentElement.scrollWidth"
    await expect(page.locator("#composer-input")).to_have_attribute(
        "placeholder", "发送消息给 approvals"
    )
    await expect(page.locator("#tab-home")).to_have_text("主页")
    await expect(page.locator("#live")).to_have_text("已连接")
    assert await page.evaluate("document.documentElement.lang") == "zh-CN"
    assert await page.evaluate(wide) <= 390
    await expect(page.locator("#slack-sidebar")).not_to_be_in_viewport()

    # People are a drawer behind ☰.
    await page.locator("#menu-btn").click()
    await expect(page.locator(f'.person[data-user="{WANG}"]')).to_be_in_viewport()
    # the directory's titles and teams in the reader's language, as the directory has them
    await expect(page.locator(".team-heading").filter(has_text="研发部")).to_have_count(1)
    await expect(page.locator(f'.person[data-user="{WANG}"]')).to_contain_text("研发负责人")
    await expect(page.locator(".me-title")).to_have_text("软件工程师 · 研发部")
    await shot(page, "06-390-people-drawer")
    await page.locator(f'.person[data-user="{WANG}"]').click()
    await expect(page.locator(".me-name")).to_have_text("王芳")
    await expect(page.locator("#slack-sidebar")).not_to_be_in_viewport()
    await page.locator("#menu-btn").click()
    await page.locator(f'.person[data-user="{ZHANG}"]').click()
    await expect(page.locator(".me-name")).to_have_text("张三")

    # The thread covers the chat; its card and buttons fit.
    await say(page, "明天开始请两天病假")
    thread = page.locator("#thread")
    submit = thread.get_by_role("button", name="提交", exact=True)
    await expect(submit).to_be_in_viewport()
    await expect(page.locator("#messages .day-divider")).to_have_text("今天")
    await expect(page.locator("#thread-input")).to_have_attribute("placeholder", "回复…")
    box = await thread.bounding_box()
    assert box is not None and box["x"] == 0 and box["width"] == 390
    assert await page.evaluate(wide) <= 390
    await shot(page, "07-390-thread", doc="sandbox-390.png")
    await page.locator("#thread-close").click()
    await expect(thread).to_be_hidden()

    # /leave: the form fits, and an empty required field is refused in Chinese.
    await say(page, "/leave")
    modal = page.locator("#modal-overlay .modal")
    await expect(modal).to_be_in_viewport()
    await modal.locator("button[type=submit]").click()
    await expect(modal.locator(".bk-error").first).to_have_text("请填写此必填字段。")
    assert await page.evaluate(wide) <= 390
    await shot(page, "08-390-form-required")
    await modal.get_by_role("button", name="关闭").click()
    await expect(modal).to_have_count(0)

    # 飞书 on the phone: no rail, the chat and its composer fit.
    await page.locator("#platform-feishu").click()
    await expect(page.locator("#lk-input")).to_be_in_viewport()
    await say(page, "我还有几天年假？", "#lk-input")
    await expect(page.locator("#lk-thread")).to_be_in_viewport()
    await expect(page.locator("#lk-thread-body .lk-msg").nth(1)).to_be_visible()
    assert await page.evaluate(wide) <= 390
    await shot(page, "09-390-feishu-thread")


# The words of `root`'s elements matching a selector that the browser split over two lines.
SPLIT_WORDS = """([root, selector]) => {
  const split = [];
  for (const el of root.querySelectorAll(selector)) {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const rows = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.bottom)));
        if (rows.size > 1) split.push(m[0]);
      }
    }
  }
  return split;
}"""


async def test_card_fields_on_a_390_px_phone_wrap_between_words(open_page: Opener):
    """王芳 reads 张三's request on a phone: a field's value wraps between its words ("2026年12月3日
    周四 / 至 12月4日 周五"), never inside one ("周 / 四"), in 飞书 and in Slack."""
    from playwright.async_api import expect

    page = await open_page(ZHANG, width=390, height=844, locale="zh-CN")
    await page.locator("#platform-feishu").click()
    await say(page, "明天开始请两天病假", "#lk-input")
    thread = page.locator("#lk-thread")
    await thread.get_by_role("button", name="提交", exact=True).click()
    dialog = page.locator("#lk-dialog-overlay .lk-dialog")
    if await dialog.is_visible():
        await dialog.locator(".lk-dialog-ok").click()
    await expect(thread.locator(".lk-card", has_text="已确认")).to_be_visible()

    page = await open_page(WANG, width=390, height=844, locale="zh-CN")
    for view, card_of, field in (
        ("feishu", "#lk-messages .lk-card", ".lk-field"),
        ("slack", "#messages .msg", ".bk-field"),
    ):
        await page.locator(f"#platform-{view}").click()
        card = page.locator(card_of, has_text="张三").last
        await expect(card).to_contain_text("至 12月4日 周五")
        await card.scroll_into_view_if_needed()
        await shot(page, f"10-390-{view}-fields")
        handle = await card.element_handle()
        assert await page.evaluate(SPLIT_WORDS, [handle, field]) == [], view
