"""The sandbox's 飞书 view in a real browser: Chromium driven by Playwright, the whole product in-process.

Same rules as test_browser.py: skipped when Python playwright or /usr/bin/chromium is missing,
unless REQUIRE_BROWSER=1 (then it fails); each step is saved to
artifacts/screenshots/feishu-NN-name.png.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest
from icalendar import Calendar

from bot.sandbox.server import Sandbox
from tests.sandbox.browser import ROOT, SHOTS, chromium

ZHANG, WANG, OLIVER = "U0ZHANGSAN", "U0WANGFANG", "U0OLIVER"

pytestmark = pytest.mark.slow


@dataclass
class FeishuUi:
    """The page, switched to 飞书, and what the test needs around it."""

    page: Any
    url: str
    sandbox: Sandbox
    errors: list[str]

    async def shot(self, name: str) -> None:
        await self.page.screenshot(path=str(SHOTS / f"feishu-{name}.png"))

    async def become(self, user: str, name: str) -> None:
        """Pick a person in the Feishu side column and wait until the chat is theirs."""
        from playwright.async_api import expect

        person = self.page.locator(f'#lk-people .lk-person[data-user="{user}"]')
        await person.click()
        await expect(person).to_have_class(re.compile(r"\bactive\b"))
        await expect(self.page).to_have_title(re.compile(f"· {re.escape(name)} · 飞书"))

    async def say(self, text: str) -> None:
        composer = self.page.locator("#lk-input")
        await composer.fill(text)
        await composer.press("Enter")

    async def confirm_if_asked(self, shot: str | None = None) -> None:
        """Say yes to the button's confirm dialog, if it has one (shot: save it first)."""
        dialog = self.page.locator("#lk-dialog-overlay .lk-dialog")
        if await dialog.is_visible():
            if shot:
                await self.shot(shot)
            await dialog.locator(".lk-dialog-ok").click()


