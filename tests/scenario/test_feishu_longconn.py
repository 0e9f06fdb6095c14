"""Feishu's long connection: lark-oapi's real WebSocket client against the fake's WebSocket on 127.0.0.1.

The same checks as the webhook's, from the other transport: re-pushed events claimed once, a
callback from another tenant refused, a button that is not Tandem's answered with a toast (never
nothing), a dropped connection re-opened, and the SDK's module-level loop taken at import by the
bot's own running loop (the case that breaks lark-oapi inside asyncio apps).
"""

from __future__ import annotations

import asyncio
import base64
import json
from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu
from tests.scenario.harness import policy_file
from workspace import feishu_frames as frames

POLICY = '[approvers]\nexec = ["ou_bob"]\n'
TASK = "restart payments and check errors after"


async def _plan(env: FEnv) -> None:
    await env.fake.say("alice", OPS, TASK)
    await env.wait(env.cards)
    await env.next_review(env.cards()[0])


async def test_feishu_ws_repushed_event_is_acknowledged_and_starts_one_run(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, "ws") as env:
        event = env.fake.message_event("alice", OPS, TASK, event_id="ev-pushed-twice")
        first = await env.fake.deliver(event)
        second = await env.fake.deliver(event)
        assert first.status == 200 and second.status == 200
        await env.wait(env.cards)
        await env.next_review(env.cards()[0])
        await env.idle()
        assert len(await env.bot.deps.store.list_runs()) == 1 and len(env.cards()) == 1


async def test_feishu_ws_click_from_another_tenant_gets_an_error_toast_and_changes_nothing(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, "ws", config=policy_file(tmp_path, POLICY)) as env:
        await _plan(env)
        plan = env.reviews(env.cards()[0])[-1]
        value = env.fake.button(plan.message_id, "approve")
        answer = await env.fake.deliver(
            env.fake.click_event("alice", plan.message_id, value, tenant="tenant-elsewhere")
        )
        assert answer.status == 200 and answer.body["toast"]["type"] == "error" and "card" not in answer.body
        assert "not from Tandem's workspace" in answer.body["toast"]["content"]
        record = await env.bot.deps.store.get_review(str(value["review"]))
        assert record is not None and record.status == "pending"


async def test_feishu_ws_foreign_button_and_repeated_click_are_answered_with_a_toast(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, "ws") as env:
        await _plan(env)
        plan = env.reviews(env.cards()[0])[-1]
        foreign = await env.fake.deliver(env.fake.click_event("alice", plan.message_id, {"action": "launch"}))
        assert foreign.status == 200 and foreign.body["toast"]["type"] == "error"
        assert "not one of Tandem's" in foreign.body["toast"]["content"]
        click = env.fake.click_event("alice", plan.message_id, env.fake.button(plan.message_id, "approve"))
        applied = await env.fake.deliver(click)
        repeated = await env.fake.deliver(click)
        assert applied.body["card"]["type"] == "raw"
        assert repeated.status == 200 and repeated.body["toast"]["type"] == "info" and "card" not in repeated.body


async def test_feishu_ws_dropped_connection_is_reopened_and_events_flow_again(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, "ws") as env:
        await env.fake.close_connection()
        await env.wait(lambda: env.fake.connections == 2, within=30)
        await _plan(env)


async def test_feishu_ws_works_when_the_sdk_took_the_bots_running_loop_at_import(tmp_path: Path) -> None:
    import lark_oapi.ws.client as sdk_ws

    sdk_ws.loop = asyncio.get_running_loop()  # what importing lark-oapi inside an asyncio app leaves behind
    async with running_feishu(tmp_path, "ws") as env:
        await _plan(env)
        assert sdk_ws.loop is not asyncio.get_running_loop()


def test_feishu_frames_written_by_the_fake_read_the_same_with_the_sdks_protobuf() -> None:
    from lark_oapi.ws.pb.pbbp2_pb2 import Frame

    payload = json.dumps({"schema": "2.0", "header": {"event_id": "é"}}).encode()
    headers = {"type": "event", "message_id": "m1", "sum": "1", "seq": "0", "trace_id": "t"}
    written = frames.encode(frames.Frame(method=frames.DATA, headers=headers, payload=payload, service=7))
    parsed = Frame()
    parsed.ParseFromString(written)
    assert (parsed.method, parsed.service, parsed.payload) == (1, 7, payload)
    assert {h.key: h.value for h in parsed.headers} == headers

    parsed.payload = json.dumps({"code": 200, "data": base64.b64encode(b"{}").decode()}).encode()
    back = frames.decode(parsed.SerializeToString())
    assert back.headers == headers and json.loads(back.payload)["code"] == 200
