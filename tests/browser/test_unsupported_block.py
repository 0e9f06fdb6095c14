"""Blocks and elements the page does not render natively show up as their JSON; the message still renders.

The Web API, like Slack, refuses block types Block Kit does not define, so the
API path uses real types the page leaves to JSON (``image``, a ``datepicker``);
a made-up type is put straight into the workspace, as a newer Block Kit might send.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Page, expect
from slack_sdk.web.async_client import AsyncWebClient

from tests.browser.conftest import browsing
from workspace import BOT_ID, BOT_USER_ID, Workspace, run_workspace

IMAGE = {"type": "image", "image_url": "https://example.com/errors.png", "alt_text": "error rate"}
PICKER = {"type": "datepicker", "action_id": "when"}
TEXT = {"type": "section", "text": {"type": "mrkdwn", "text": "*Error rate* for payments"}}
MADE_UP = {"type": "sparkline", "points": [3, 1, 4, 1, 5], "label": "<b>not html</b>"}


@pytest.fixture
async def workspace() -> AsyncIterator[Workspace]:
    async with run_workspace(ui=True) as ws:
        yield ws


@pytest.fixture
async def page(chromium: str, workspace: Workspace) -> AsyncIterator[Page]:
    async with browsing(chromium, workspace.base_url) as opened:
        yield opened


async def test_block_types_from_the_api_that_the_page_does_not_know_show_as_json(
    workspace: Workspace, page: Page
) -> None:
    api = AsyncWebClient(token=workspace.bot_token, base_url=workspace.api_url)
    actions = {"type": "actions", "elements": [PICKER, {"type": "button", "action_id": "ok", "text": _plain("OK")}]}

    await api.chat_postMessage(channel="C0OPS", text="chart", blocks=[TEXT, IMAGE, actions])

    message = page.get_by_test_id("message").last
    await expect(message.get_by_test_id("block-section")).to_contain_text("Error rate for payments")
    image = message.get_by_test_id("block-unsupported")
    await expect(image).to_have_attribute("data-type", "image")
    assert json.loads(await image.locator("pre").inner_text()) == IMAGE
    picker = message.get_by_test_id("element-unsupported")
    await expect(picker).to_have_attribute("data-type", "datepicker")
    assert json.loads(await picker.locator("pre").inner_text()) == PICKER
    await expect(message.get_by_role("button", name="OK")).to_be_visible()  # its neighbours still render


async def test_made_up_block_type_shows_as_json_text_never_markup(workspace: Workspace, page: Page) -> None:
    workspace.state.add_message("C0OPS", user=BOT_USER_ID, bot_id=BOT_ID, text="new", blocks=[TEXT, MADE_UP])

    unknown = page.get_by_test_id("block-unsupported")
    await expect(unknown).to_contain_text('Not rendered here: block "sparkline"')
    assert json.loads(await unknown.locator("pre").inner_text()) == MADE_UP
    assert await page.locator("b").count() == 0


def _plain(text: str) -> dict[str, str]:
    return {"type": "plain_text", "text": text}
