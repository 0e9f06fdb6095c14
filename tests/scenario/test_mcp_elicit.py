"""An MCP server's question during a tool call, answered in Slack like a tool's ``human.ask``: with the
answer buttons and with a reply in the run's thread; past its deadline, the field's default is used."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from blocks import ids
from tests.mcpservers.servers import ELICITING, calls, eliciting_toml, http_server
from tests.scenario.harness import OPS, Env, buttons_of, policy_file, running, text_of
from tests.scenario.mcp_questions import question_of
from workspace.models import Message


@asynccontextmanager
async def first_question(tmp_path: Path, task: str, **server: object) -> AsyncIterator[tuple[Env, Message, Message]]:
    """The Slack app with the eliciting server, ``task`` started by alice: its card and its first question."""
    config = policy_file(tmp_path, eliciting_toml("deploys", tmp_path / "ops.log", trust="trusted", **server))
    async with running(tmp_path, config=config) as env:
        card = await env.start(task)
        yield env, card, await question_of(env, card)


def moves(tmp_path: Path) -> list[str]:
    return [c for c in calls(tmp_path / "ops.log") if c != "asked"]


async def test_mcp_question_answered_with_buttons_and_a_thread_reply_moves_the_service_once(tmp_path: Path) -> None:
    async with first_question(tmp_path, "move service web") as (env, card, region):
        assert "Where should web move?" in text_of(region) and "where the service runs next" in text_of(region)
        await env.click("carol", region, f"{ids.ANSWER}.0")  # not her run: refused, nothing changes
        await env.wait(lambda: env.ws.state.ephemerals_for("U0CAROL"))
        await env.idle()
        assert "tandem.answer" in str(env.ws.state.message(OPS, region.ts).blocks), "the question stays open"
        await env.click("alice", region, f"{ids.ANSWER}.1")  # us-east-1
        replicas = await question_of(env, card, after=region)
        assert "Replicas" in text_of(replicas)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "4")
        drain = await question_of(env, card, after=replicas)
        assert "Drain first" in text_of(drain)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "no")
        await env.wait(
            lambda: any("web moved to us-east-1 with 4 replicas" in text_of(m) for m in env.thread(card)), 30
        )
        assert moves(tmp_path) == ["move", "web", "us-east-1", "4", "false"]


async def test_mcp_question_past_its_deadline_uses_the_fields_default(tmp_path: Path) -> None:
    async with first_question(tmp_path, "move service web", elicit_timeout=1) as (env, card, region):
        await env.click("alice", region, f"{ids.ANSWER}.0")  # eu-west-1
        replicas = await question_of(env, card, after=region)
        assert "Replicas" in text_of(replicas)
        drain = await question_of(env, card, after=replicas)  # nobody answers: 2, its default, is used
        assert "Drain first" in text_of(drain)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "yes")
        await env.wait(
            lambda: any("web moved to eu-west-1 with 2 replicas" in text_of(m) for m in env.thread(card)), 30
        )
        assert moves(tmp_path) == ["move", "web", "eu-west-1", "2", "true"]
        assert any("continued with the default" in text_of(m) for m in env.thread(card))


async def test_mcp_url_question_shows_a_link_and_done_accepts_decline_declines(tmp_path: Path) -> None:
    async with first_question(tmp_path, "connect account acme") as (env, card, question):
        assert "Sign in to acme" in text_of(question)
        link = next(b for b in buttons_of(question) if b.get("action_id") == ids.OPEN_LINK)
        assert link["url"] == "https://auth.example.com/authorize?account=acme"
        await env.click("alice", question, ids.ANSWER)  # Done
        await env.wait(lambda: any("acme connected" in text_of(m) for m in env.thread(card)), 30)
        second = await env.start("connect account globex")
        question = await question_of(env, second)
        await env.click("alice", question, f"{ids.ANSWER}.no")  # Decline
        await env.wait(lambda: any("globex not connected (decline)" in text_of(m) for m in env.thread(second)), 30)
        assert moves(tmp_path) == ["connect", "acme", "accept", "connect", "globex", "decline"]


async def test_mcp_question_from_a_server_over_http_is_answered_and_sent_back(tmp_path: Path) -> None:
    with http_server(tmp_path / "ops.log", script=ELICITING) as (url, _):
        async with first_question(tmp_path, "move service web", url=url) as (env, card, region):
            await env.click("alice", region, f"{ids.ANSWER}.0")  # eu-west-1
            replicas = await question_of(env, card, after=region)
            await env.ws.reply_in_thread("alice", OPS, card.ts, "3")
            await question_of(env, card, after=replicas)
            await env.ws.reply_in_thread("alice", OPS, card.ts, "yes")
            moved = "web moved to eu-west-1 with 3 replicas, drained first"
            await env.wait(lambda: any(moved in text_of(m) for m in env.thread(card)), 30)
            assert moves(tmp_path) == ["move", "web", "eu-west-1", "3", "true"]


async def test_mcp_form_declined_with_its_button_sends_decline_and_an_outsiders_click_is_refused(
    tmp_path: Path,
) -> None:
    async with first_question(tmp_path, "move service web") as (env, card, region):
        decline = f"{ids.ANSWER}.decline"
        assert any(b.get("action_id") == decline and b["text"]["text"] == "Decline" for b in buttons_of(region))
        await env.click("carol", region, decline)  # not her run: refused, nothing changes
        await env.wait(lambda: env.ws.state.ephemerals_for("U0CAROL"))
        await env.idle()
        assert decline in str(env.ws.state.message(OPS, region.ts).blocks), "the question stays open"
        assert moves(tmp_path) == []
        await env.click("alice", region, decline)
        await env.wait(lambda: any("web not moved (decline)" in text_of(m) for m in env.thread(card)), 30)
        assert moves(tmp_path) == ["kept", "web", "decline"]
        closed = text_of(env.ws.state.message(OPS, region.ts))
        assert "Declined to answer" in closed and "U0ALICE" in closed, closed


async def test_mcp_form_declined_by_a_thread_reply_after_one_field_sends_decline(tmp_path: Path) -> None:
    async with first_question(tmp_path, "move service web") as (env, card, region):
        await env.click("alice", region, f"{ids.ANSWER}.1")  # us-east-1
        replicas = await question_of(env, card, after=region)
        assert "Replicas" in text_of(replicas)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "拒绝回答")
        await env.wait(lambda: any("web not moved (decline)" in text_of(m) for m in env.thread(card)), 30)
        assert moves(tmp_path) == ["kept", "web", "decline"]
        assert not any("Drain first" in text_of(m) for m in env.thread(card)), "nothing more was asked"


async def test_mcp_text_question_declined_when_the_server_then_fails_shows_the_step_failed(tmp_path: Path) -> None:
    async with first_question(tmp_path, "rotate key billing") as (env, card, reason):
        assert "Why rotate billing?" in text_of(reason)
        assert [b.get("action_id") for b in buttons_of(reason)][:2] == [ids.ANSWER_TEXT, f"{ids.ANSWER}.decline"]
        await env.click("alice", reason, f"{ids.ANSWER}.decline")
        failed = await env.next_review(card, after=reason, within=30)
        assert "Step 1 failed" in text_of(failed)
        assert "billing not rotated: a reason is required (decline)" in text_of(failed)
        assert moves(tmp_path) == ["kept", "billing", "decline"]
