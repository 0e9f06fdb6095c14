"""What the page makes of Slack's formats: mrkdwn, ephemerals, confirm dialogs, App Home, the command menu."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page, expect
from slack_sdk.web.async_client import AsyncWebClient

from blocks.result_feedback import result_feedback
from tests.browser.conftest import act_as, browsing
from workspace import Workspace, run_workspace

MRKDWN = (
    "*bold* _italic_ ~gone~ `a<b` and <https://example.com/runs?a=1&amp;b=2|the runs> for <@U0ALICE>\n"
    "at <!date^1732900000^{time}|17:06 UTC> &lt;img src=x onerror=alert(1)&gt; &amp; more\n"
    "• first\n• second\n"
    "```line one\n  <script>alert(1)</script>```"
)


def section(text: str) -> dict[str, Any]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


@pytest.fixture
async def workspace() -> AsyncIterator[Workspace]:
    async with run_workspace(ui=True) as ws:
        yield ws


@pytest.fixture
def api(workspace: Workspace) -> AsyncWebClient:
    return AsyncWebClient(token=workspace.bot_token, base_url=workspace.api_url)


@pytest.fixture
async def page(chromium: str, workspace: Workspace) -> AsyncIterator[Page]:
    async with browsing(chromium, workspace.base_url) as opened:
        yield opened


async def test_mrkdwn_renders_formatting_links_mentions_dates_lists_and_code(api: AsyncWebClient, page: Page) -> None:
    await api.chat_postMessage(channel="C0OPS", text="formats", blocks=[section(MRKDWN)])

    body = page.get_by_test_id("message").last.locator(".mrkdwn")
    await expect(body.locator("strong")).to_have_text("bold")
    await expect(body.locator("em")).to_have_text("italic")
    await expect(body.locator("s")).to_have_text("gone")
    await expect(body.locator("code")).to_have_text("a<b")
    link = body.get_by_role("link", name="the runs")
    await expect(link).to_have_attribute("href", "https://example.com/runs?a=1&b=2")
    await expect(body.locator(".mk-mention")).to_have_text("@alice")
    await expect(body.locator("time")).to_have_text("17:06 UTC")
    await expect(body).to_contain_text("<img src=x onerror=alert(1)> & more")
    await expect(body.locator(".mk-li")).to_have_text(["•first", "•second"])
    await expect(body.locator("pre")).to_have_text("line one\n  <script>alert(1)</script>")
    assert await page.locator("img, script:not([src])").count() == 0


async def test_ephemeral_only_for_its_person_and_dismissable(
    workspace: Workspace, api: AsyncWebClient, page: Page
) -> None:
    await api.chat_postEphemeral(channel="C0OPS", user="U0ALICE", text="psst", blocks=[section("Only *you*")])
    ephemeral = page.get_by_test_id("ephemeral")
    await expect(ephemeral).to_contain_text("Only visible to you")

    await act_as(page, "bob")
    await expect(ephemeral).to_have_count(0)
    await act_as(page, "alice")
    await ephemeral.get_by_test_id("dismiss").click()
    await expect(ephemeral).to_have_count(0)
    assert workspace.state.ephemerals == []


async def test_confirm_dialog_guards_a_button(api: AsyncWebClient, page: Page) -> None:
    confirm = {
        "title": {"type": "plain_text", "text": "Cancel this run?"},
        "text": {"type": "mrkdwn", "text": "Steps that ran are *not* undone."},
        "confirm": {"type": "plain_text", "text": "Cancel run"},
        "deny": {"type": "plain_text", "text": "Keep going"},
        "style": "danger",
    }
    button = {"type": "button", "action_id": "stop", "text": {"type": "plain_text", "text": "Cancel run"}}
    actions = {"type": "actions", "elements": [{**button, "style": "danger", "confirm": confirm}]}
    await api.chat_postMessage(channel="C0OPS", text="run", blocks=[section("A run"), actions])

    await page.get_by_test_id("message").get_by_role("button", name="Cancel run").click()
    dialog = page.get_by_test_id("confirm-dialog")
    await expect(dialog).to_contain_text("Cancel this run?")
    await expect(dialog.locator("strong")).to_have_text("not")
    await dialog.get_by_test_id("confirm-deny").click()
    await expect(dialog).to_have_count(0)


async def test_app_home_shows_the_published_view(api: AsyncWebClient, page: Page) -> None:
    await page.get_by_test_id("app-home").click()
    await expect(page.get_by_test_id("home-tab")).to_contain_text("has not published a Home tab")

    view = {"type": "home", "blocks": [{"type": "header", "text": {"type": "plain_text", "text": "Your runs"}}]}
    await api.views_publish(user_id="U0ALICE", view=view)

    await expect(page.get_by_test_id("home-tab").get_by_test_id("block-header")).to_have_text("Your runs")


async def test_slash_opens_the_command_menu(page: Page) -> None:
    composer = page.get_by_test_id("composer-input")
    await composer.fill("/")
    options = page.get_by_test_id("command-option")
    await expect(options).to_have_count(8)
    await expect(options.filter(has_text="/tandem rules")).to_have_count(1)
    await expect(options.filter(has_text="/tandem lessons")).to_have_count(1)

    await options.filter(has_text="/tandem status").click()

    await expect(composer).to_have_value("/tandem status ")


async def test_markdown_and_table_blocks_render_natively_and_safely(api: AsyncWebClient, page: Page) -> None:
    markdown = "# Result\n**Done:** restarted `checkout` &lt;script&gt;alert(1)&lt;/script&gt; [runs](https://x.test/r)"
    table = {
        "type": "table",
        "rows": [
            [{"type": "raw_text", "text": "#"}, {"type": "raw_text", "text": "Outcome"}],
            [{"type": "raw_text", "text": "1"}, {"type": "raw_text", "text": "<b>p99 812ms → 140ms</b>"}],
        ],
    }
    await api.chat_postMessage(channel="C0OPS", text="result", blocks=[{"type": "markdown", "text": markdown}, table])

    message = page.get_by_test_id("message").last
    md = message.get_by_test_id("block-markdown")
    await expect(md.locator(".md-h1")).to_have_text("Result")
    await expect(md.locator("strong")).to_have_text("Done:")
    await expect(md.locator("code")).to_have_text("checkout")
    await expect(md).to_contain_text("<script>alert(1)</script>")
    await expect(md.get_by_role("link", name="runs")).to_have_attribute("href", "https://x.test/r")
    grid = message.get_by_test_id("block-table")
    await expect(grid.locator("th")).to_have_text(["#", "Outcome"])
    await expect(grid.locator("td")).to_have_text(["1", "<b>p99 812ms → 140ms</b>"])
    assert await message.get_by_test_id("block-unsupported").count() == 0
    assert await page.locator("script:not([src]), b").count() == 0


async def test_feedback_buttons_render_as_two_buttons(api: AsyncWebClient, page: Page) -> None:
    await api.chat_postMessage(channel="C0OPS", text="done", blocks=[result_feedback("run1")])
    message = page.get_by_test_id("message").last
    await expect(message.get_by_test_id("feedback-positive")).to_have_text("👍")
    await expect(message.get_by_test_id("feedback-negative")).to_have_text("👎")
    assert await message.get_by_test_id("element-unsupported").count() == 0


def figures_table(n: int) -> dict[str, Any]:
    cells = [
        [{"type": "raw_text", "text": name}, {"type": "raw_number", "value": v, "text": str(v)}]
        for name, v in (("alpha", 2 + n), ("beta", 1))
    ]
    header = [{"type": "raw_text", "text": "Figure"}, {"type": "raw_text", "text": f"Value {n}"}]
    return {"type": "data_table", "caption": f"Table {n}", "rows": [header, *cells]}


async def test_data_table_sort_kept_across_redraws_for_the_last_50_tables_sorted(
    api: AsyncWebClient, page: Page
) -> None:
    """A person's sort survives the channel being drawn again (as in Slack); the page keeps only the last 50
    tables someone sorted, so one left open for weeks does not grow: the 51st sort forgets the first."""
    for n in range(51):
        await api.chat_postMessage(channel="C0OPS", text=f"table {n}", blocks=[figures_table(n)])
    tables = page.get_by_test_id("block-data-table")
    await expect(tables).to_have_count(51)
    for n in range(51):
        value = tables.nth(n).locator("th").nth(1)
        await value.click()  # ascending by value: beta (1) first
        await expect(value).to_have_text(f"Value {n} ▲")

    await api.chat_postMessage(channel="C0OPS", text="redraw")  # the channel is drawn afresh
    await expect(page.get_by_test_id("message").filter(has_text="redraw")).to_be_visible()
    await expect(tables.nth(0).locator("th").nth(1)).to_have_text("Value 0")  # the oldest sort, forgotten
    await expect(tables.nth(0).locator("tbody tr").first).to_contain_text("alpha")
    for n in (1, 50):
        await expect(tables.nth(n).locator("th").nth(1)).to_have_text(f"Value {n} ▲")
        await expect(tables.nth(n).locator("tbody tr").first).to_contain_text("beta")