@pytest.fixture
async def fui(sandbox: Sandbox) -> AsyncIterator[FeishuUi]:
    url = await sandbox.start("127.0.0.1", 0)
    try:
        async with chromium() as browser:
            context = await browser.new_context(
                viewport={"width": 1440, "height": 900},
                locale="zh-CN",
                timezone_id="Europe/London",
            )
            page = await context.new_page()
            page.set_default_timeout(10_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            yield FeishuUi(page, url, sandbox, errors)
    finally:
        await sandbox.stop()


async def test_zhangsan_asks_on_feishu_wangfang_approves_and_zhangsan_hears(fui: FeishuUi):
    """张三 switches to 飞书 and asks; steps and confirm cards in the thread; 王芳 approves on hers."""
    from playwright.async_api import expect

    page = fui.page
    await page.goto(fui.url + "#" + ZHANG)
    await expect(page.locator(".me-name")).to_have_text("张三")  # the Slack DM first
    await page.locator("#platform-feishu").click()
    await expect(page.locator("#feishu")).to_be_visible()
    await expect(page.locator("#slack-workspace")).to_be_hidden()
    await expect(page.locator("#platform-feishu")).to_have_attribute("aria-selected", "true")
    await expect(page).to_have_title(re.compile("张三 · 飞书"))
    await expect(page.locator("#live")).to_have_text("已连接")  # the page speaks 张三's language
    assert page.url.endswith("#feishu/" + ZHANG)
    await expect(page.locator('#lk-people .lk-person[data-user="U0OLIVER"]')).to_have_class(
        re.compile(r"\boff\b")
    )  # Oliver has no Feishu open_id
    await fui.shot("01-zhangsan-empty-chat")

    # 张三 asks; the bot answers in the message's thread: a steps card patched live, a confirm card.
    await fui.say("明天开始请两天病假")
    thread = page.locator("#lk-thread")
    await expect(thread).to_be_visible()
    steps = thread.locator(".lk-card", has_text="处理步骤")
    await expect(steps).to_contain_text("✅")
    await expect(steps.locator(".lk-card-header")).to_have_class(re.compile(r"\blk-t-grey\b"))
    confirm = thread.locator(".lk-card", has_text="提交此申请？")
    await expect(confirm).to_contain_text("病假")
    await expect(confirm).to_contain_text("王芳")
    await expect(confirm.locator(".lk-card-header")).to_have_class(re.compile(r"\blk-t-blue\b"))
    submit = confirm.get_by_role("button", name="提交", exact=True)
    await expect(submit).to_have_class(re.compile(r"\blk-btn-primary\b"))
    await expect(page.locator("#lk-messages .lk-thread-summary")).to_contain_text("2 条回复")
    await fui.shot("02-zhangsan-steps-and-confirm-card")

    await submit.click()
    await fui.confirm_if_asked("03-zhangsan-submit-dialog")
    toast = page.locator("#lk-toast")
    await expect(toast).to_be_visible()
    await expect(toast).to_contain_text("王芳")
    await expect(toast).to_have_class(re.compile(r"\blk-toast-success\b"))
    await expect(thread.locator(".lk-card", has_text="已确认")).to_be_visible()
    await expect(thread.get_by_role("button", name="提交", exact=True)).to_have_count(0)
    await fui.shot("03-zhangsan-submitted-toast")
    await expect(page.locator("#lk-messages")).to_contain_text("你的申请已提交给 王芳")
    await expect(toast).to_be_hidden()  # a toast is transient

    # 王芳 has one approval waiting; her card has [批准] (confirm dialog) and [驳回].
    wang = page.locator(f'#lk-people .lk-person[data-user="{WANG}"]')
    await expect(wang.locator(".lk-badge")).to_have_text("1")
    await fui.become(WANG, "王芳")
    card = page.locator("#lk-messages .lk-card", has_text="张三")
    approve = card.get_by_role("button", name="批准", exact=True)
    await expect(approve).to_be_visible()
    await expect(card.get_by_role("button", name="驳回", exact=True)).to_have_class(
        re.compile(r"\blk-btn-danger\b")
    )
    await expect(card).to_contain_text("直属主管审批")
    await fui.shot("04-wangfang-approval-card")
    await approve.click()
    dialog = page.locator("#lk-dialog-overlay .lk-dialog")
    await expect(dialog).to_contain_text("批准此申请？")
    await expect(dialog).to_contain_text("张三")
    await fui.shot("05-wangfang-confirm-dialog")
    await dialog.get_by_role("button", name="确定", exact=True).click()
    await expect(dialog).to_have_count(0)
    await expect(toast).to_contain_text("已批准")
    await expect(card.get_by_role("button", name="批准", exact=True)).to_have_count(0)
    await expect(card.locator(".lk-card-header")).to_have_class(re.compile(r"\blk-t-green\b"))
    await expect(wang.locator(".lk-badge")).to_have_count(0)
    await fui.shot("06-wangfang-approved")

    # 张三 hears it in his Feishu chat (and, having a Slack id too, in his Slack DM).
    await fui.become(ZHANG, "张三")
    notice = page.locator("#lk-messages .lk-card", has_text="你的申请已批准")
    await expect(notice).to_be_visible()
    await expect(notice.locator(".lk-card-header")).to_have_class(re.compile(r"\blk-t-green\b"))
    await fui.shot("07-zhangsan-hears-approved")
    await page.locator("#lk-messages .lk-thread-summary").first.click()
    await expect(thread.locator(".lk-card", has_text="处理步骤")).to_be_visible()
    await fui.shot("08-zhangsan-overview")

    await page.locator("#platform-slack").click()
    await expect(page.locator("#slack-workspace")).to_be_visible()
    await expect(page.locator("#messages")).to_contain_text("王芳")
    assert page.url.endswith("#" + ZHANG)
    assert fui.errors == []


async def test_reject_asks_for_a_reason_in_a_card_form(fui: FeishuUi):
    """王芳's 驳回 turns her card into a form; an empty reason is stopped; 张三 hears the reason."""
    from playwright.async_api import expect

    page = fui.page
    await page.goto(fui.url + "#feishu/" + ZHANG)  # straight into 飞书 from the address
    await expect(page.locator("#feishu")).to_be_visible()
    await fui.say("明天请一天事假，去银行办事")
    thread = page.locator("#lk-thread")
    await thread.get_by_role("button", name="提交", exact=True).click()
    await fui.confirm_if_asked()
    await expect(thread.locator(".lk-card", has_text="已确认")).to_be_visible()

    await fui.become(WANG, "王芳")
    card = page.locator("#lk-messages .lk-card", has_text="张三")
    await card.get_by_role("button", name="驳回", exact=True).click()
    reason = card.locator(".lk-form input")
    await expect(reason).to_be_visible()
    await expect(page.locator("#lk-toast")).to_contain_text("驳回理由")
    await card.locator(".lk-form").get_by_role("button", name="驳回", exact=True).click()
    await expect(card.locator(".lk-input-error")).to_be_visible()  # required: nothing sent
    await reason.fill("年底结账，人手不够 <b>**急**</b>")  # shown as typed, never as markup
    await fui.shot("09-wangfang-reject-form")
    await card.locator(".lk-form").get_by_role("button", name="驳回", exact=True).click()
    dialog = page.locator("#lk-dialog-overlay .lk-dialog")
    await expect(dialog).to_contain_text("驳回此申请？")
    await dialog.get_by_role("button", name="确定", exact=True).click()
    await expect(card.locator(".lk-form")).to_have_count(0)
    await expect(card.locator(".lk-card-header")).to_have_class(re.compile(r"\blk-t-red\b"))
    await expect(
        page.locator(f'#lk-people .lk-person[data-user="{WANG}"] .lk-badge')
    ).to_have_count(0)
    await fui.shot("10-wangfang-rejected")

    await fui.become(ZHANG, "张三")
    await expect(page.locator("#lk-messages")).to_contain_text("年底结账，人手不够 <b>**急**</b>")
    await expect(page.locator("#lk-messages b", has_text="急")).to_have_count(0)
    await fui.shot("11-zhangsan-hears-rejected")

    # Someone without a Feishu open_id: the view says so instead of a chat.
    await page.locator(f'#lk-people .lk-person[data-user="{OLIVER}"]').click()
    await expect(page.locator("#lk-messages")).to_contain_text("Oliver Smith is not on Feishu")
    await expect(page.locator("#lk-composer")).to_be_hidden()
    assert fui.errors == []


async def test_the_bot_menu_gives_a_team_calendar_link_that_serves_the_feed(fui: FeishuUi):
    """张三 picks 团队日历链接 in the bot menu under the chat: the bot's card carries his feed's
    URL, which answers with his team's calendar; 停用日历链接 on the card turns it off (404)."""
    from playwright.async_api import expect

    page = fui.page
    await page.goto(fui.url + "#feishu/" + ZHANG)
    await expect(page).to_have_title(re.compile("张三 · 飞书"))
    menu = page.locator("#lk-bot-menu")
    await expect(menu.get_by_role("button", name="请假", exact=True)).to_be_visible()
    await menu.get_by_role("button", name="团队日历链接", exact=True).click()
    card = page.locator("#lk-messages .lk-card", has_text="/calendar/")
    await expect(card).to_be_visible()
    await expect(card.locator(".lk-card-header")).to_contain_text("团队日历")
    found = re.search(r"http://127\.0\.0\.1:\d+/calendar/[\w-]+\.ics", await card.inner_text())
    assert found, await card.inner_text()
    url = found.group(0)
    await fui.shot("09-zhangsan-calendar-link")
    doc = ROOT / "docs" / "sandbox-feishu-calendar.png"
    if not doc.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
        await page.screenshot(path=str(doc))

    feed = await page.request.get(url)
    assert feed.status == 200 and feed.headers["content-type"].startswith("text/calendar")
    calendar = Calendar.from_ical(await feed.body())
    assert str(calendar["X-WR-CALNAME"]).startswith("团队请假")

    await card.get_by_role("button", name="停用日历链接", exact=True).click()
    await fui.confirm_if_asked()
    await expect(page.locator("#lk-toast")).to_be_visible()
    assert (await page.request.get(url)).status == 404
    assert fui.errors == []


async def test_wangfangs_digest_ticks_two_requests_and_approves_them(fui: FeishuUi):
    """The morning digest on 飞书 lists each request with a tick (not a "[multi_select_static]"
    placeholder); 王芳 ticks two, [批准所选] asks once, and both are approved."""
    import json

    from playwright.async_api import expect

    engine = fui.sandbox.runtime.engine
    ids = []
    for who, day in (("zhangsan", "2026-12-14"), ("lisi", "2026-12-15")):
        proposal = await engine.prepare_submit(
            who, "leave", {"leave_type": "annual", "start": day, "end": day}
        )
        ids.append((await engine.confirm(proposal.pending.id, who)).request.id)
    await engine.store.redis.xadd(  # the scheduler's morning digest, as it queues it
        engine.keys.outbox,
        {
            "type": "daily_digest",
            "request_id": "",
            "org": engine.keys.org,
            "at": "2026-12-02T09:00:00+08:00",
            "data": json.dumps({"person": "wangfang", "count": 2, "request_ids": ids}),
        },
    )
    page = fui.page
    await page.goto(fui.url + "#feishu/" + WANG)
    card = page.locator("#lk-messages .lk-card", has_text="批准所选")
    ticks = card.locator(".lk-multi input[type=checkbox]")
    await expect(ticks).to_have_count(2, timeout=15_000)
    await expect(card.locator(".lk-multi")).to_contain_text("张三：年假，2026年12月14日 周一")
    await expect(card.locator(".lk-unsupported")).to_have_count(0)
    for i in range(2):
        await ticks.nth(i).check()
    await fui.shot("12-wangfang-digest-ticks")
    await card.get_by_role("button", name="批准所选", exact=True).click()
    await fui.confirm_if_asked()
    await expect(page.locator("#lk-toast")).to_be_visible()
    for who in ("zhangsan", "lisi"):
        assert [r.status.value for r in await engine.my_requests(who)] == ["approved"]
    assert fui.errors == []
