"""The restart gate in a real browser: the logs read before it are on the message before anyone approves,
and Show details opens them whole. A screenshot of the gate goes to test-artifacts/evidence.png."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import expect

from tests.browser.conftest import APPROVE, ARTIFACTS, act_as, dev_in_browser

TASK = "read the payments logs, then restart payments"
# alice may approve the restart, so her approval of the plan would approve it too: the gate is kept apart
GATE_APART = "[anchors]\nmerge_gate = false\n"


async def test_gate_in_the_browser_shows_the_logs_and_details_before_approval(chromium: str, tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text(GATE_APART)
    async with dev_in_browser(chromium, tmp_path / "tandem.db", config=str(policy)) as (dev, page):
        await act_as(page, "alice")
        composer = page.get_by_test_id("composer-input")
        await composer.fill(f"/tandem {TASK}")
        await composer.press("Enter")
        card = page.get_by_test_id("message").filter(has_text=TASK)
        await card.get_by_test_id("open-thread").click()
        thread = page.get_by_test_id("thread-panel")

        plan = thread.get_by_test_id("thread-message").filter(has_text="Plan for review")
        await plan.locator(APPROVE).click()
        gate = thread.get_by_test_id("thread-message").filter(has_text="needs approval").last
        await expect(gate).to_contain_text("Since the last review")
        await expect(gate).to_contain_text("read_logs")
        await expect(gate).to_contain_text("service=payments")
        await expect(gate).to_contain_text("ERROR")  # the log lines, at the gate, before the restart runs
        await expect(gate).to_contain_text("more lines · Show details")
        await expect(gate.locator(APPROVE)).to_have_count(1)
        ARTIFACTS.mkdir(exist_ok=True)
        await gate.screenshot(path=str(ARTIFACTS / "evidence.png"))

        runs = await dev.bot.deps.store.list_runs()
        state, _ = await dev.bot.deps.store.load(runs[0].id)
        last_line = str(state.step(1).result).splitlines()[-1]
        await expect(gate).not_to_contain_text(last_line)
        await gate.get_by_role("button", name="Show details").click()
        modal = page.get_by_test_id("modal")
        await expect(modal.get_by_test_id("modal-title")).to_have_text("Step details")
        await expect(modal).to_contain_text(last_line)
        await page.screenshot(path=str(ARTIFACTS / "evidence-details.png"))
