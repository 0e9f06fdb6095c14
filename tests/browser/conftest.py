"""Headless Chromium (Debian's, never a downloaded build) driven by Playwright against ``tandem dev``."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Locator, Page, async_playwright, expect

from cli.dev import Dev, developing

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = 15_000


def _install_chromium() -> str | None:
    """Install Debian's chromium when it is missing; why it could not be had, or None."""
    if CHROMIUM.exists():
        return None
    if not shutil.which("apt-get") or os.geteuid() != 0:
        return f"{CHROMIUM} is absent and apt-get cannot install it here (not root, or no apt-get)"
    install = ["apt-get", "install", "-y", "-q", "chromium"]
    subprocess.run(install, capture_output=True, timeout=900, check=False)
    if not CHROMIUM.exists():  # the package lists may be missing or stale
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, timeout=900, check=False)
        subprocess.run(install, capture_output=True, timeout=900, check=False)
    if CHROMIUM.exists():
        return None
    return f"{CHROMIUM} is absent and `apt-get install chromium` did not provide it"


@pytest.fixture(scope="session")
def chromium() -> str:
    reason = _install_chromium()
    if reason is not None:
        pytest.skip(reason)
    return str(CHROMIUM)


@asynccontextmanager
async def browsing(executable: str, url: str) -> AsyncIterator[Page]:
    """A fresh page on ``url``; JavaScript errors on the page fail the test."""
    expect.set_options(timeout=TIMEOUT_MS)
    errors: list[str] = []
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1440, "height": 900})
            page = await context.new_page()
            page.set_default_timeout(TIMEOUT_MS)
            page.on("pageerror", lambda error: errors.append(str(error)))
            await page.goto(url)
            await expect(page.get_by_test_id("connection-status")).to_have_attribute("data-state", "live")
            await expect(page.locator("body")).to_have_attribute("data-me", re.compile(r"^U"))
            yield page
        finally:
            await browser.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


@asynccontextmanager
async def dev_in_browser(executable: str, db: Path, **settings: Any) -> AsyncIterator[tuple[Dev, Page]]:
    """``tandem dev`` in-process on a free port, and a page open on it."""
    async with developing(port=0, db=db, card_update_interval=0.05, **settings) as dev:
        async with browsing(executable, dev.url) as page:
            yield dev, page


async def act_as(page: Page, name: str) -> None:
    """Pick a person in the switcher and wait until the page shows what they see."""
    user_id = {"alice": "U0ALICE", "bob": "U0BOB", "carol": "U0CAROL"}[name]
    await page.get_by_test_id("user-switcher").select_option(user_id)
    await expect(page.locator("body")).to_have_attribute("data-me", user_id)


APPROVE = '[data-action-id="tandem.approve"]'
"""A Slack review's Approve button, as the dev page renders it."""


def open_review(thread: Locator) -> Locator:
    """The newest message in the thread that still has an Approve button."""
    return thread.get_by_test_id("thread-message").filter(has=thread.page.locator(APPROVE)).last


async def next_review(thread: Locator, after: str | None = None) -> tuple[Locator, str]:
    """Wait for a review newer than ``after`` (a ts); return it pinned by its ts."""
    review = open_review(thread)
    if after is not None:
        await expect(review).not_to_have_attribute("data-ts", after)
    ts = await review.get_attribute("data-ts")
    assert ts is not None
    return thread.locator(f'[data-testid="thread-message"][data-ts="{ts}"]'), ts
