"""The sandbox in a real browser: Chromium driven by Playwright, the whole product in-process.

Skipped when Python playwright or /usr/bin/chromium is missing, unless REQUIRE_BROWSER=1 (then
it fails). Each step is saved to artifacts/screenshots/NN-name.png; the overview the README
shows is written to docs/sandbox.png when it is missing or UPDATE_SCREENSHOTS=1 (so a test run
does not rewrite a committed file). Chinese text needs a CJK font (fonts-wqy-microhei or
fonts-noto-cjk) to look right in the screenshots; the assertions do not depend on fonts.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from bot.sandbox.server import Sandbox
from tests.sandbox.browser import ROOT, SHOTS, chromium

OVERVIEW = ROOT / "docs" / "sandbox.png"
OLIVER, EMMA, ZHANG, WANG, PRIYA = "U0OLIVER", "U0EMMA", "U0ZHANGSAN", "U0WANGFANG", "U0PRIYA"

pytestmark = pytest.mark.slow


@dataclass
class Ui:
    """The page and what the test needs around it."""

    page: Any
    url: str
    sandbox: Sandbox
    errors: list[str]

    async def shot(self, name: str) -> None:
        await self.page.screenshot(path=str(SHOTS / f"{name}.png"))

    async def become(self, user: str, name: str) -> None:
        """Pick a person in the sidebar and wait until the page is theirs."""
        from playwright.async_api import expect

        await self.page.locator(f'.person[data-user="{user}"]').click()
        await expect(self.page.locator(".me-name")).to_have_text(name)
        await expect(self.page.locator(f'.person[data-user="{user}"]')).to_have_class(
            re.compile(r"\bactive\b")
        )

    async def say(self, text: str) -> None:
        composer = self.page.locator("#composer-input")
        await composer.fill(text)
        await composer.press("Enter")

    async def click_confirming(self, button: Any) -> None:
        """Click a Block Kit button; if it asks "are you sure?", say yes."""
        await button.click()
        dialog = self.page.locator("#dialog-overlay .dialog")
        if await dialog.is_visible():
            await dialog.locator(".btn.primary, .btn.danger").click()


@pytest.fixture
async def ui(sandbox: Sandbox) -> AsyncIterator[Ui]:
    url = await sandbox.start("127.0.0.1", 0)
    try:
        async with chromium() as browser:
            context = await browser.new_context(
                viewport={"width": 1440, "height": 900},
                locale="en-GB",
                timezone_id="Europe/London",
            )
            page = await context.new_page()
            page.set_default_timeout(10_000)
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            yield Ui(page, url, sandbox, errors)
    finally:
        await sandbox.stop()


async def test_two_employees_ask_the_approvers_decide_and_both_hear(ui: Ui):
    """Oliver (English) and 张三 (Chinese) ask and submit; Emma approves, 王芳 rejects with a reason."""
    from playwright.async_api import expect

    page = ui.page
    await page.goto(ui.url + "#" + OLIVER)
    await expect(page.locator(".me-name")).to_have_text("Oliver Smith")
    await expect(page.locator("#live")).to_have_text("live")
    await ui.shot("01-oliver-empty-dm")

    # Oliver asks in English; the thread opens with the agent's steps and a card.
    await ui.say("annual leave next Monday to Wednesday")
    thread = page.locator("#thread")
    await expect(thread.locator(".task.complete").first).to_be_visible()
    await expect(thread.locator(".task-title").first).to_contain_text("annual leave")
    await expect(thread.locator(".markdown")).to_contain_text("Mon 7 Dec 2026")
    submit = thread.get_by_role("button", name="Submit", exact=True)
    await expect(submit).to_be_visible()
    await ui.shot("02-oliver-steps-and-card")
    await ui.click_confirming(submit)
    await expect(thread).to_contain_text("Submitted — waiting for Emma Clarke")
    await expect(thread.get_by_role("button", name="Submit", exact=True)).to_have_count(0)
    await expect(page.locator("#messages")).to_contain_text("Your request went to Emma Clarke")
    await ui.shot("03-oliver-submitted")

    # 张三 asks in Chinese.
    await ui.become(ZHANG, "张三")
    await expect(page.locator("#messages .msg")).to_have_count(0)
    await ui.say("明天开始请两天病假")
    await expect(thread.locator(".task.complete").first).to_be_visible()
    await expect(thread.locator(".markdown")).to_contain_text("病假")
    submit = thread.get_by_role("button", name="提交", exact=True)
    await expect(submit).to_be_visible()
    await ui.shot("04-zhangsan-steps-and-card")
    await ui.click_confirming(submit)
    await expect(thread).to_contain_text("已提交")
    await expect(thread.get_by_role("button", name="提交", exact=True)).to_have_count(0)
    await ui.shot("05-zhangsan-submitted")

    # Emma has one approval waiting (the badge), approves it through the confirm dialog.
    await expect(page.locator(f'.person[data-user="{EMMA}"] .badge')).to_have_text("1")
    await ui.become(EMMA, "Emma Clarke")
    card = page.locator("#messages .msg", has_text="Leave request · Oliver Smith")
    approve = card.get_by_role("button", name="Approve", exact=True)
    await expect(approve).to_be_visible()
    await ui.shot("06-emma-approval-card")
    await approve.dblclick()  # a double click asks once and waits (it used to cancel itself)
    dialog = page.locator("#dialog-overlay .dialog")
    await expect(dialog).to_contain_text("Approve this request?")
    await page.wait_for_timeout(600)
    await expect(dialog).to_be_visible()
    await ui.shot("07-emma-confirm-dialog")
    await dialog.get_by_role("button", name="Approve", exact=True).click()
    await expect(dialog).to_have_count(0)
    await expect(card).to_contain_text("Approved by Emma Clarke")
    await expect(card.get_by_role("button", name="Approve", exact=True)).to_have_count(0)
    await expect(page.locator(f'.person[data-user="{EMMA}"] .badge')).to_have_count(0)
    await ui.shot("08-emma-approved")

    # 王芳 rejects 张三's request with a reason, in the modal Reject opens.
    await ui.become(WANG, "王芳")
    card = page.locator("#messages .msg", has_text="请假申请 · 张三")
    await card.get_by_role("button", name="驳回", exact=True).click()
    modal = page.locator("#modal-overlay .modal")
    await expect(modal).to_be_visible()
    await modal.locator("textarea").fill("年底项目上线，请改到下周再休")
    await ui.shot("09-wangfang-reject-reason")
    await modal.locator("button[type=submit]").click()
    await expect(modal).to_have_count(0)
    await expect(card.get_by_role("button", name="驳回", exact=True)).to_have_count(0)
    await expect(card).to_contain_text("驳回")
    await expect(page.locator(f'.person[data-user="{WANG}"] .badge')).to_have_count(0)
    await ui.shot("10-wangfang-rejected")

    # Both employees hear the outcome in their DM.
    await ui.become(OLIVER, "Oliver Smith")
    await expect(page.locator("#messages")).to_contain_text("Your request is approved")
    await ui.shot("11-oliver-hears-approved")
    await ui.become(ZHANG, "张三")
    await expect(page.locator("#messages")).to_contain_text("年底项目上线，请改到下周再休")
    await ui.shot("12-zhangsan-hears-rejected")

    # The overview for the README: Oliver's DM with the thread of his request open.
    await ui.become(OLIVER, "Oliver Smith")
    await page.locator("#messages .thread-summary").first.click()
    await expect(thread.locator(".task.complete").first).to_be_visible()
    await ui.shot("13-overview")
    if not OVERVIEW.exists() or os.environ.get("UPDATE_SCREENSHOTS") == "1":
        OVERVIEW.parent.mkdir(parents=True, exist_ok=True)
        await page.screenshot(path=str(OVERVIEW))
    assert ui.errors == []


async def test_the_leave_form_shows_field_errors_and_the_home_tab_works(ui: Ui):
    """/leave opens the bot's modal; an end before the start is refused on the field; Home renders."""
    from playwright.async_api import expect

    page = ui.page
    await page.goto(ui.url + "#" + PRIYA)
    await expect(page.locator(".me-name")).to_have_text("Priya Patel")
    await ui.say("/leave")
    modal = page.locator("#modal-overlay .modal")
    await expect(modal).to_contain_text("Request leave")
    await modal.locator('[data-block-id="leave_type"] select').select_option("annual")
    await modal.locator('[data-block-id="start"] input').fill("2026-12-10")
    await modal.locator('[data-block-id="end"] input').fill("2026-12-08")
    await modal.locator("button[type=submit]").click()
    error = modal.locator('[data-block-id="end"] .bk-error')
    await expect(error).to_be_visible()
    await expect(error).not_to_be_empty()
    await ui.shot("14-leave-form-field-error")

    await modal.locator('[data-block-id="end"] input').fill("2026-12-11")
    await modal.locator("button[type=submit]").click()
    await expect(modal).to_have_count(0)
    await expect(page.locator("#messages")).to_contain_text("Your request went to Emma Clarke")
    await ui.shot("15-leave-form-submitted")

    await ui.say("/leave sick leave tomorrow")
    await expect(page.locator("#messages .msg.ephemeral")).to_contain_text("Only visible to you")
    await ui.shot("16-command-ephemeral")

    await ui.become(EMMA, "Emma Clarke")
    await page.locator("#tab-home").click()
    home = page.locator("#home .home-view")
    await expect(home).to_contain_text("Priya Patel")
    await expect(home.get_by_role("button", name="Approve", exact=True)).to_be_visible()
    await ui.shot("17-emma-home-tab")
    assert ui.errors == []


