"""The web inbox in Chromium, inside ``tandem dev``: sign in, the list in order, approve, a live update."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
from playwright.async_api import Page, async_playwright, expect

from agent.tokens import mint
from blocks import ids
from cli.dev import Dev, developing
from tests.browser.conftest import CHROMIUM_ARGS, TIMEOUT_MS, act_as, dev_in_browser
from tests.scenario.harness import button_value, buttons_of, text_of
from workspace.models import Message

ASK = {"input_type": "confirm", "channel": "C0OPS", "assignees": ["U0ALICE"]}


@asynccontextmanager
async def inbox_in_browser(executable: str, db: Path) -> AsyncIterator[tuple[Dev, Page, aiohttp.ClientSession]]:
    """``tandem dev``, an API session that asks handoffs, and a page on the inbox (signed out)."""
    expect.set_options(timeout=TIMEOUT_MS)
    errors: list[str] = []
    async with developing(port=0, db=db, card_update_interval=0.05) as dev:
        made = mint("ci", ["handoffs:write", "handoffs:read"], "ops", dev.bot.deps.clock())
        assert await dev.bot.deps.store.create_token(made.stored)
        headers = {"Authorization": f"Bearer {made.token}"}
        async with aiohttp.ClientSession(base_url=dev.bot.url, headers=headers) as http, async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
            try:
                page = await (await browser.new_context(viewport={"width": 1280, "height": 900})).new_page()
                page.set_default_timeout(TIMEOUT_MS)
                page.on("pageerror", lambda error: errors.append(str(error)))
                await page.goto(f"{dev.bot.url}/inbox/")
                yield dev, page, http
            finally:
                await browser.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


async def _ask(http: aiohttp.ClientSession, prompt: str, **terms: object) -> None:
    async with http.post("/api/v1/handoffs", json={**ASK, "prompt": prompt, **terms}) as created:
        assert created.status == 201, await created.text()


async def test_inbox_sign_in_sorted_list_approve_and_a_live_update(chromium: str, tmp_path: Path) -> None:
    async with inbox_in_browser(chromium, tmp_path / "tandem.db") as (dev, page, http):
        await _ask(http, "Later, but urgent?", timeout=7200, priority="urgent")
        await _ask(http, "Soon?", timeout=600)
        await dev.ws.slash_command("alice", "C0OPS", "restart payments and check errors after")
        # signed out: the sign-in page, with the person switcher of tandem dev
        await expect(page.get_by_test_id("signin-person")).to_be_visible()
        await page.get_by_test_id("signin-person").select_option("U0ALICE")
        await page.get_by_test_id("signin-submit").click()
        await expect(page.locator("body")).to_have_attribute("data-me", "U0ALICE")
        await expect(page.locator("body")).to_have_attribute("data-live", "live")
        items = page.get_by_test_id("inbox-item")
        await expect(items).to_have_count(3)
        # soonest deadline first; the plan review has the policy's deadline (or none), after both
        await expect(items.nth(0)).to_contain_text("Soon?")
        await expect(items.nth(1)).to_contain_text("Later, but urgent?")
        plan = items.filter(has_text="restart payments")
        await expect(plan).to_contain_text("Plan review")
        await expect(plan.get_by_test_id("inbox-plan-line")).to_contain_text("restart_service(service=payments")
        await plan.get_by_test_id("inbox-approve").click()
        await expect(page.get_by_test_id("inbox-outcome")).to_have_text("Approved. The run goes on.")
        await expect(page.get_by_test_id("inbox-item").filter(has_text="Plan review")).to_have_count(0)
        # asked elsewhere while the page is open: it arrives without a reload
        await _ask(http, "Arrived live?", timeout=60, priority="high")
        await expect(items.first).to_contain_text("Arrived live?")


async def test_inbox_link_on_the_workspace_page_signs_in_as_the_person_it_shows(chromium: str, tmp_path: Path) -> None:
    async with dev_in_browser(chromium, tmp_path / "tandem.db") as (dev, page):
        await act_as(page, "bob")
        await page.get_by_test_id("inbox-link").click()
        await expect(page.locator("body")).to_have_attribute("data-me", "U0BOB")
        await expect(page.get_by_test_id("inbox-switcher")).to_have_value("U0BOB")
        await expect(page.get_by_test_id("inbox-empty")).to_be_visible()


def _question(dev: Dev, prompt: str) -> Message | None:
    """The handoff's question with its Yes button, in its thread of #ops."""
    for card in dev.ws.state.history("C0OPS"):
        for message in dev.ws.state.thread("C0OPS", card.ts):
            if prompt in text_of(message) and any(b.get("action_id") == ids.ANSWER for b in buttons_of(message)):
                return message
    return None


async def test_inbox_item_open_while_it_is_answered_in_slack_says_who_answered(chromium: str, tmp_path: Path) -> None:
    async with inbox_in_browser(chromium, tmp_path / "tandem.db") as (dev, page, http):
        await _ask(http, "Page the database team?")
        await page.get_by_test_id("signin-person").select_option("U0ALICE")
        await page.get_by_test_id("signin-submit").click()
        await page.get_by_test_id("inbox-item-link").filter(has_text="Page the database team?").click()
        await expect(page.get_by_test_id("inbox-question")).to_contain_text("Page the database team?")
        await expect(page.locator("body")).to_have_attribute("data-live", "live")
        await dev.ws.wait_until(lambda _: _question(dev, "Page the database team?") is not None, within=10)
        question = _question(dev, "Page the database team?")
        assert question is not None
        await dev.ws.click("alice", "C0OPS", question.ts, ids.ANSWER, button_value(question, ids.ANSWER))
        await expect(page.get_by_test_id("inbox-decided")).to_contain_text("Already decided by U0ALICE")
        await expect(page.get_by_test_id("inbox-approve")).to_have_count(0)
