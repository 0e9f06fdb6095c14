"""The bot with a real litellm model talking HTTP to a local OpenAI-compatible server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import serve_openai
from tests.scenario.harness import OPS, Env, running, text_of
from workspace.models import Message

PLAN = json.dumps(
    {
        "steps": [
            {"tool": "check_service", "params": {"service": "auth"}, "reason": "see how auth is doing"},
            {"tool": "read_logs", "params": {"service": "auth", "level": "error"}, "reason": "find the errors"},
            {"tool": "query_metrics", "params": {"service": "auth"}, "reason": "error rate trend"},
        ]
    }
)


def _card(env: Env, card: Message) -> str:
    """The run card as it reads now."""
    return text_of(env.ws.state.message(OPS, card.ts))


async def test_slow_model_never_delays_the_ack(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-local")
    async with serve_openai() as llm:
        llm.reply(PLAN, delay=4.0)
        # the plan only reads: it runs without a review and the next request the model gets is the summary
        llm.reply(json.dumps({"text": "Auth looks healthy; no errors in the last 15 minutes."}))
        async with running(tmp_path, model="openai/test-model", llm_api_base=llm.base_url) as env:
            delivery = await env.ws.slash_command("alice", OPS, "look into auth errors")
            assert delivery.status == 200 and delivery.error is None
            await env.wait(env.cards, within=2)
            card = env.cards()[0]
            assert "check_service" not in _card(env, card), "the ack came back before the model answered"
            # while the model thinks, the run card says so (a slow call does not look like nothing happens)
            await env.wait(lambda: "drafting a plan" in _card(env, card), within=3.5)
            assert "check_service" not in _card(env, card), "seen while the model was still planning"
            await env.wait(lambda: "Auth looks healthy" in _card(env, card), within=15)
            assert "Done" in _card(env, card) and "check_service" in _card(env, card)
            assert env.reviews(card) == [], "a plan that only reads asks nobody"
            assert llm.requests and llm.requests[0]["model"] == "test-model"
            # a thread reply the offline reader is sure of ("ship it") is read without asking the model;
            # the run is done, so it changes nothing and alice is told so
            await env.ws.reply_in_thread("alice", OPS, card.ts, "ship it")
            await env.wait(
                lambda: any("so that changes nothing" in text_of(m) for m in env.ws.state.ephemerals_for("U0ALICE")),
                within=15,
            )
            assert llm.unscripted == 0
            systems = [r["messages"][0]["content"] for r in llm.requests]
            assert not [m for m in systems if m.startswith("You read what a person wrote")], "the model was asked"
            assert len(systems) == 2  # the plan and the summary