async def test_an_approver_ticks_two_requests_on_home_and_approves_them_at_once(ui: Ui):
    """王芳's Home tab lists two requests with a tick each (Slack's checkboxes, not a
    "[checkboxes]" placeholder); [批准所选] after the confirm approves both, and the list empties."""
    from playwright.async_api import expect

    from tests.helpers import submitted

    engine = ui.sandbox.runtime.engine
    for who, day in (("zhangsan", "2026-12-14"), ("lisi", "2026-12-15")):
        await submitted(engine, who, {"leave_type": "annual", "start": day, "end": day})
    page = ui.page
    await page.goto(ui.url + "#" + WANG)
    await expect(page.locator(".me-name")).to_have_text("王芳")
    await page.locator("#tab-home").click()
    home = page.locator("#home .home-view")
    ticks = home.locator(".bk-checkboxes input[type=checkbox]")
    await expect(ticks).to_have_count(2)
    await expect(home.locator(".bk-checkboxes")).to_contain_text("张三：年假，2026年12月14日 周一")
    await expect(home.locator(".bk-unsupported")).to_have_count(0)
    for i in range(2):
        await ticks.nth(i).check()
    await ui.shot("18-wangfang-home-ticks")
    await ui.click_confirming(home.get_by_role("button", name="批准所选", exact=True))
    await expect(home).to_contain_text("没有待你审批的申请", timeout=15_000)
    for who in ("zhangsan", "lisi"):
        assert [r.status.value for r in await engine.my_requests(who)] == ["approved"]
    assert ui.errors == []
