"""``/tandem report`` and the App Home summary, over signed HTTP, after a run steered in Slack."""

from __future__ import annotations

import json
from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, Env, misread_reply, policy_file, running, text_of


def last_ephemeral(env: Env, user: str) -> str:
    return text_of(env.ws.state.ephemerals_for(user)[-1])  # type: ignore[arg-type]


async def test_report_after_a_misread_reply_shows_the_correction_the_override_and_the_warning(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, "[report]\nmin_runs = 1\n")) as env:  # warn at once
        card, read_as, replanned = await misread_reply(env)
        # "Not what I meant": the reading was wrong; what was meant applies to what waits now
        await env.click("alice", read_as, ids.OVERRIDE)
        await env.wait(lambda: bool(env.ws.state.open_modals("U0ALICE")))  # opened once the run is checked
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        await env.ws.submit_view("alice", modal.id, {ids.INTENT_BLOCK: "replan", ids.FEEDBACK_BLOCK: "restart auth"})
        await env.next_review(card, after=replanned)

        await env.ws.slash_command("alice", OPS, "report")
        await env.wait(lambda: bool(env.ws.state.ephemerals_for("U0ALICE")))
        await env.wait(lambda: "Tandem report" in last_ephemeral(env, "U0ALICE"))
        shown = last_ephemeral(env, "U0ALICE")
        assert "*Runs:* 1 (previous period 0)" in shown
        assert "*Corrected runs:* 1 · 100% (up 100 points)" in shown
        assert "replan 2 · retry step 0 · refine output 0" in shown
        assert "*Replies misread:* 1 of 1 (100%)" in shown
        assert "initial planning needs work" in shown and "does not fit" not in shown

        await env.ws.slash_command("bob", "C0GENERAL", "report 30d")
        await env.wait(lambda: bool(env.ws.state.ephemerals_for("U0BOB")))
        await env.wait(lambda: "Tandem report" in last_ephemeral(env, "U0BOB"))
        assert "*Runs:* 0" in last_ephemeral(env, "U0BOB"), "a channel sees only its own runs"

        await env.ws.slash_command("bob", OPS, "report soon")
        await env.wait(lambda: "neither a period" in last_ephemeral(env, "U0BOB"))

        for person in ("U0ALICE", "U0BOB"):
            event = {"type": "app_home_opened", "user": person, "channel": "D0X", "tab": "home", "event_ts": "1.2"}
            assert (await env.ws.deliver(event)).status == 200
        await env.idle()
        homes = {p: json.dumps(env.ws.state.home_view(p).spec) for p in ("U0ALICE", "U0BOB")}  # type: ignore[union-attr]
        assert "Your last 7 days* \\u00b7 1 runs \\u00b7 100% corrected" in homes["U0ALICE"]
        assert "initial planning needs work" in homes["U0ALICE"]
        assert "No runs started" in homes["U0BOB"]
