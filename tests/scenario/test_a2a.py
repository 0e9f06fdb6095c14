"""Other software asks Tandem over A2A, with the SDK's own client over real HTTP, against the real ``tandem serve``
app and the local Slack fake: a task is a run your people see in Slack; its reviews come back as INPUT_REQUIRED;
an answer on the same task resumes it, through the same rules as a button."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.types import CancelTaskRequest, Message, Task, TaskState
from a2a.utils.errors import A2AError, InvalidParamsError, InvalidRequestError

from blocks import ids
from tests.mcpservers.servers import calls, eliciting_toml
from tests.scenario.a2a_client import answer, calling, choices_of, sent, task_message, task_of, until
from tests.scenario.harness import THREE_ANCHORS, policy_file, text_of

TASK = "restart payments and check errors after"
INPUT = TaskState.TASK_STATE_INPUT_REQUIRED


async def test_agent_card_describes_the_skill_and_asks_for_a_bearer_token(tmp_path: Path) -> None:
    async with calling(tmp_path) as (env, _), httpx.AsyncClient() as http:
        card = await A2ACardResolver(http, env.bot.url).get_agent_card()

    assert [s.name for s in card.skills] == ["Run an ops task with people steering"]
    assert card.security_schemes["bearer"].http_auth_security_scheme.scheme == "bearer"
    assert list(card.security_requirements[0].schemes["bearer"].list) == ["runs:write"]
    assert card.supported_interfaces[0].url == f"{env.bot.url}/a2a/"
    assert card.capabilities.streaming


async def test_send_message_starts_a_run_shown_in_slack_waiting_input_required_with_its_choices(
    tmp_path: Path,
) -> None:
    async with calling(tmp_path) as (env, client):
        [response] = await sent(client, task_message(TASK))

        task = response.task
        assert task.status.state == INPUT
        assert "Plan review" in task.status.message.parts[0].text and TASK in task.status.message.parts[0].text
        data = choices_of(task)
        assert [c["choice"] for c in data["choices"]] == ["approve", "request_changes", "cancel"]
        assert data["anchor"] == "after_plan"
        await env.wait(env.cards)
        assert TASK in text_of(env.cards()[0]), "the run shows in the channel named in the metadata"


async def test_answers_by_task_id_resume_the_same_task_until_its_result_comes_back_as_an_artifact(
    tmp_path: Path,
) -> None:
    async with calling(tmp_path) as (env, client):
        [response] = await sent(client, task_message(TASK))
        task, anchors = response.task, []
        while task.status.state == INPUT:
            anchors.append(choices_of(task)["anchor"])
            [response] = await sent(client, answer(task, choice="approve"))
            assert response.task.id == task.id, "an answer resumes its task, never starts another"
            task = response.task

        assert task.status.state == TaskState.TASK_STATE_COMPLETED
        assert anchors[0] == "after_plan" and anchors[-1] == "before_result"
        [result] = task.artifacts
        assert "restarted payments" in result.parts[0].text
        assert len(await env.bot.deps.store.list_runs()) == 1
        read = await task_of(client, task.id)
        assert read.status.state == TaskState.TASK_STATE_COMPLETED and read.artifacts[0].name == "result"


async def test_a_replayed_answer_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with calling(tmp_path) as (_, client):
        [response] = await sent(client, task_message(TASK))
        approve = answer(response.task, choice="approve")
        [moved] = await sent(client, approve)
        before = await task_of(client, moved.task.id)

        with pytest.raises(InvalidRequestError, match="Already approved"):
            await sent(client, approve)

        after = await task_of(client, moved.task.id)
        assert (
            choices_of(after)["review_id"] == choices_of(before)["review_id"] != choices_of(response.task)["review_id"]
        )
        assert after.status.state == before.status.state


async def test_an_answer_without_its_review_or_with_an_unknown_choice_says_what_to_send(tmp_path: Path) -> None:
    async with calling(tmp_path) as (_, client):
        [response] = await sent(client, task_message(TASK))
        task = response.task
        nameless = answer(task, choice="approve")
        del nameless.parts[:]
        nameless.parts.add(text="approve")

        with pytest.raises(InvalidParamsError, match="names no review"):
            await sent(client, nameless)
        with pytest.raises(InvalidParamsError, match="not a choice Tandem offers"):
            await sent(client, answer(task, choice="merge"))
        with pytest.raises(InvalidParamsError, match="needs 'feedback'"):
            await sent(client, answer(task, choice="request_changes"))
        assert choices_of(await task_of(client, task.id))["review_id"] == choices_of(task)["review_id"]


async def test_a_task_without_a_channel_is_refused_naming_the_metadata(tmp_path: Path) -> None:
    async with calling(tmp_path) as (env, client):
        with pytest.raises(InvalidParamsError, match='"channel"'):
            await sent(client, task_message(TASK, channel="general"))
        assert await env.bot.deps.store.list_runs() == []


APPROVERS = '[approvers]\nexec = ["U0BOB"]\n'


async def test_a_gate_the_token_may_not_approve_is_refused_and_a_slack_click_moves_the_task(tmp_path: Path) -> None:
    async with calling(tmp_path, config=policy_file(tmp_path, APPROVERS)) as (env, client):
        [response] = await sent(client, task_message(TASK))
        [response] = await sent(client, answer(response.task, choice="approve"))  # the plan: the requester's call
        gate = response.task
        assert choices_of(gate)["anchor"] == "before_risky_step" and choices_of(gate)["waiting_on"] == ["U0BOB"]

        with pytest.raises(InvalidRequestError, match="U0BOB"):
            await sent(client, answer(gate, choice="approve"))
        assert choices_of(await task_of(client, gate.id))["review_id"] == choices_of(gate)["review_id"]
        state, _ = await env.bot.deps.store.load(gate.id)
        assert state.step(1).status == "pending", "the refused approval ran nothing"

        card = env.cards()[0]
        review = await env.next_review(card)
        assert "needs approval" in text_of(review)
        await env.click("bob", review, ids.APPROVE)

        async def moved() -> bool:
            read = await task_of(client, gate.id)
            if read.status.state == TaskState.TASK_STATE_COMPLETED:
                return True
            return read.status.state == INPUT and choices_of(read)["review_id"] != choices_of(gate)["review_id"]

        await until(moved)
        state, _ = await env.bot.deps.store.load(gate.id)
        assert state.step(1).status == "done" and state.step(1).approved_by == "U0BOB"


async def test_cancel_task_cancels_the_run(tmp_path: Path) -> None:
    async with calling(tmp_path) as (env, client):
        [response] = await sent(client, task_message(TASK))

        cancelled = await client.cancel_task(CancelTaskRequest(id=response.task.id))

        assert cancelled.status.state == TaskState.TASK_STATE_CANCELED
        assert "cancelled by @token:ci" in cancelled.status.message.parts[0].text
        state, _ = await env.bot.deps.store.load(response.task.id)
        assert state.status == "cancelled"
        with pytest.raises(A2AError, match="already ended"):
            await client.cancel_task(CancelTaskRequest(id=response.task.id))


async def test_text_naming_its_review_is_read_like_a_thread_reply(tmp_path: Path) -> None:
    async with calling(tmp_path) as (_, client):
        [response] = await sent(client, task_message(TASK))
        plan = response.task
        reply = answer(plan)
        del reply.parts[:]
        reply.parts.add(text="approve")
        reply.metadata.update({"review_id": choices_of(plan)["review_id"]})

        [moved] = await sent(client, reply)

        assert moved.task.id == plan.id
        assert choices_of(moved.task)["anchor"] != "after_plan", "the plan was approved by the text"


async def test_the_same_start_message_sent_again_finds_its_task_in_the_callers_context(tmp_path: Path) -> None:
    async with calling(tmp_path) as (env, client):
        message = task_message(TASK)
        message.context_id = "deploy-981"

        [first] = await sent(client, message)
        [again] = await sent(client, message)

        assert again.task.id == first.task.id and again.task.context_id == first.task.context_id == "deploy-981"
        assert len(await env.bot.deps.store.list_runs()) == 1
        assert len(env.cards()) == 1
        with pytest.raises(InvalidParamsError, match="not the context"):
            await sent(client, _elsewhere(first.task))


def _elsewhere(task: Task) -> Message:
    moved = answer(task, choice="approve")
    moved.context_id = "another-context"
    return moved


async def test_text_approving_a_gate_is_refused_naming_the_approve_choice(tmp_path: Path) -> None:
    async with calling(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as (env, client):
        [response] = await sent(client, task_message(TASK))
        [response] = await sent(client, answer(response.task, choice="approve"))
        gate = response.task
        assert choices_of(gate)["anchor"] == "before_risky_step"
        said = answer(gate)
        del said.parts[:]
        said.parts.add(text="yes, go ahead")
        said.metadata.update({"review_id": choices_of(gate)["review_id"]})

        with pytest.raises(InvalidRequestError, match='"choice": "approve"'):
            await sent(client, said)

        state, _ = await env.bot.deps.store.load(gate.id)
        assert state.pending is not None and state.pending.id == choices_of(gate)["review_id"]
        assert state.step(1).status == "pending"


async def test_an_mcp_servers_form_question_declined_over_a2a_sends_decline(tmp_path: Path) -> None:
    config = policy_file(tmp_path, eliciting_toml("deploys", tmp_path / "ops.log", trust="trusted"))
    async with calling(tmp_path, config=config) as (_, client):
        [response] = await sent(client, task_message("move service web"))
        task = response.task
        while "Where should web move?" not in task.status.message.parts[0].text:
            [response] = await sent(client, answer(task, choice="approve"))
            task = response.task
        assert [c["choice"] for c in choices_of(task)["choices"]] == ["answer", "decline", "cancel"]
        [response] = await sent(client, answer(task, choice="decline"))
        task = response.task
        while task.status.state == INPUT:
            [response] = await sent(client, answer(task, choice="approve"))
            task = response.task
        assert "web not moved (decline)" in task.artifacts[0].parts[0].text
        assert [c for c in calls(tmp_path / "ops.log") if c != "asked"] == ["kept", "web", "decline"]
