"""Answering from the inbox: the same choices, the same use cases, the same rules as in chat."""

from __future__ import annotations

from pathlib import Path

import pytest

from blocks import ids
from cli.dev import DEMO_POLICY
from tests.inbox_web.helpers import browser, inbox_api, pending_review
from tests.mcpservers.servers import calls, eliciting_toml
from tests.scenario.asking import ASK
from tests.scenario.harness import OPS, policy_file, text_of
from tests.scenario.mcp_questions import question_of


async def test_inbox_choice_answer_resolves_the_handoff_and_a_second_answer_is_told_it_was_decided(
    tmp_path: Path,
) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            run_id = (await created.json())["id"]
        review = await pending_review(env, run_id)
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            status, html = await alice.page(f"/inbox/items/{review}")
            assert 'data-choice="answer" data-value="roll back"' in html
            assert await alice.answer(review, choice="answer", value="roll back") == (
                200,
                "Answered. Whoever asked has your answer.",
            )
            async with http.get(f"/api/v1/handoffs/{run_id}") as read:
                handoff = await read.json()
            assert (handoff["status"], handoff["answer"], handoff["by"]) == ("resolved", "roll back", "U0ALICE")
            status, message = await alice.answer(review, choice="answer", value="keep v42")
            assert status == 409
            assert "U0ALICE" in message
            assert await alice.listed() == []
            status, html = await alice.page(f"/inbox/items/{review}")
            assert status == 200
            assert "Already decided by <strong>U0ALICE</strong>" in html


async def test_inbox_other_assignee_opening_an_answered_handoff_is_told_who_answered(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json={**ASK, "assignees": ["U0ALICE", "U0BOB"]}) as created:
            review = await pending_review(env, (await created.json())["id"])
        async with browser(env) as alice, browser(env) as bob, browser(env) as carol:
            await alice.sign_in("U0ALICE")
            await bob.sign_in("U0BOB")
            await carol.sign_in("U0CAROL")
            assert await bob.listed() == [review]
            assert (await alice.answer(review, choice="answer", value="keep v42"))[0] == 200
            status, html = await bob.page(f"/inbox/items/{review}")
            assert "Already decided by <strong>U0ALICE</strong>" in html
            status, message = await bob.answer(review, choice="answer", value="roll back")
            assert status == 409
            assert "U0ALICE" in message
            assert (await carol.page(f"/inbox/items/{review}"))[0] == 404


async def test_inbox_answer_not_among_the_options_is_refused_with_the_options(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            review = await pending_review(env, (await created.json())["id"])
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            status, message = await alice.answer(review, choice="answer", value="delete prod")
            assert status == 422
            assert "roll back, keep v42" in message
            assert await alice.listed() == [review]


async def test_inbox_plan_approved_by_the_requester_then_the_exec_gate_waits_for_bob_alone(tmp_path: Path) -> None:
    async with inbox_api(tmp_path, config=DEMO_POLICY) as (env, _):
        await env.start("restart payments and check errors after", "alice")
        run_id = (await env.bot.deps.store.list_runs(limit=1))[0].id
        plan = await pending_review(env, run_id)
        async with browser(env) as alice, browser(env) as bob:
            await alice.sign_in("U0ALICE")
            await bob.sign_in("U0BOB")
            status, html = await alice.page(f"/inbox/items/{plan}")
            assert "The plan" in html and "restart_service" in html
            assert await alice.answer(plan, choice="approve") == (200, "Approved. The run goes on.")
            gate = await pending_review(env, run_id, after=plan)
            assert await alice.listed() == [gate]  # she asked for it: she sees it, and may stop it
            status, html = await alice.page(f"/inbox/items/{gate}")
            assert "you may request changes or stop it" in html
            status, message = await alice.answer(gate, choice="approve")
            assert status == 403
            assert "Only @U0BOB" in message
            assert await bob.listed() == [gate]
            status, listed = await bob.page("/inbox/?part=list")
            assert "restart_service(service=payments" in listed  # what the list's Approve approves, shown beside it
            assert await bob.answer(gate, choice="approve") == (200, "Approved. The run goes on.")
            assert gate not in await bob.listed()
            result = await pending_review(env, run_id, after=gate)
            status, html = await alice.page(f"/inbox/items/{result}")
            assert 'data-testid="inbox-evidence"' in html and "restart_service" in html  # the outputs so far
            assert 'data-testid="inbox-output"' in html  # the result it asks her to accept


async def test_inbox_request_changes_needs_an_intent_and_words(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, _):
        await env.start("restart payments and check errors after", "alice")
        run_id = (await env.bot.deps.store.list_runs(limit=1))[0].id
        plan = await pending_review(env, run_id)
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            status, message = await alice.answer(plan, choice="request_changes", feedback="skip the restart")
            assert (status, message[:13]) == (422, "Pick what sho")
            status, message = await alice.answer(plan, choice="request_changes", intent="replan")
            assert (status, message) == (422, "Say what should change. Nothing changed.")
            status, message = await alice.answer(
                plan, choice="request_changes", intent="replan", feedback="only check errors, no restart"
            )
            assert (status, message) == (200, "Changes requested. The run takes them up.")


@pytest.mark.parametrize(
    ("terms", "form", "status", "answer"),
    [
        (
            {"input_type": "text", "options": []},
            {"choice": "answer", "value": "  after the 14:00 deploy "},
            "resolved",
            "after the 14:00 deploy",
        ),
        ({"input_type": "confirm", "options": []}, {"choice": "answer", "value": "no"}, "resolved", False),
        ({}, {"choice": "cancel", "feedback": "not mine to decide"}, "cancelled", None),
    ],
)
async def test_inbox_text_confirm_and_decline_reach_the_asker(
    tmp_path: Path, terms: dict[str, object], form: dict[str, str], status: str, answer: object
) -> None:
    async with inbox_api(tmp_path) as (env, http):
        async with http.post("/api/v1/handoffs", json={**ASK, **terms}) as created:
            run_id = (await created.json())["id"]
        review = await pending_review(env, run_id)
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            assert (await alice.answer(review, **form))[0] == 200
        async with http.get(f"/api/v1/handoffs/{run_id}") as read:
            handoff = await read.json()
        assert (handoff["status"], handoff["answer"]) == (status, answer)


async def test_inbox_mcp_form_declined_sends_decline_and_an_outsiders_decline_is_refused(tmp_path: Path) -> None:
    config = policy_file(tmp_path, eliciting_toml("deploys", tmp_path / "ops.log", trust="trusted"))
    async with inbox_api(tmp_path, config=config) as (env, _):
        card = await env.start("move service web")
        question = await question_of(env, card)
        review = next(
            b["block_id"].removeprefix("handoff:") for b in question.blocks if "handoff:" in b.get("block_id", "")
        )
        async with browser(env) as carol:
            await carol.sign_in("U0CAROL")
            status, message = await carol.answer(review, choice="decline")
            assert status == 404 and "not yours to see" in message, message  # not hers: refused unseen
        assert f"{ids.ANSWER}.decline" in str(env.ws.state.message(OPS, question.ts).blocks), "the question stays open"
        assert calls(tmp_path / "ops.log") == ["asked"]
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            status, html = await alice.page(f"/inbox/items/{review}")
            assert 'data-testid="inbox-decline"' in html and "Cancel the run" in html
            assert await alice.answer(review, choice="decline") == (
                200,
                "Declined. The server that asked was told you decline to answer.",
            )
        await env.wait(lambda: any("web not moved (decline)" in text_of(m) for m in env.thread(card)), 30)
        assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["kept", "web", "decline"]
