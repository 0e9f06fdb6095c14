"""The README's story in two answers, in a real browser against ``tandem dev`` with its demo policy.

alice asks for the restart; the plan review says that bob's approval of the plan approves the
restart too; bob approves the plan, the restart and the check after it run with no gate and no
outcome check, and bob approves the result. Two answers, where Tandem first asked four. A
screenshot of the thread goes to test-artifacts/shorter-flow.png.
"""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import expect

from cli.dev import DEMO_POLICY
from tests.browser.conftest import APPROVE, ARTIFACTS, act_as, dev_in_browser, next_review

TASK = "restart payments and check errors after"


async def test_story_with_the_demo_policy_takes_two_answers_when_bob_approves_the_plan(
    chromium: str, tmp_path: Path
) -> None:
    async with dev_in_browser(chromium, tmp_path / "tandem.db", config=DEMO_POLICY) as (dev, page):
        await act_as(page, "alice")
        composer = page.get_by_test_id("composer-input")
        await composer.fill(f"/tandem {TASK}")
        await composer.press("Enter")
        card = page.get_by_test_id("message").filter(has_text=TASK)
        await card.get_by_test_id("open-thread").click()
        thread = page.get_by_test_id("thread-panel")

        plan, plan_ts = await next_review(thread)
        await expect(plan).to_contain_text("Plan for review")
        # what approving the plan does, said before anyone clicks: bob's approval covers the exact restart
        await expect(plan).to_contain_text(
            "Approved by @bob (who may approve exec steps), this plan also approves step 1"
        )
        await expect(plan.locator("code", has_text="service=payments")).not_to_have_count(0)
        await expect(plan).to_contain_text("still asks @bob right before it runs")

        await act_as(page, "bob")
        await plan.locator(APPROVE).click()  # answer 1

        result, _ = await next_review(thread, after=plan_ts)
        await expect(result).to_contain_text("Result ready for review")
        await expect(thread).to_contain_text("restart_service")
        await expect(thread).to_contain_text("with the plan: it runs without asking again")
        await expect(thread).not_to_contain_text("needs approval")  # no gate was asked
        await result.locator(APPROVE).click()  # answer 2

        await expect(thread.locator(APPROVE)).to_have_count(0)
        await expect(thread).to_contain_text("Result approved by @bob")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTIFACTS / "shorter-flow.png"))

        (run,) = await dev.bot.deps.store.list_runs()
        state, _ = await dev.bot.deps.store.load(run.id)
        assert state.status == "done"
        restart = next(s for s in state.plan if s.tool == "restart_service")
        assert restart.status == "done" and restart.approved_by == "U0BOB"
        asked = [e.payload["anchor"] for e in await dev.bot.deps.store.events(run.id) if e.kind == "ask_human"]
        assert asked == ["after_plan", "before_result"]
