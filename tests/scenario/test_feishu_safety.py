"""Feishu's safety paths against the running webhook: forged, stale, other-tenant and malformed requests,
repeated events and callbacks, refused clicks, and text at an exec gate."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from agent.models import Delivery, NewsLine
from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from tests.scenario.harness import policy_file
from workspace.feishu_fake import ENCRYPT_KEY, VERIFICATION_TOKEN, Posted, button_values, envelope, sign

POLICY = '[approvers]\nexec = ["ou_bob"]\n'
TASK = "restart payments and check errors after"


async def _plan(env: FEnv) -> tuple[Posted, Posted]:
    return await env.plan_of(TASK)


async def _nothing_stored(env: FEnv) -> None:
    assert await env.bot.deps.store.list_runs() == []
    assert env.fake.messages and all(
        m.sender.startswith("ou_") and m.sender != "ou_tandembot" for m in env.fake.messages.values()
    )


@pytest.mark.parametrize(
    ("forgery", "status"),
    [
        ({"signed": False}, 401),
        ({"age": 400.0}, 401),
        ({"key": "another-apps-encrypt-key"}, 400),
    ],
)
async def test_feishu_forged_or_stale_event_is_refused_and_changes_nothing(
    tmp_path: Path, forgery: dict[str, Any], status: int
) -> None:
    async with running_feishu(tmp_path) as env:
        answer = await env.fake.deliver(env.fake.message_event("alice", OPS, TASK), **forgery)
        assert answer.status == status and answer.body["error"]
        await env.idle()
        await _nothing_stored(env)


async def test_feishu_event_from_another_tenant_is_refused(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        answer = await env.fake.say("alice", OPS, TASK, tenant="tenant-elsewhere")
        assert answer.status == 403 and "another tenant" in answer.body["error"]
        await env.idle()
        await _nothing_stored(env)


async def test_feishu_wrong_verification_token_is_refused(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, verification_token="another-token") as env:
        answer = await env.fake.say("alice", OPS, TASK)
        assert answer.status == 401 and "verification token" in answer.body["error"]
        assert await env.bot.deps.store.list_runs() == []


async def _post(env: FEnv, body: bytes, *, sign_it: bool = True) -> tuple[int, str]:
    stamp, nonce = str(int(time.time())), "n1"
    headers = {"X-Lark-Request-Timestamp": stamp, "X-Lark-Request-Nonce": nonce}
    if sign_it:
        headers["X-Lark-Signature"] = sign(stamp, nonce, ENCRYPT_KEY, body)
    async with aiohttp.ClientSession() as session:
        async with session.post(env.fake.events_url, data=body, headers=headers) as resp:
            return resp.status, await resp.text()


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"not json",
        b"[1, 2]",
        b'{"encrypt": 42}',
        b'{"encrypt": "%%% not base64"}',
        b'{"encrypt": "AAAA"}',
        b'{"type": "url_verification", "challenge": "x", "token": "tandem-local-verification-token"}',
        envelope({"schema": "2.0"}, ENCRYPT_KEY),
        envelope({"schema": "2.0", "header": {"event_id": "", "event_type": "im.message.receive_v1"}}, ENCRYPT_KEY),
        envelope({"schema": "2.0", "header": {"event_id": "e1", "event_type": "card.action.trigger"}}, ENCRYPT_KEY),
        envelope(
            {"schema": "2.0", "header": {"event_id": "e1", "event_type": "im.message.receive_v1"}, "event": 3},
            ENCRYPT_KEY,
        ),
        envelope([1, 2, 3], ENCRYPT_KEY),  # type: ignore[arg-type]
    ],
)
async def test_feishu_malformed_body_gets_a_4xx_never_a_500(tmp_path: Path, body: bytes) -> None:
    async with running_feishu(tmp_path) as env:
        status, answer = await _post(env, body)
        assert 400 <= status < 500, answer
        assert await env.bot.deps.store.list_runs() == []


async def test_feishu_url_verification_echoes_the_challenge_after_the_token(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        good = {"type": "url_verification", "challenge": "c-123", "token": VERIFICATION_TOKEN}
        answer = await env.fake.deliver(good, signed=False)
        assert answer.status == 200 and answer.body == {"challenge": "c-123"}
        bad = await env.fake.deliver({**good, "token": "guess"}, signed=False)
        assert bad.status == 401 and "challenge" not in bad.body


async def test_feishu_repeated_event_id_starts_one_run(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        event = env.fake.message_event("alice", OPS, TASK, event_id="ev-same")
        first, second = await env.fake.deliver(event), await env.fake.deliver(event)
        assert first.status == second.status == 200
        await env.wait(env.cards)
        await env.next_review(env.cards()[0])
        await env.idle()
        assert len(await env.bot.deps.store.list_runs()) == 1 and len(env.cards()) == 1


async def test_feishu_refused_click_stores_no_decision_and_keeps_the_buttons(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await _plan(env)
        answer = await env.fake.click("mallory", plan.message_id, "approve")
        assert answer.status == 200 and answer.body["toast"]["type"] == "error" and "card" not in answer.body
        assert "Nothing changed" in answer.body["toast"]["content"]
        await env.idle()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        events = await env.bot.deps.store.events(run_id)
        assert not [e for e in events if e.kind == "decided"]
        assert [e.actor for e in events if e.kind == "refused"] == ["ou_mallory"]
        assert "approve" in [v["action"] for v in button_values(plan.card)]
        assert env.reviews(root)[-1].message_id == plan.message_id


async def test_feishu_repeated_callback_applies_once(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await _plan(env)
        value = env.fake.button(plan.message_id, "approve")
        click = env.fake.click_event("alice", plan.message_id, value, event_id="cb-same")
        first, second = await env.fake.deliver(click), await env.fake.deliver(click)
        assert first.body["toast"]["type"] == "success" and second.body["toast"]["content"].startswith(
            "Already handled"
        )
        await env.next_review(root, after=plan)
        await env.idle()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert len([e for e in await env.bot.deps.store.events(run_id) if e.kind == "decided"]) == 1


async def test_feishu_unknown_or_foreign_button_is_told_not_applied(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await _plan(env)
        for value in ({"action": "approve", "review": "nope"}, {"action": "launch", "review": "x"}, {}):
            answer = await env.fake.deliver(env.fake.click_event("alice", plan.message_id, value))
            assert answer.status == 200 and answer.body["toast"]["type"] == "error"
        assert env.reviews(root)[-1].message_id == plan.message_id


async def test_feishu_text_cannot_approve_an_exec_gate(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, POLICY)) as env:
        root, plan = await _plan(env)
        await env.fake.click("alice", plan.message_id, "approve")
        gate = await env.next_review(root, after=plan)
        assert "exec" in text(gate)
        await env.fake.say("bob", OPS, "approved, go ahead", root_id=root.message_id, mention_bot=False)
        await env.wait(lambda: any(open_id == "ou_bob" for _, open_id, _ in env.fake.ephemerals))
        told = json.dumps([card for _, open_id, card in env.fake.ephemerals if open_id == "ou_bob"])
        assert "button" in told.lower()
        await env.idle()
        record = await env.bot.deps.store.get_review(str(env.fake.button(gate.message_id, "approve")["review"]))
        assert record is not None and record.status == "pending"
        assert env.reviews(root)[-1].message_id == gate.message_id


async def test_feishu_uncertain_resend_posts_one_message(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await _plan(env)
        await env.idle()
        run_id = (await env.bot.deps.store.list_runs())[0].id
        row = Delivery(
            id=10_000,
            run_id=run_id,
            channel="feishu",
            message=NewsLine(text="disk is at 91%"),
            status="pending",
            created_at=0.0,
            next_at=0.0,
        )
        before = len(env.fake.thread(root.message_id))
        await env.bot.deps.channel.send(row, uncertain=False)
        await env.bot.deps.channel.send(row, uncertain=True)  # the first answer was lost: sent again
        notes = [m for m in env.fake.thread(root.message_id) if "disk is at 91%" in text(m)]
        assert len(notes) == 1 and len(env.fake.thread(root.message_id)) == before + 1


async def test_feishu_expired_token_is_renewed_and_the_card_still_goes_out(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await _plan(env)
        issued = set(env.fake.tokens)
        env.fake.tokens.clear()  # Feishu revoked every token the bot holds
        await env.fake.click("alice", plan.message_id, "approve")
        await env.next_review(root, after=plan)
        assert env.fake.tokens and not env.fake.tokens & issued


async def test_feishu_rate_limited_reply_is_retried_and_arrives(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        env.fake.failures.append(("/reply", 429, 99991400))
        root, plan = await _plan(env)
        assert "restart_service" in text(plan)
        assert not env.fake.failures, "the injected failure was hit"
        await env.idle()  # the reply shows before its row is marked sent
        run_id = (await env.bot.deps.store.list_runs())[0].id
        assert await env.bot.deps.store.undelivered(run_id) == []


async def test_feishu_permanent_failure_is_not_retried_and_shows(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        # the bot is not in the chat: the review is refused as a card, a shorter card and text alike
        env.fake.failures += [("/reply", 400, 230002)] * 3
        await env.fake.say("alice", OPS, TASK)
        await env.wait(env.cards)
        await env.wait(env.cards)
        root = env.cards()[0]
        await env.wait(lambda: "could not be delivered" in text(root))  # the run card says so
        run_id = (await env.bot.deps.store.list_runs())[0].id
        failed = await env.bot.deps.store.undelivered(run_id)
        assert len(failed) == 1 and failed[0].attempts == 1 and "230002" in (failed[0].error or "")
