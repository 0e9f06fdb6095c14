"""The report post in a real browser against ``tandem dev``: the figures (a ``data_table``), then the chart image.

Runs are corrected through the real runtime, ``tandem report --post``'s path writes the post,
the bot uploads the chart to the local workspace, and the page shows it in #ops. A screenshot
of the post with its chart goes to test-artifacts/weekly-report.png.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from playwright.async_api import expect

from agent.models import Correct
from agent.weekly import PERIOD, post_now
from tests.browser.conftest import ARTIFACTS, act_as, dev_in_browser


async def test_report_post_shows_its_chart_in_the_channel(chromium: str, tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text('[report]\nchannel = "C0OPS"\nweekday = "monday"\nhour = 9\ntimezone = "Europe/Berlin"\n')
    async with dev_in_browser(chromium, tmp_path / "tandem.db", config=str(policy)) as (dev, page):
        await act_as(page, "alice")
        runtime = dev.bot.deps.runtime
        for replans in (1, 2):  # two runs corrected today, from the terminal (nothing else in the channel)
            state = await runtime.start("restart payments and check errors after", "U0ALICE")
            for _ in range(replans):
                state = await runtime.decide(state.id, Correct(intent="replan", feedback="use 4 replicas"), "U0ALICE")
        now = time.time()
        await post_now(dev.bot.deps.store, runtime.config.report, now - PERIOD, now, "browser")
        dev.bot.deps.delivery.wake()

        report = page.get_by_test_id("message").filter(has_text="Tandem report")
        table = report.get_by_test_id("block-data-table")  # the figures in a data_table, drawn as Slack would
        await expect(table.locator("caption")).to_contain_text("Tandem figures")
        await expect(table.locator("th")).to_have_text(["Figure", "This period", "Previous period", "Change"])
        replans = table.locator("tr").filter(has_text="Corrections: replan")
        await expect(replans.locator("td")).to_have_text(["Corrections: replan", "3", "0", "up 3"])
        await table.locator("th").nth(1).click()  # sorted by this period's figure, highest last
        await expect(table.locator("tbody tr").last).to_contain_text("Corrections: replan")
        chart = page.get_by_test_id("message").filter(has=page.get_by_test_id("file"))
        image = chart.locator("img")
        await expect(image).to_be_visible()
        composer = page.get_by_test_id("composer-input")  # a new message redraws the channel
        await composer.fill("looking at the report")
        await composer.press("Enter")
        await expect(page.get_by_test_id("message").filter(has_text="looking at the report")).to_be_visible()
        await expect(table.locator("th").nth(1)).to_have_text("This period ▲")  # the sort stays, as in Slack
        await expect(table.locator("tbody tr").last).to_contain_text("Corrections: replan")
        await expect(image).to_have_attribute(
            "alt", re.compile(r"^Corrections and takeovers per day, .*: 3 corrections")
        )
        width = await image.evaluate("img => img.decode().then(() => img.naturalWidth)")
        assert width == 800  # the PNG itself arrived and decoded, not a broken-image icon
        await chart.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "weekly-report.png"))
