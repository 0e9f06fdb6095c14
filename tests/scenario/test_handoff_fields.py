"""A handoff's ``input_type: number``, ``on_timeout: escalate`` and ``priority`` on the real ``tandem serve`` app:
answered in Slack (local Slack fake), read back over ``/api/v1``."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.scenario.asking import ASK, api, asked_in_thread
from tests.scenario.harness import OPS, button_value, policy_file, text_of
from tests.scenario.webhook_receiver import receiving

NUMBER = {**ASK, "prompt": "How many replicas for checkout?", "input_type": "number", "options": []}


async def test_number_handoff_refuses_words_in_the_modal_and_reads_back_the_typed_number(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        body = await (await http.post("/api/v1/handoffs", json=NUMBER)).json()
        question = await asked_in_thread(env, "How many replicas for checkout?")

        await env.click("alice", question, ids.ANSWER_TEXT)
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        await env.ws.submit_view("alice", modal.id, {ids.ANSWER_BLOCK: "twelve"})
        kept = env.ws.state.open_modals("U0ALICE")
        assert kept and "is not a number" in str(kept[-1].errors), "the modal stays open and says why"
        await env.ws.submit_view("alice", kept[-1].id, {ids.ANSWER_BLOCK: "12"})

        read = await (await http.get(f"/api/v1/handoffs/{body['id']}", params={"wait": "10"})).json()
        assert (read["status"], read["answer"], read["by"]) == ("resolved", 12, "U0ALICE")


async def test_number_handoff_answered_in_the_thread_with_words_is_refused_and_stays_open(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        body = await (await http.post("/api/v1/handoffs", json=NUMBER)).json()
        await asked_in_thread(env, "How many replicas for checkout?")

        card = env.cards()[0]
        await env.ws.reply_in_thread("alice", OPS, card.ts, "a dozen")

        def told() -> bool:
            said = [*env.thread(card), *env.ws.state.ephemerals_for("U0ALICE")]
            return any("is not a number" in text_of(m) for m in said)  # type: ignore[arg-type]

        await env.wait(told)
        still = await (await http.get(f"/api/v1/handoffs/{body['id']}")).json()
        assert still["status"] == "pending"
        await env.ws.reply_in_thread("alice", OPS, card.ts, "2.5")

        read = await (await http.get(f"/api/v1/handoffs/{body['id']}", params={"wait": "10"})).json()
        assert (read["status"], read["answer"]) == ("resolved", 2.5)


async def test_handoff_escalated_at_its_deadline_reaches_the_escalation_channel_and_an_approver_answers(
    tmp_path: Path,
) -> None:
    config = policy_file(tmp_path, 'escalation_channel = "C0GENERAL"\n[approvers]\ndeploy = ["U0BOB"]\n')
    async with api(tmp_path, config=config) as (env, http, _):
        ask = {**ASK, "timeout": 60, "on_timeout": "escalate"}
        body = await (await http.post("/api/v1/handoffs", json=ask)).json()
        await asked_in_thread(env, "Roll back checkout to v41?")

        await env.bot.deps.runtime.tick(now=env.bot.deps.clock() + 120)
        await env.wait(lambda: any("Nobody decided" in text_of(m) for m in env.ws.state.history("C0GENERAL")))
        escalated = next(m for m in env.ws.state.history("C0GENERAL") if "Nobody decided" in text_of(m))
        await env.ws.click(
            "bob", "C0GENERAL", escalated.ts, f"{ids.ANSWER}.1", button_value(escalated, f"{ids.ANSWER}.1")
        )

        read = await (await http.get(f"/api/v1/handoffs/{body['id']}", params={"wait": "10"})).json()
        assert (read["status"], read["answer"], read["by"]) == ("resolved", "keep v42", "U0BOB")


async def test_handoff_with_a_bad_priority_or_number_default_gets_422_naming_the_field(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        cases = [
            ({**ASK, "priority": "asap"}, "priority"),
            ({**NUMBER, "timeout": 5, "on_timeout": "use_default", "default": "three"}, "not a number"),
            ({**ASK, "on_timeout": "shout", "timeout": 5}, "on_timeout"),
        ]
        for sent, named in cases:
            answer = await http.post("/api/v1/handoffs", json=sent)
            assert answer.status == 422, (sent, await answer.text())
            assert named in (await answer.json())["detail"], sent
        assert env.cards() == []


async def test_urgent_handoff_shows_its_priority_on_the_question(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        await http.post("/api/v1/handoffs", json={**ASK, "priority": "urgent"})
        question = await asked_in_thread(env, "Roll back checkout to v41?")
        assert "🚨" in text_of(question) and "urgent" in text_of(question).lower()


async def test_handoff_run_card_names_who_may_answer_before_and_after_the_answer(tmp_path: Path) -> None:
    config = policy_file(tmp_path, 'escalation_channel = "C0GENERAL"\n[approvers]\ndeploy = ["U0BOB"]\n')
    async with api(tmp_path, config=config) as (env, http, _):
        await http.post("/api/v1/handoffs", json={**ASK, "assignees": ["U0ALICE", "U0CAROL"]})
        question = await asked_in_thread(env, "Roll back checkout to v41?")
        card = env.cards()[0]
        await env.wait(lambda: "Who may answer" in text_of(env.ws.state.message(OPS, card.ts)))
        shown = text_of(env.ws.state.message(OPS, card.ts))
        assert "Who may answer: <@U0ALICE>, <@U0CAROL>" in shown and "requester decides" not in shown

        await env.click("carol", question, f"{ids.ANSWER}.0")

        def ended() -> str:
            text = text_of(env.ws.state.message(OPS, card.ts))
            return text if "roll back" in text.split("Who may answer")[0].lower() else ""

        await env.wait(lambda: bool(ended()) and "<@U0CAROL>" in ended())
        assert "Who may answer: <@U0ALICE>, <@U0CAROL>" in ended()


async def test_number_handoff_answered_in_the_thread_posts_a_signed_webhook_with_a_json_number(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, made), receiving(made.webhook_secret) as receiver:
        await http.post("/api/v1/handoffs", json={**NUMBER, "callback_url": receiver.url})
        await asked_in_thread(env, "How many replicas for checkout?")

        await env.ws.reply_in_thread("alice", OPS, env.cards()[0].ts, "1,200")

        [post] = await receiver.posts(1)
        assert post.verified and (post.json["status"], post.json["answer"]) == ("resolved", 1200)
        assert '"answer":1200' in post.body.decode()
