"""*Not what I meant* over signed HTTP: only whoever may steer the run is heard, and only they are counted."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.harness import OPS, Env, misread_reply, running, text_of


def _told(env: Env, user: str) -> list[str]:
    return [text_of(m) for m in env.ws.state.ephemerals_for(user)]  # type: ignore[arg-type]


async def test_not_what_i_meant_from_an_outsider_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, read_as, replanned = await misread_reply(env)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        before = await env.bot.deps.store.events(run_id)

        # Bob may not steer Alice's run (no approvers configured: the requester decides), yet sends the form
        await env.click("bob", read_as, ids.OVERRIDE)
        await env.wait(lambda: bool(env.ws.state.open_modals("U0BOB")))
        modal = env.ws.state.open_modals("U0BOB")[-1]
        await env.ws.submit_view("bob", modal.id, {ids.INTENT_BLOCK: "replan", ids.FEEDBACK_BLOCK: "restart auth"})
        refusal = "Only <@U0ALICE> can steer or stop this run. Nothing changed."
        await env.wait(lambda: any(refusal in t for t in _told(env, "U0BOB")))

        await env.idle()
        after = await env.bot.deps.store.events(run_id)
        assert after[: len(before)] == before
        assert [(e.kind, e.actor) for e in after[len(before) :]] == [("refused", "U0BOB")], "only the refusal is kept"
        assert env.open_review(card) is not None and env.open_review(card).ts == replanned.ts  # type: ignore[union-attr]
        await env.ws.slash_command("alice", OPS, "report")
        await env.wait(lambda: any("Tandem report" in t for t in _told(env, "U0ALICE")))
        assert "*Replies misread:* 0 of 1 (0%)" in _told(env, "U0ALICE")[-1]
