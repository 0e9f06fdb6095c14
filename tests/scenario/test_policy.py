"""Who may decide, quorum, handoffs, always-allow rules and deadlines — in Slack, over signed HTTP."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from blocks import ids
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, button_value, gate_of, policy_file, running, text_of

APPROVERS = """
[approvers]
exec = ["U0BOB"]
deploy = ["U0BOB"]
"""


async def test_outsider_is_refused_approver_approves_and_card_names_approvers(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, APPROVERS)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after")
        await env.click("carol", gate, ids.APPROVE)
        await env.click("alice", gate, ids.APPROVE)  # the requester may not approve exec steps now
        await env.idle()
        for person in ("U0CAROL", "U0ALICE"):
            told = env.ws.state.ephemerals_for(person)
            assert told and "Only <@U0BOB> can approve exec steps" in text_of(told[-1])  # type: ignore[arg-type]
            assert told[-1].thread_ts == card.ts, "the refusal shows in the run's thread, where they clicked"
        assert ids.APPROVE in str(env.ws.state.message(OPS, gate.ts).blocks), "nothing changed"
        await env.click("bob", gate, ids.APPROVE)
        await env.wait(lambda: "Step 1 approved by <@U0BOB>" in text_of(env.ws.state.message(OPS, gate.ts)))
        await env.wait(lambda: "exec+ <@U0BOB>" in text_of(env.ws.state.message(OPS, card.ts)))


async def test_fifty_simultaneous_approvals_run_the_risky_step_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HELD_TOOLS_DIR", str(tmp_path))
    people = ", ".join(f'"U0P{i:02d}"' for i in range(50))
    config = policy_file(tmp_path, f"[approvers]\ndeploy = [{people}]\n")
    async with running(tmp_path, config=config, tools="tests.cli.held_tools") as env:
        for i in range(50):
            person = env.ws.state.user("carol").model_copy(update={"id": f"U0P{i:02d}", "name": f"p{i}"})
            env.ws.state.users[person.id] = person
        card, gate = await gate_of(env, "inspect cluster blue then upgrade cluster blue")
        value = button_value(gate, ids.APPROVE)
        results = await asyncio.gather(
            *(env.ws.click(f"U0P{i:02d}", OPS, gate.ts, ids.APPROVE, value) for i in range(50))
        )
        assert all(r.status == 200 for r in results)
        await env.idle()
        calls = (tmp_path / "calls.log").read_text().split()
        assert calls.count("upgrade_cluster") == 1
        run_id = (await env.bot.deps.store.list_runs())[0].id
        decided = [e for e in await env.bot.deps.store.events(run_id) if e.kind == "decided"]
        assert len([e for e in decided if e.actor.startswith("U0P")]) == 1
        told = [e for i in range(50) for e in env.ws.state.ephemerals_for(f"U0P{i:02d}")]
        assert len(told) == 49 and all("Already approved by" in text_of(t) for t in told)  # type: ignore[arg-type]


async def test_tool_question_answered_with_a_button_and_a_modal(tmp_path: Path) -> None:
    async with running(tmp_path, tools="tests.agent.handoff_tools") as env:
        await env.ws.slash_command("alice", OPS, "move service payments")
        await env.wait(env.cards)
        card = env.cards()[0]
        review = await env.next_review(card)
        while "needs an answer" not in text_of(review):
            await env.click("alice", review, ids.APPROVE)
            review = await env.next_review(card, after=review)
        assert "Which region should payments move to?" in text_of(review)
        # an answer that is not among the options (a forged button value) is refused; the question stays
        forged = json.dumps({"review": json.loads(button_value(review, f"{ids.ANSWER}.0"))["review"], "answer": "mars"})
        await env.ws.click("alice", OPS, review.ts, f"{ids.ANSWER}.0", forged)

        def refused() -> bool:
            return any("not one of the options" in text_of(e) for e in env.ws.state.ephemerals_for("U0ALICE"))  # type: ignore[arg-type]

        await env.wait(refused)
        await env.idle()
        assert "tandem.answer" in str(env.ws.state.message(OPS, review.ts).blocks), "the question stays open"
        await env.click("alice", review, f"{ids.ANSWER}.2")  # "other"
        text_q = await env.next_review(card, after=review)
        assert "Type the region" in text_of(text_q)
        await env.click("alice", text_q, ids.ANSWER_TEXT)
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        await env.ws.submit_view("alice", modal.id, {ids.ANSWER_BLOCK: "ap-south-1"})
        result = await env.next_review(card, after=text_q)
        assert "payments moved to ap-south-1" in text_of(result)


async def test_always_allow_rule_skips_the_gate_next_time_and_can_be_revoked(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after")
        await env.click("alice", gate, ids.APPROVE_ALWAYS)
        await env.wait(lambda: any("runs without asking" in text_of(m) for m in env.thread(card)))
        # the same call in a new run: no gate, the approval is logged against the rule
        await env.ws.slash_command("alice", OPS, "restart payments")
        await env.wait(lambda: len(env.cards()) == 2)
        second = env.cards()[-1]
        plan = await env.next_review(second)
        await env.click("alice", plan, ids.APPROVE)
        result = await env.next_review(second, after=plan)
        assert "needs approval" not in text_of(result)
        assert "Restarted payments" in text_of(result)
        await env.idle()
        marked = env.ws.state.message(OPS, plan.ts)
        assert ids.APPROVE not in str(marked.blocks), "the approved plan keeps no live buttons"
        assert "Plan approved by <@U0ALICE>" in text_of(marked)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        events = await env.bot.deps.store.events(run_id)
        (rule,) = await env.bot.deps.store.rules(OPS)
        assert [e.actor for e in events if e.kind == "decided"] == ["U0ALICE"]  # the plan; nobody asked at the gate
        assert [e.payload["rule"]["id"] for e in events if e.kind == "rule_checked"] == [rule.id]
        state, _ = await env.bot.deps.store.load(run_id)
        assert [s.approved_by for s in state.plan if s.tool == "restart_service"] == [f"rule:{rule.id}"]
        await env.ws.slash_command("alice", OPS, "rules")
        await env.idle()
        listing = env.ws.state.ephemerals_for("U0ALICE")[-1]
        assert "restart_service" in text_of(listing)  # type: ignore[arg-type]
        await env.ws.click("alice", OPS, listing.ts, ids.REVOKE_RULE, button_value(listing, ids.REVOKE_RULE))  # type: ignore[arg-type]
        await env.idle()
        assert "asks for approval again" in text_of(env.ws.state.ephemerals_for("U0ALICE")[-1])  # type: ignore[arg-type]
        assert await env.bot.deps.store.rules(OPS) == []


async def test_button_from_another_workspace_changes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after")
        value = button_value(gate, ids.APPROVE)
        payload = {
            "type": "block_actions",
            "user": {"id": "U0ALICE"},
            "team": {"id": "T0OTHER"},
            "channel": {"id": OPS},
            "container": {"type": "message", "channel_id": OPS, "message_ts": gate.ts},
            "actions": [{"action_id": ids.APPROVE, "block_id": "b", "value": value, "type": "button"}],
        }
        from urllib.parse import urlencode

        delivery = await env.ws.send_raw(
            urlencode({"payload": json.dumps(payload)}), content_type="application/x-www-form-urlencoded"
        )
        assert delivery.status == 200
        await env.idle()
        record = await env.bot.deps.store.get_review(value)
        assert record is not None and record.status == "pending"


async def test_deadline_reminds_in_the_thread_then_escalates(tmp_path: Path) -> None:
    config = policy_file(
        tmp_path,
        """
        escalation_channel = "C0GENERAL"
        [timeouts.before_risky_step]
        after = "1h"
        remind_before = "10m"
        strategy = "reassign"
        """
        + THREE_ANCHORS,
    )
    async with running(tmp_path, config=config) as env:
        card, gate = await gate_of(env, "restart payments and check errors after")
        runtime = env.bot.deps.runtime
        state = (await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id))[0]
        assert state.pending is not None and state.pending.deadline is not None
        await runtime.tick(now=state.pending.deadline - 300)
        await env.wait(lambda: any("Still waiting" in text_of(m) for m in env.thread(card)))
        await runtime.tick(now=state.pending.deadline + 1)
        await env.wait(lambda: any("Nobody decided" in text_of(m) for m in env.ws.state.history("C0GENERAL")))
        escalated = next(m for m in env.ws.state.history("C0GENERAL") if "Nobody decided" in text_of(m))
        # deciding from the escalation channel works too
        await env.ws.click("alice", "C0GENERAL", escalated.ts, ids.APPROVE, button_value(escalated, ids.APPROVE))
        await env.wait(lambda: "Step 1 approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, gate.ts)))
        await env.wait(lambda: "Decided by <@U0ALICE>" in text_of(env.ws.state.message(OPS, card.ts)))


async def test_home_tab_shows_what_waits_on_each_person(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, APPROVERS)) as env:
        card, gate = await gate_of(env, "restart payments and check errors after")
        for person in ("U0ALICE", "U0BOB", "U0CAROL"):
            event = {"type": "app_home_opened", "user": person, "channel": "D0X", "tab": "home", "event_ts": "1.2"}
            assert (await env.ws.deliver(event)).status == 200
        await env.idle()
        home = {p: text_of_view(env, p) for p in ("U0ALICE", "U0BOB", "U0CAROL")}
        run = (await env.bot.deps.store.list_runs())[0].id
        # bob approves exec steps: the gate waits on him, not on alice (who started it) or carol
        assert run in home["U0BOB"].split("Runs you started")[0]
        assert run not in home["U0ALICE"].split("Runs you started")[0]
        assert run in home["U0ALICE"].split("Runs you started")[1]
        assert run not in home["U0CAROL"]


def text_of_view(env: Env, user: str) -> str:
    view = env.ws.state.home_view(user)
    assert view is not None, f"no Home tab published for {user}"
    return json.dumps(view.spec)
