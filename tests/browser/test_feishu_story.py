"""The whole story in the Feishu-style chat of ``tandem dev``, clicked and typed in a real browser.

Every message and click goes through the local Feishu as an encrypted, signed request to the
bot's ``/feishu/events``. alice asks for a restart, requests changes with the plan card's form,
approves the new plan; carol (an outsider) is refused at the risky step (a toast; the card keeps
its buttons); bob approves it; the result is approved and the run card ends Done. A screenshot
of the final page goes to test-artifacts/feishu-story.png.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from playwright.async_api import Locator, Page, async_playwright, expect

from cli.dev import DEMO_POLICY, developing
from tests.browser.conftest import ARTIFACTS, CHROMIUM_ARGS, TIMEOUT_MS

TASK = "restart payments and check errors after"
APPROVE = '[data-action="approve"]'


@asynccontextmanager
async def feishu_page(executable: str, url: str) -> AsyncIterator[Page]:
    """A fresh page on the Feishu view; JavaScript errors on the page fail the test."""
    expect.set_options(timeout=TIMEOUT_MS)
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            page = await (await browser.new_context(viewport={"width": 1440, "height": 1000})).new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(url)
            await expect(page.get_by_test_id("feishu-status")).to_have_attribute("data-state", "live")
            yield page
        finally:
            await browser.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


async def act_as(page: Page, name: str) -> None:
    await page.get_by_test_id("feishu-person").select_option(name)
    await expect(page.locator("body")).to_have_attribute("data-me", name)


def thread_of(page: Page) -> Locator:
    run = page.locator('[data-testid="feishu-conversation"][data-bot="true"]').filter(has_text=TASK)
    return run.get_by_test_id("feishu-thread")


async def next_review(page: Page, after: str | None = None) -> tuple[Locator, str]:
    """Wait for a card with an Approve button newer than ``after``; return it pinned by its id."""
    review = thread_of(page).get_by_test_id("feishu-message").filter(has=page.locator(APPROVE)).last
    if after is not None:
        await expect(review).not_to_have_attribute("data-id", after)
    message_id = await review.get_attribute("data-id")
    assert message_id is not None
    return thread_of(page).locator(f'[data-testid="feishu-message"][data-id="{message_id}"]'), message_id


async def test_feishu_view_story_from_mention_to_done(chromium: str, tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db", config=DEMO_POLICY, card_update_interval=0.05) as dev:
        assert dev.feishu is not None
        async with feishu_page(chromium, dev.feishu_url) as page:
            await act_as(page, "alice")
            composer = page.get_by_test_id("feishu-composer")
            await composer.fill(TASK)
            await composer.press("Enter")

            plan, plan_id = await next_review(page)
            await expect(plan).to_contain_text("payments")
            await plan.get_by_test_id("feishu-input").fill("restart checkout instead of payments")
            await plan.get_by_test_id("feishu-select").select_option("replan")
            await plan.locator('[data-action="request_changes"]').click()
            await expect(plan.locator(APPROVE)).to_have_count(0)  # the answer's card replaced it, decided

            replanned, replanned_id = await next_review(page, after=plan_id)
            await expect(replanned).to_contain_text("checkout")
            await replanned.locator(APPROVE).click()

            gate, gate_id = await next_review(page, after=replanned_id)
            await expect(gate).to_contain_text("restart_service")
            await expect(gate).to_contain_text("@bob")  # who it waits on, before anyone clicks

            await act_as(page, "carol")
            await gate.locator(APPROVE).click()
            refusal = page.get_by_test_id("feishu-toast").filter(has_text="can approve")
            await expect(refusal).to_have_attribute("data-kind", "error")
            await expect(gate.locator(APPROVE)).to_have_count(1)  # still waiting

            await act_as(page, "bob")
            gate = thread_of(page).locator(f'[data-testid="feishu-message"][data-id="{gate_id}"]')
            await gate.locator(APPROVE).click()
            await expect(gate).to_contain_text("approved by @bob")

            review, review_id = await next_review(page, after=gate_id)
            while "Result review" not in await review.inner_text():  # e.g. the step's outcome
                await review.locator(APPROVE).click()
                review, review_id = await next_review(page, after=review_id)
            await act_as(page, "alice")
            review = thread_of(page).locator(f'[data-testid="feishu-message"][data-id="{review_id}"]')
            await review.locator(APPROVE).click()

            run_card = page.locator('[data-testid="feishu-conversation"][data-bot="true"] .root').filter(has_text=TASK)
            await expect(run_card).to_contain_text("Done")
            await expect(thread_of(page).locator(APPROVE)).to_have_count(0)
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "feishu-story.png"), full_page=True)
        runs = await dev.bot.deps.store.list_runs()
        assert [r.status for r in runs] == ["done"]


ZH_TASK = "重启 payments 服务，然后检查错误日志"


async def test_feishu_view_chinese_run_is_chinese_from_plan_to_done(chromium: str, tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db", config=DEMO_POLICY, card_update_interval=0.05) as dev:
        assert dev.feishu is not None
        async with feishu_page(chromium, dev.feishu_url) as page:
            await act_as(page, "alice")
            await page.get_by_test_id("feishu-composer").fill(ZH_TASK)
            await page.get_by_test_id("feishu-composer").press("Enter")
            run = page.locator('[data-testid="feishu-conversation"][data-bot="true"]').filter(has_text=ZH_TASK)
            thread = run.get_by_test_id("feishu-thread")

            async def review_after(after: str | None) -> tuple[Locator, str]:
                card = thread.get_by_test_id("feishu-message").filter(has=page.locator(APPROVE)).last
                if after is not None:
                    await expect(card).not_to_have_attribute("data-id", after)
                await expect(card.locator(APPROVE)).to_have_count(1)
                message_id = await card.get_attribute("data-id")
                assert message_id is not None
                return thread.locator(f'[data-testid="feishu-message"][data-id="{message_id}"]'), message_id

            plan, plan_id = await review_after(None)
            await expect(plan).to_contain_text("计划审核")
            await expect(plan.locator(APPROVE)).to_have_text("批准")
            await plan.locator(APPROVE).click()
            await expect(run.locator(".root")).to_contain_text("计划已批准")

            gate, gate_id = await review_after(plan_id)
            await expect(gate).to_contain_text("第 1 步，共 2 步")
            await act_as(page, "bob")
            await gate.locator(APPROVE).click()
            await expect(gate).to_contain_text("第 1 步已批准")

            await act_as(page, "alice")
            review, review_id = await review_after(gate_id)
            while "结果审核" not in await review.inner_text():
                await review.locator(APPROVE).click()
                review, review_id = await review_after(review_id)
            await review.locator(APPROVE).click()
            await expect(run.locator(".root")).to_contain_text("已完成")
            ARTIFACTS.mkdir(exist_ok=True)
            await page.screenshot(path=str(ARTIFACTS / "feishu-story-zh.png"), full_page=True)
