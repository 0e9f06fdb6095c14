"""Adaptive confirmation per path, over the real bot on signed HTTP: a gate approved unchanged N times in
a row offers "always allow" with that history (button, terminal); a rule whose step is later corrected
(thread reply) or rejected (button) is suspended and the thread told; deploys never get the offer."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.models import Rule
from blocks import ids
from tests.cli.run import tandem_in
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, button_value, gate_of, policy_file, running, text_of
from workspace.models import Message

TASK = "restart payments and check errors after"
SHAPE = "restart_service(service=payments)"
OFFER = f"approved `{SHAPE}` unchanged 2 times in a row here"
TWO = "[rules]\noffer_after = 2\n"


async def approved_gate(env: Env, task: str = TASK) -> Message:
    """Start ``task``, approve its first gate with the plain Approve button; returns the gate."""
    card, gate = await gate_of(env, task)
    await env.click("alice", gate, ids.APPROVE)
    await env.next_review(card, after=gate)
    return gate


def offered(gate: Message) -> list[str]:
    return [str(e.get("action_id")) for b in gate.blocks for e in b.get("elements", []) if isinstance(e, dict)]


async def test_gate_after_two_unchanged_approvals_offers_always_allow_and_the_button_makes_the_rule(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, TWO + THREE_ANCHORS)) as env:
        first = await approved_gate(env)
        assert OFFER not in text_of(first) and "unchanged" not in text_of(first)
        second = await approved_gate(env)
        assert "unchanged" not in text_of(second), "one approval is not two in a row"
        _, checkout = await gate_of(env, "restart checkout")
        assert "unchanged" not in text_of(checkout), "approvals for payments count towards payments only"
        await env.click("alice", checkout, ids.CANCEL)
        card, third = await gate_of(env, TASK)
        assert OFFER in text_of(third), text_of(third)
        assert "stops asking for `restart_service` for payments in this channel" in text_of(third)
        assert ids.APPROVE_ALWAYS in offered(third)
        await env.click("alice", third, ids.APPROVE_ALWAYS)
        await env.wait(lambda: any("runs without asking" in text_of(m) for m in env.thread(card)))
        (rule,) = await env.bot.deps.store.rules(OPS)
        assert (rule.tool, rule.created_by, rule.target) == ("restart_service", "U0ALICE", {"service": "payments"})


async def test_a_correction_at_the_gate_breaks_the_run_of_approvals(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, TWO + THREE_ANCHORS)) as env:
        await approved_gate(env)
        card, gate = await gate_of(env, TASK)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "step 2 should restart checkout instead")
        await env.wait(lambda: (n := env.open_review(card)) is not None and n.ts > gate.ts)
        await approved_gate(env)
        _, last = await gate_of(env, TASK)
        assert "unchanged" not in text_of(last), "the correction in between broke the run of approvals"


async def test_deploy_gate_approved_unchanged_never_offers_always_allow(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, TWO + THREE_ANCHORS)) as env:
        for _ in range(2):
            await approved_gate(env, "deploy checkout 2.4.1")
        _, gate = await gate_of(env, "deploy checkout 2.4.1")
        assert "unchanged" not in text_of(gate) and ids.APPROVE_ALWAYS not in offered(gate)
        events = await env.bot.deps.store.events((await env.bot.deps.store.list_runs())[-1].id)
        assert any(e.kind == "decided" and "gate" in e.payload for e in events), "the history is there"


async def ruled(env: Env) -> tuple[Message, Message, Rule]:
    """A run whose restart a standing rule let run, at the review of that step's outcome."""
    rule = Rule(id="rule0001", channel=OPS, tool="restart_service", created_by="U0BOB", created_at=0.0)
    await env.bot.deps.store.add_rule(rule)
    card = await env.start(TASK)
    review = await env.next_review(card)
    while "Restarted" not in text_of(review):
        assert "needs approval" not in text_of(review), "the rule should have answered the gate"
        await env.click("alice", review, ids.APPROVE)
        review = await env.next_review(card, after=review)
    return card, review, rule


