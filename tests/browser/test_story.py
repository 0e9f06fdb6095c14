"""The whole story, clicked and typed in a real browser against ``tandem dev``.

alice asks for a restart, requests changes to the plan in the modal, approves
the new plan; carol (an outsider) is refused at the risky step; bob approves it
and the rest; a correction typed in the thread reworks the result; the run
card ends Done. A screenshot of the final page goes to test-artifacts/story.png.
"""

from __future__ import annotations

import re
from pathlib import Path

from playwright.async_api import Locator, Page, expect

from bot.settings import SlackSettings
from tests.browser.conftest import APPROVE, ARTIFACTS, act_as, dev_in_browser, next_review

TASK = "restart payments and check errors after"


def approver_policy(tmp_path: Path) -> dict[str, str]:
    """A policy making bob the approver of exec steps (the requester may approve too), if the bot reads one.

    Authorization is configured through a policy TOML named by the ``config``
    setting. On a bot without that setting, everyone may approve and the
    outsider check below is left out; bob still approves the risky step.
    """
    if "config" not in SlackSettings.model_fields:
        return {}
    policy = tmp_path / "tandem.toml"
    # alice may approve the restart too, so her approval of the plan would approve it: this story walks its
    # own gate (carol refused there, bob approving), so the gate is kept apart from the plan's approval
    policy.write_text('allow_self_approval = true\n\n[approvers]\nexec = ["U0BOB"]\n\n[anchors]\nmerge_gate = false\n')
    return {"config": str(policy)}


async def request_changes(page: Page, review: Locator, feedback: str) -> None:
    await review.get_by_role("button", name="Request changes").click()
    modal = page.get_by_test_id("modal")
    await expect(modal.get_by_test_id("modal-title")).to_have_text("Request changes")
    await modal.get_by_test_id("radio-option").filter(has_text="The plan's direction").click()
    # Only spaces: the bot answers response_action=errors, and the page shows it under the input.
    await modal.get_by_test_id("text-input").fill("   ")
    await modal.get_by_test_id("modal-submit").click()
    await expect(modal.get_by_test_id("input-error")).to_contain_text("Say what should change")
    await modal.get_by_test_id("text-input").fill(feedback)
    await modal.get_by_test_id("modal-submit").click()
    await expect(modal).to_have_count(0)


async def test_story_in_the_browser_from_slash_command_to_done(chromium: str, tmp_path: Path) -> None:
    policy = approver_policy(tmp_path)
    async with dev_in_browser(chromium, tmp_path / "tandem.db", **policy) as (dev, page):
        await act_as(page, "alice")
        composer = page.get_by_test_id("composer-input")
        await composer.fill(f"/tandem {TASK}")
        await composer.press("Enter")

        card = page.get_by_test_id("message").filter(has_text=TASK)
        await card.get_by_test_id("open-thread").click()  # there once the plan review is posted
        thread = page.get_by_test_id("thread-panel")

        plan, plan_ts = await next_review(thread)
        await expect(plan).to_contain_text("Plan for review")
        await expect(plan).to_contain_text("service=payments")
        await request_changes(page, plan, "restart checkout instead of payments")

        replanned, replanned_ts = await next_review(thread, after=plan_ts)
        await expect(replanned).to_contain_text("service=checkout")
        await expect(plan).to_contain_text("Changes requested by @alice")
        await replanned.locator(APPROVE).click()

        gate, gate_ts = await next_review(thread, after=replanned_ts)
        await expect(gate).to_contain_text("Step 1 of 2 needs approval")
        await expect(gate).to_contain_text("restart_service")
        if policy:
            await expect(gate).to_contain_text("Waiting on @alice, @bob")  # who may approve, before anyone clicks
        if policy:
            # carol approves nothing: the bot refuses her in a message only she sees.
            await act_as(page, "carol")
            await gate.locator(APPROVE).click()
            refusal = page.get_by_test_id("ephemeral").filter(has_text=re.compile(r"Only .+ can approve|not allowed"))
            await expect(refusal).to_contain_text("Only visible to you")
            await expect(gate.locator(APPROVE)).to_have_count(1)  # still waiting
        # Without a policy (no `config` setting yet) anyone may approve: the outsider step is
        # left out, and bob, the approver, approves as he does with one.
        await act_as(page, "bob")
        await gate.locator(APPROVE).click()

        review, ts = await next_review(thread, after=gate_ts)
        while "Result ready for review" not in await review.inner_text():  # e.g. checking step 1's outcome
            await review.locator(APPROVE).click()
            review, ts = await next_review(thread, after=ts)
        await expect(review).to_contain_text("Done: restarted checkout")  # what ran, in words, not the task

        reply = page.get_by_test_id("thread-composer-input")
        await reply.fill("show it as a table")
        await reply.press("Enter")
        await expect(thread.locator('[data-testid="thread-message"][data-user="bob"]')).to_have_text(
            re.compile("show it as a table")
        )
        refined, _ = await next_review(thread, after=ts)
        await expect(thread).to_contain_text("Read as")
        table = refined.get_by_test_id("block-table")
        await expect(table.locator("th")).to_contain_text(["#", "Tool", "Parameters", "Outcome"])
        await expect(table).to_contain_text("restart_service")
        await expect(refined).not_to_contain_text("| Tool |")  # a table, not Markdown pipes
        ARTIFACTS.mkdir(exist_ok=True)
        await refined.screenshot(path=str(ARTIFACTS / "table.png"))
        await refined.locator(APPROVE).click()

        await expect(card).to_contain_text("Done")
        await expect(thread.locator(APPROVE)).to_have_count(0)
        await expect(thread).to_contain_text("Result approved by @bob")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "story.png"))
        runs = await dev.bot.deps.store.list_runs()
        assert [r.status for r in runs] == ["done"]
