"""The safety promise per Slack path, over signed HTTP: what the policy forbids stays forbidden on
every path (button, forged button, always-allow, thread reply), and nothing runs."""

from __future__ import annotations

import json
from pathlib import Path

from slack_sdk.web.async_client import AsyncWebClient

from blocks import ids
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, button_value, gate_of, policy_file, running, text_of

QUORUM = """
[approvers]
deploy = ["U0BOB", "U0CAROL"]
exec = ["U0BOB", "U0CAROL"]

[quorum]
deploy = 2
exec = 2
"""


async def pending(env: Env) -> tuple[str, int]:
    """(anchor, approvals so far) of the only run's pending review."""
    run_id = (await env.bot.deps.store.list_runs())[0].id
    state, _ = await env.bot.deps.store.load(run_id)
    assert state.pending is not None
    return state.pending.anchor, len(state.pending.approvals)


async def test_forged_answer_button_on_a_quorum_deploy_gate_counts_for_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, QUORUM)) as env:
        card, gate = await gate_of(env, "deploy checkout 2.4.1", approver="bob")
        review_id = button_value(gate, ids.APPROVE)
        # a message carrying an answer button that points at the gate (e.g. crafted by another app)
        forged = json.dumps({"review": review_id, "answer": True})
        button = {"type": "button", "action_id": ids.ANSWER, "text": {"type": "plain_text", "text": "Yes"}}
        client = AsyncWebClient(token=env.ws.bot_token, base_url=env.ws.api_url)
        posted = await client.chat_postMessage(
            channel=OPS, text="yes?", blocks=[{"type": "actions", "elements": [{**button, "value": forged}]}]
        )
        await env.ws.click("bob", OPS, str(posted["ts"]), ids.ANSWER, forged)
        await env.wait(lambda: any("not a question" in text_of(e) for e in env.ws.state.ephemerals_for("U0BOB")))  # type: ignore[arg-type]
        await env.idle()
        assert await pending(env) == ("before_risky_step", 0)
        # a real approval is still the first of two
        await env.click("bob", gate, ids.APPROVE)
        await env.wait(lambda: any("1 more approval needed" in text_of(m) for m in env.thread(card)))
        assert await pending(env) == ("before_risky_step", 1)


async def test_approve_always_under_a_quorum_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, QUORUM)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after", approver="bob")
        offered = [e.get("action_id") for b in gate.blocks for e in b.get("elements", []) if isinstance(e, dict)]
        assert ids.APPROVE in offered and ids.APPROVE_ALWAYS not in offered, "the policy offers no rule here"
        # the button is not shown, so a click on it is forged (e.g. a stale copy of the message)
        button = {"type": "button", "action_id": ids.APPROVE_ALWAYS, "text": {"type": "plain_text", "text": "Always"}}
        client = AsyncWebClient(token=env.ws.bot_token, base_url=env.ws.api_url)
        review_id = button_value(gate, ids.APPROVE)
        posted = await client.chat_postMessage(
            channel=OPS, text="always?", blocks=[{"type": "actions", "elements": [{**button, "value": review_id}]}]
        )
        await env.ws.click("bob", OPS, str(posted["ts"]), ids.APPROVE_ALWAYS, review_id)
        refusal = "needs 2 approvals here, so it cannot be always-allowed"
        await env.wait(lambda: any(refusal in text_of(e) for e in env.ws.state.ephemerals_for("U0BOB")))  # type: ignore[arg-type]
        await env.idle()
        assert await env.bot.deps.store.rules(OPS) == []
        assert await pending(env) == ("before_risky_step", 0), "the refused click counted no approval"


async def test_thread_reply_never_opens_a_deploy_gate(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, gate = await gate_of(env, "deploy checkout 2.4.1")
        await env.ws.reply_in_thread("alice", OPS, card.ts, "Looks good, proceed")
        refusal = "approved with its own Approve button"
        await env.wait(lambda: any(refusal in text_of(e) for e in env.ws.state.ephemerals_for("U0ALICE")))  # type: ignore[arg-type]
        await env.idle()
        assert not any("Read as" in text_of(m) for m in env.thread(card)), "nothing public after a refused reply"
        assert await pending(env) == ("before_risky_step", 0)
        # the gate's own button still works, and the step runs once
        await env.click("alice", gate, ids.APPROVE)
        await env.wait(lambda: "Deployed checkout" in "\n".join(text_of(m) for m in env.thread(card)))
