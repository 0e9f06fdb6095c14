"""A modal is shown in the browser session it was opened from: reloading that tab keeps it, a new browser
session (another person's laptop, a fresh window) does not see it."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import expect

from tests.browser.conftest import act_as, browsing, dev_in_browser, next_review

TASK = "restart payments and check errors after"


async def test_modal_open_in_one_session_new_session_does_not_see_it(chromium: str, tmp_path: Path) -> None:
    async with dev_in_browser(chromium, tmp_path / "tandem.db") as (dev, page):
        await act_as(page, "alice")
        composer = page.get_by_test_id("composer-input")
        await composer.fill(f"/tandem {TASK}")
        await composer.press("Enter")
        await page.get_by_test_id("message").filter(has_text=TASK).get_by_test_id("open-thread").click()
        review, _ = await next_review(page.get_by_test_id("thread-panel"))
        await review.get_by_role("button", name="Request changes").click()
        title = page.get_by_test_id("modal").get_by_test_id("modal-title")
        await expect(title).to_have_text("Request changes")

        await page.reload()
        await expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "live")
        await expect(title).to_have_text("Request changes")  # the same tab: still open

        async with browsing(chromium, dev.url) as fresh:
            await act_as(fresh, "alice")
            await expect(fresh.get_by_test_id("message").filter(has_text=TASK)).to_have_count(1)
            await expect(fresh.get_by_test_id("modal")).to_have_count(0)