async def test_thread_reply_correcting_a_step_a_rule_let_run_suspends_the_rule_and_tells_the_thread(
    tmp_path: Path,
) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, review, _ = await ruled(env)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "redo step 1, the restart should have used the canary")
        await env.wait(lambda: any("is suspended" in text_of(m) for m in env.thread(card)))
        told = next(text_of(m) for m in env.thread(card) if "is suspended" in text_of(m))
        assert "<@U0ALICE> corrected step 1" in told and "`restart_service`" in told
        assert await env.bot.deps.store.rules(OPS) == []
        # the next run asks again
        _, gate = await gate_of(env, "restart checkout")
        assert "needs approval" in text_of(gate)


async def test_cancel_button_rejecting_a_step_a_rule_let_run_suspends_the_rule(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, review, rule = await ruled(env)
        await env.click("alice", review, ids.CANCEL)
        await env.wait(lambda: any("is suspended" in text_of(m) for m in env.thread(card)))
        told = next(text_of(m) for m in env.thread(card) if "is suspended" in text_of(m))
        assert "<@U0ALICE> rejected step 1" in told
        assert await env.bot.deps.store.rules(OPS) == []
        run_id = (await env.bot.deps.store.list_runs())[0].id
        lines = [e.payload for e in await env.bot.deps.store.events(run_id) if e.kind == "suspend_rule"]
        assert [p["suspension"]["rule_id"] for p in lines] == [rule.id]


async def test_terminal_shows_the_offer_and_answer_approve_always_makes_the_rule(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, TWO + THREE_ANCHORS)) as env:
        for _ in range(2):
            await approved_gate(env)
        card, gate = await gate_of(env, TASK)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        review_id = button_value(gate, ids.APPROVE)
        shown = await asyncio.to_thread(tandem_in, tmp_path, "show", run_id)
        assert shown.returncode == 0, shown.stderr
        assert "@U0ALICE " + OFFER in shown.stdout, shown.stdout
        always = f"Always allow restart_service for payments here: tandem answer {run_id} --approve-always"
        assert f"{always} --review {review_id}" in shown.stdout, shown.stdout
        args = ("answer", run_id, "--approve-always", "--review", review_id)
        refused = await asyncio.to_thread(tandem_in, tmp_path, *args, "--as", "U0BOB")
        assert refused.returncode != 0 and "Only @U0ALICE can approve" in refused.stderr, refused.stderr
        assert await env.bot.deps.store.rules(OPS) == [], "the terminal refuses whom the button refuses"
        done = await asyncio.to_thread(tandem_in, tmp_path, *args, "--as", "U0ALICE")
        assert done.returncode == 0, done.stderr
        (rule,) = await env.bot.deps.store.rules(OPS)
        assert (rule.tool, rule.created_by, rule.target) == ("restart_service", "U0ALICE", {"service": "payments"})
        set_line = "From now on `restart_service` for payments runs without asking in this channel (set by <@U0ALICE>)"
        await env.wait(lambda: any(set_line in text_of(m) for m in env.thread(card)))


async def test_terminal_approve_always_on_a_deploy_gate_is_refused_and_stores_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        _, gate = await gate_of(env, "deploy checkout 2.4.1")
        run_id = (await env.bot.deps.store.list_runs())[0].id
        review_id = button_value(gate, ids.APPROVE)
        args = ("answer", run_id, "--approve-always", "--review", review_id, "--as", "U0ALICE")
        refused = await asyncio.to_thread(tandem_in, tmp_path, *args)
        assert refused.returncode != 0 and "cannot be always-allowed" in refused.stderr, refused.stderr
        assert await env.bot.deps.store.rules(OPS) == []
        state, _ = await env.bot.deps.store.load(run_id)
        assert state.pending is not None and state.pending.id == review_id, "the gate still waits"
