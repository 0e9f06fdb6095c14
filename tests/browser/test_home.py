"""App Home in the browser: switching person shows the new person's Home, as Slack would."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import expect

from tests.browser.conftest import act_as, dev_in_browser


async def test_switching_person_on_app_home_shows_their_published_home(chromium: str, tmp_path: Path) -> None:
    async with dev_in_browser(chromium, tmp_path / "tandem.db") as (dev, page):
        await act_as(page, "alice")
        await dev.ws.slash_command("alice", "C0OPS", "restart payments and check errors after")
        await page.get_by_test_id("app-home").click()
        home = page.get_by_test_id("home-tab")
        await expect(home).to_contain_text("restart payments")
        await act_as(page, "bob")
        await expect(home).not_to_contain_text("has not published")
        await expect(home.get_by_test_id("block-header").first).to_be_visible()


async def test_list_links_open_the_runs_thread(chromium: str, tmp_path: Path) -> None:
    async with dev_in_browser(chromium, tmp_path / "tandem.db") as (dev, page):
        await act_as(page, "alice")
        await dev.ws.slash_command("alice", "C0OPS", "restart payments and check errors after")
        await expect(page.get_by_test_id("message").first).to_contain_text("restart payments")
        composer = page.get_by_test_id("composer-input")
        await composer.fill("/tandem list")
        await composer.press("Enter")
        link = page.get_by_role("link", name="restart payments and check errors after").first
        await expect(link).to_be_visible()
        await link.click()
        await expect(page.get_by_test_id("thread-message").first).to_be_visible()
        await expect(page).to_have_url(re.compile(r"#/C0OPS/\d+\.\d+$"))
