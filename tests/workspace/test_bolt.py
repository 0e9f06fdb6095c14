"""The workspace drives a real slack_bolt AsyncApp over HTTP, signed like Slack."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from tests.workspace.bolt_bot import Seen, build_bot, home
from workspace import BOT_USER_ID, ScenarioError, Workspace, serve
from workspace.transport import Forgery


@pytest.fixture
async def seen(ws: Workspace) -> AsyncIterator[Seen]:
    record = Seen()
    async with serve(build_bot(ws, record).web_app(path="/slack/events")) as bot_url:
        assert bot_url.startswith("http://127.0.0.1:")
        ws.events_url = f"{bot_url}/slack/events"
        yield record


async def _plan_message(ws: Workspace) -> str:
    await ws.slash_command("alice", "#ops", "restart web")
    await ws.wait_for_call("chat.postMessage")
    return ws.state.history("C0OPS")[-1].ts


async def test_slash_command_signed_request_reaches_handler_and_posts_plan(ws: Workspace, seen: Seen) -> None:
    delivery = await ws.slash_command("alice", "#ops", "restart web")

    assert (delivery.status, delivery.body) == (200, "")
    command = seen.commands[0]
    assert (command["user_id"], command["channel_id"], command["command"]) == ("U0ALICE", "C0OPS", "/tandem")
    assert command["text"] == "restart web"
    assert command["response_url"].startswith(ws.base_url)
    call = await ws.wait_for_call("chat.postMessage")
    assert call.ok
    assert [m.text for m in ws.state.history("#ops")] == ["plan: restart web"]


async def test_slash_command_trigger_opens_modal_for_invoker(ws: Workspace, seen: Seen) -> None:
    await ws.slash_command("alice", "#ops", "form")

    call = await ws.wait_for_call("views.open")

    assert call.ok, call.error
    assert [v.callback_id for v in ws.state.open_modals("alice")] == ["request"]


async def test_slash_command_ack_text_becomes_ephemeral(ws: Workspace, seen: Seen) -> None:
    delivery = await ws.slash_command("bob", "#ops", "quick")

    assert delivery.body == "on it"  # bolt answers ack(text=...) with text/plain
    assert [e.text for e in ws.state.ephemerals_for("bob")] == ["on it"]
    assert ws.state.history("C0OPS") == []


async def test_click_button_reaches_action_handler_and_updates_message(ws: Workspace, seen: Seen) -> None:
    ts = await _plan_message(ws)

    delivery = await ws.click("bob", "#ops", ts, "approve")

    assert delivery.status == 200
    action = seen.actions[0]
    assert action["type"] == "block_actions"
    assert action["actions"][0] | {"action_ts": "-"} == {
        "action_id": "approve",
        "block_id": "review",
        "type": "button",
        "value": "run-1",
        "text": {"type": "plain_text", "text": "Approve"},
        "style": "primary",
        "action_ts": "-",
    }
    assert action["container"] == {"type": "message", "message_ts": ts, "channel_id": "C0OPS", "is_ephemeral": False}
    assert action["message"]["ts"] == ts and action["user"]["id"] == "U0BOB"
    await ws.wait_for_call("chat.update")
    message = ws.state.message("C0OPS", ts)
    assert (message.text, message.blocks) == ("approved by <@U0BOB>", [])


async def test_click_respond_replace_original_rewrites_message(ws: Workspace, seen: Seen) -> None:
    ts = await _plan_message(ws)

    await ws.click("carol", "#ops", ts, "reject")
    call = await ws.wait_for_call("response_url")

    assert call.params["replace_original"] is True
    assert ws.state.message("C0OPS", ts).text == "rejected"


async def test_click_missing_button_raises_scenario_error(ws: Workspace, seen: Seen) -> None:
    ts = await _plan_message(ws)

    with pytest.raises(ScenarioError, match="no element with action_id 'deploy'"):
        await ws.click("bob", "#ops", ts, "deploy")
    assert seen.actions == []


async def _open_form(ws: Workspace) -> str:
    await ws.slash_command("alice", "#ops", "form")
    call = await ws.wait_for_call("views.open")
    assert call.ok, call.error
    return ws.state.open_modals("alice")[-1].id


async def test_submit_view_short_reason_shows_errors_and_keeps_modal_open(ws: Workspace, seen: Seen) -> None:
    view_id = await _open_form(ws)

    delivery = await ws.submit_view("alice", view_id, {"reason": "no"})

    assert delivery.reply() == {"response_action": "errors", "errors": {"reason": "Say a bit more"}}
    assert ws.state.view(view_id).errors == {"reason": "Say a bit more"}
    assert [v.id for v in ws.state.open_modals("alice")] == [view_id]


async def test_submit_view_valid_closes_modal_and_handler_posts(ws: Workspace, seen: Seen) -> None:
    view_id = await _open_form(ws)

    delivery = await ws.submit_view("alice", view_id, {"text": "need more disk"})

    assert (delivery.status, delivery.error) == (200, None)
    submitted = seen.submissions[0]
    assert submitted["type"] == "view_submission"
    assert submitted["view"]["private_metadata"] == "run-1"
    assert submitted["view"]["state"]["values"] == {
        "reason": {"text": {"type": "plain_text_input", "value": "need more disk"}}
    }
    assert ws.state.open_modals("alice") == []
    await ws.wait_for_call("chat.postMessage")
    assert ws.state.history("C0OPS")[-1].text == "request: need more disk"


async def test_submit_view_empty_required_input_raises_scenario_error(ws: Workspace, seen: Seen) -> None:
    view_id = await _open_form(ws)

    with pytest.raises(ScenarioError, match="required"):
        await ws.submit_view("alice", view_id, {})
    assert seen.submissions == []


async def test_reply_in_thread_delivers_message_event_and_bot_replies(ws: Workspace, seen: Seen) -> None:
    ts = await _plan_message(ws)

    delivery = await ws.reply_in_thread("bob", "#ops", ts, "looks good")

    assert delivery.status == 200
    body, _ = seen.events[0]
    assert body["type"] == "event_callback" and body["event_id"] == delivery.event_id
    event = body["event"]
    assert (event["type"], event["user"], event["thread_ts"], event["text"]) == ("message", "U0BOB", ts, "looks good")
    assert event["parent_user_id"] == BOT_USER_ID
    await ws.wait_for_call("chat.postMessage", count=2)
    assert [m.text for m in ws.state.thread("C0OPS", ts)] == ["plan: restart web", "looks good", "noted"]


async def test_mention_delivers_message_then_app_mention_and_bot_answers_in_thread(ws: Workspace, seen: Seen) -> None:
    delivery = await ws.mention("carol", "#general", "status?")

    assert [body["event"]["type"] for body, _ in seen.events] == ["message", "app_mention"]
    assert {body["event"]["ts"] for body, _ in seen.events} == {delivery.sent["event"]["ts"]}
    body, _ = seen.events[1]
    assert body["event"]["text"] == f"<@{BOT_USER_ID}> status?"
    await ws.wait_for_call("chat.postMessage")
    mention_ts = delivery.sent["event"]["ts"]
    assert [m.text for m in ws.state.thread("C0GENERAL", mention_ts)][-1] == "hello"


@pytest.mark.parametrize("forge", ["bad_signature", "stale_timestamp", "unsigned"])
async def test_forged_request_is_rejected_401(ws: Workspace, seen: Seen, forge: Forgery) -> None:
    delivery = await ws.slash_command("alice", "#ops", "restart web", forge=forge)

    assert delivery.status == 401
    assert seen.commands == []


async def test_event_retry_reuses_event_id_with_retry_headers(ws: Workspace, seen: Seen) -> None:
    ts = await _plan_message(ws)
    first = await ws.reply_in_thread("bob", "#ops", ts, "again?")

    second = await ws.retry(first, retry_num=1, reason="http_timeout")

    assert (first.status, second.status) == (200, 200)
    (body1, headers1), (body2, headers2) = seen.events
    assert body1["event_id"] == body2["event_id"] == first.event_id
    assert "x-slack-retry-num" not in headers1
    assert (headers2["x-slack-retry-num"], headers2["x-slack-retry-reason"]) == (["1"], ["http_timeout"])


async def test_click_on_ephemeral_sends_ephemeral_container_and_delete_removes_it(ws: Workspace, seen: Seen) -> None:
    dismiss = {"type": "button", "action_id": "dismiss", "text": {"type": "plain_text", "text": "OK"}, "value": "x"}
    blocks = [{"type": "actions", "block_id": "b", "elements": [dismiss]}]
    client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    posted = await client.chat_postEphemeral(channel="C0OPS", user="U0ALICE", text="heads up", blocks=blocks)

    await ws.click("alice", "#ops", posted["message_ts"], "dismiss")
    await ws.wait_for_call("response_url")

    container = seen.actions[0]["container"]
    assert container["is_ephemeral"] is True and "message" not in seen.actions[0]
    assert ws.state.ephemerals_for("alice") == []


async def test_click_in_home_view_sends_view_container_and_bot_republishes(ws: Workspace, seen: Seen) -> None:
    client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    view_id = (await client.views_publish(user_id="U0BOB", view=home("hello")))["view"]["id"]

    await ws.click_in_view("bob", view_id, "refresh")
    await ws.wait_for_call("views.publish", count=2)

    action = seen.actions[0]
    assert action["container"] == {"type": "view", "view_id": view_id}
    assert action["view"]["type"] == "home" and action["actions"][0]["block_id"] == "top"
    view = ws.state.home_view("bob")
    assert view is not None and view.blocks[0]["text"]["text"] == "refreshed 1"
