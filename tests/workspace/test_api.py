from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from workspace import BOT_ID, BOT_USER_ID, TEAM_ID, Workspace

SECTION = {"type": "section", "text": {"type": "mrkdwn", "text": "*hi*"}}
MODAL = {
    "type": "modal",
    "callback_id": "request",
    "title": {"type": "plain_text", "text": "Request"},
    "submit": {"type": "plain_text", "text": "Send"},
    "blocks": [
        {
            "type": "input",
            "block_id": "reason",
            "label": {"type": "plain_text", "text": "Reason"},
            "element": {"type": "plain_text_input", "action_id": "text"},
        }
    ],
}


def test_api_url_has_trailing_slash_and_binds_localhost(ws: Workspace) -> None:
    assert ws.api_url.startswith("http://127.0.0.1:")
    assert ws.api_url.endswith("/api/")


async def test_auth_test_valid_token_returns_bot_identity(client: AsyncWebClient) -> None:
    response = await client.auth_test()

    assert response["ok"] is True
    assert (response["team_id"], response["user_id"], response["bot_id"]) == (TEAM_ID, BOT_USER_ID, BOT_ID)
    assert response["user"] == "tandem"
    assert response["url"].startswith("https://")


@pytest.mark.parametrize(("token", "error"), [("xoxb-wrong", "invalid_auth"), (None, "not_authed")])
async def test_api_bad_or_missing_token_is_refused(ws: Workspace, token: str | None, error: str) -> None:
    client = AsyncWebClient(token=token, base_url=ws.api_url)

    with pytest.raises(SlackApiError, match=error):
        await client.chat_postMessage(channel="C0OPS", text="hi")
    assert ws.state.history("C0OPS") == []


async def test_api_unknown_method_returns_unknown_method(client: AsyncWebClient, ws: Workspace) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.api_call("chat.frobnicate", json={"channel": "C0OPS"})

    assert raised.value.response["error"] == "unknown_method"
    assert ws.state.calls[-1].method == "chat.frobnicate"
    assert ws.state.calls[-1].ok is False


async def test_post_message_json_body_is_stored_and_logged(client: AsyncWebClient, ws: Workspace) -> None:
    response = await client.chat_postMessage(channel="#ops", text="hello", blocks=[SECTION])

    assert response["channel"] == "C0OPS"
    assert response["message"]["bot_id"] == BOT_ID
    stored = ws.state.message("C0OPS", response["ts"])
    assert (stored.text, stored.blocks) == ("hello", [SECTION])
    call = ws.state.calls_to("chat.postMessage")[0]
    assert call.ok and call.params == {"channel": "#ops", "text": "hello", "blocks": [SECTION]}


async def test_post_message_form_body_decodes_blocks(client: AsyncWebClient, ws: Workspace) -> None:
    response = await client.api_call(
        "chat.postMessage", data={"channel": "C0OPS", "text": "form", "blocks": json.dumps([SECTION])}
    )

    assert ws.state.message("C0OPS", response["ts"]).blocks == [SECTION]


async def test_post_message_timestamps_are_unique_and_increasing(client: AsyncWebClient) -> None:
    stamps = [(await client.chat_postMessage(channel="C0OPS", text=str(i)))["ts"] for i in range(5)]

    assert stamps == sorted(stamps, key=float)
    assert len(set(stamps)) == 5
    assert all(len(ts.split(".")[1]) == 6 for ts in stamps)


async def test_post_message_in_thread_appears_in_replies(client: AsyncWebClient) -> None:
    parent = await client.chat_postMessage(channel="C0OPS", text="run started")
    await client.chat_postMessage(channel="C0OPS", text="step 1", thread_ts=parent["ts"])
    await client.chat_postMessage(channel="C0OPS", text="step 2", thread_ts=parent["ts"])

    replies = await client.conversations_replies(channel="C0OPS", ts=parent["ts"])

    texts = [m["text"] for m in replies["messages"]]
    assert texts == ["run started", "step 1", "step 2"]
    assert replies["messages"][0]["reply_count"] == 2
    assert all(m["thread_ts"] == parent["ts"] for m in replies["messages"])


async def test_chat_update_changes_text_keeps_blocks_and_marks_edited(client: AsyncWebClient, ws: Workspace) -> None:
    posted = await client.chat_postMessage(channel="C0OPS", text="before", blocks=[SECTION])

    updated = await client.chat_update(channel="C0OPS", ts=posted["ts"], text="after")

    assert updated["ts"] == posted["ts"]
    stored = ws.state.message("C0OPS", posted["ts"])
    assert (stored.text, stored.blocks) == ("after", [SECTION])
    assert stored.edited is not None and stored.edited["user"] == BOT_USER_ID


@pytest.mark.parametrize(
    ("method", "kwargs", "error"),
    [
        ("chat_postMessage", {"channel": "C0NOPE", "text": "x"}, "channel_not_found"),
        ("chat_postMessage", {"channel": "C0OPS", "text": "x" * 40_001}, "msg_too_long"),
        ("chat_update", {"channel": "C0OPS", "ts": "1.000001", "text": "x"}, "message_not_found"),
        ("chat_delete", {"channel": "C0OPS", "ts": "1.000001"}, "message_not_found"),
        ("chat_postEphemeral", {"channel": "C0OPS", "user": "U0NOBODY", "text": "x"}, "user_not_found"),
        ("users_info", {"user": "U0NOBODY"}, "user_not_found"),
        ("conversations_info", {"channel": "C0NOPE"}, "channel_not_found"),
        ("conversations_replies", {"channel": "C0OPS", "ts": "1.000001"}, "thread_not_found"),
    ],
)
async def test_api_bad_arguments_fail_like_slack(
    client: AsyncWebClient, method: str, kwargs: dict[str, Any], error: str
) -> None:
    with pytest.raises(SlackApiError) as raised:
        await getattr(client, method)(**kwargs)

    assert raised.value.response["error"] == error


async def test_post_message_blocks_carrying_too_much_text_msg_blocks_too_long(client: AsyncWebClient) -> None:
    sections = [{"type": "section", "text": {"type": "mrkdwn", "text": "s" * 2900}}] * 5
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C0OPS", text="x", blocks=sections)

    assert raised.value.response["error"] == "msg_blocks_too_long"


async def test_post_message_without_text_or_blocks_no_text(client: AsyncWebClient) -> None:
    # api_call directly: chat_postMessage itself warns before sending a message without text.
    with pytest.raises(SlackApiError, match="no_text"):
        await client.api_call("chat.postMessage", json={"channel": "C0OPS"})


@pytest.mark.parametrize(
    "blocks",
    [
        [{"type": "section"}],
        [{"type": "no_such_block"}],
        [{**SECTION, "colour": "red"}],
        [SECTION] * 51,
        ["not a block"],
        [{"type": "markdown", "text": "m" * 7000}] * 2,
    ],
    ids=["section-without-text", "unknown-type", "unknown-field", "51-blocks", "not-an-object", "markdown-over-12000"],
)
async def test_post_message_invalid_blocks_rejected(client: AsyncWebClient, ws: Workspace, blocks: list[Any]) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C0OPS", text="x", blocks=blocks)

    assert raised.value.response["error"] == "invalid_blocks"
    assert ws.state.history("C0OPS") == []


TEXT_CELL = {"type": "raw_text", "text": "Runs"}
NUMBER_CELL = {"type": "raw_number", "value": 4, "text": "4"}
DATA_TABLE = {"type": "data_table", "caption": "Figures", "rows": [[TEXT_CELL, TEXT_CELL], [TEXT_CELL, NUMBER_CELL]]}


async def test_post_message_data_table_accepted_as_sent(client: AsyncWebClient, ws: Workspace) -> None:
    await client.chat_postMessage(channel="C0OPS", text="x", blocks=[{**DATA_TABLE, "page_size": 1}])

    assert ws.state.history("C0OPS")[0].blocks == [{**DATA_TABLE, "page_size": 1}]


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({**DATA_TABLE, "caption": ""}, "needs a caption"),
        ({**DATA_TABLE, "rows": [[TEXT_CELL]]}, "a header row and 1 to 100 rows"),
        ({**DATA_TABLE, "rows": [[TEXT_CELL, TEXT_CELL], [TEXT_CELL]]}, "same number of cells"),
        ({**DATA_TABLE, "rows": [[TEXT_CELL, NUMBER_CELL], [TEXT_CELL, {**NUMBER_CELL, "value": "4"}]]}, "raw_number"),
        (
            {**DATA_TABLE, "rows": [[TEXT_CELL, {"type": "rich_text", "elements": []}], [TEXT_CELL, TEXT_CELL]]},
            "header",
        ),
        ({**DATA_TABLE, "page_size": 0}, "page_size"),
        ({**DATA_TABLE, "sortable": True}, "unknown field: sortable"),
    ],
    ids=["no-caption", "header-only", "ragged", "number-as-string", "rich-text-header", "page-size-0", "unknown-field"],
)
async def test_post_message_malformed_data_table_refused_saying_why(
    client: AsyncWebClient, ws: Workspace, table: dict[str, Any], problem: str
) -> None:
    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C0OPS", text="x", blocks=[table])

    assert raised.value.response["error"] == "invalid_blocks"
    assert problem in raised.value.response["errors"][0]
    assert ws.state.history("C0OPS") == []


async def test_post_ephemeral_is_kept_per_user_not_in_channel(client: AsyncWebClient, ws: Workspace) -> None:
    response = await client.chat_postEphemeral(channel="C0OPS", user="U0ALICE", text="only you")

    assert [e.text for e in ws.state.ephemerals_for("alice")] == ["only you"]
    assert ws.state.ephemerals_for("bob") == []
    assert ws.state.ephemerals[0].ts == response["message_ts"]
    assert ws.state.history("C0OPS") == []


async def test_chat_delete_removes_message(client: AsyncWebClient, ws: Workspace) -> None:
    posted = await client.chat_postMessage(channel="C0OPS", text="oops")

    await client.chat_delete(channel="C0OPS", ts=posted["ts"])

    assert ws.state.find_message("C0OPS", posted["ts"]) is None


async def test_users_and_conversations_info_describe_demo_workspace(client: AsyncWebClient) -> None:
    user = await client.users_info(user="U0BOB")
    channel = await client.conversations_info(channel="C0OPS")

    assert user["user"]["name"] == "bob"
    assert channel["channel"]["name"] == "ops"


async def test_views_open_fresh_trigger_opens_modal(client: AsyncWebClient, ws: Workspace) -> None:
    trigger = ws.state.issue_trigger("alice")

    response = await client.views_open(trigger_id=trigger, view=MODAL)

    view = ws.state.view(response["view"]["id"])
    assert view.user == "U0ALICE" and view.callback_id == "request"
    assert [v.id for v in ws.state.open_modals("alice")] == [view.id]
    assert response["view"]["hash"] == view.hash


@pytest.mark.parametrize(
    ("age", "reuse", "error"),
    [(3.5, False, "expired_trigger_id"), (0.0, True, "exchanged_trigger_id")],
)
async def test_views_open_stale_or_used_trigger_rejected(
    client: AsyncWebClient, ws: Workspace, age: float, reuse: bool, error: str
) -> None:
    trigger = ws.state.issue_trigger("alice")
    if reuse:
        await client.views_open(trigger_id=trigger, view=MODAL)
    ws.state.advance(age)

    with pytest.raises(SlackApiError) as raised:
        await client.views_open(trigger_id=trigger, view=MODAL)

    assert raised.value.response["error"] == error


async def test_views_open_unknown_trigger_invalid(client: AsyncWebClient) -> None:
    with pytest.raises(SlackApiError, match="invalid_trigger_id"):
        await client.views_open(trigger_id="123.456.abc", view=MODAL)


async def test_views_open_invalid_view_rejected(client: AsyncWebClient, ws: Workspace) -> None:
    bad = {**MODAL, "title": {"type": "plain_text", "text": "x" * 30}}

    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.views_open(trigger_id=ws.state.issue_trigger("alice"), view=bad)


async def test_views_update_stale_hash_conflicts(client: AsyncWebClient, ws: Workspace) -> None:
    opened = await client.views_open(trigger_id=ws.state.issue_trigger("alice"), view=MODAL)
    view_id, first_hash = opened["view"]["id"], opened["view"]["hash"]
    await client.views_update(view_id=view_id, hash=first_hash, view={**MODAL, "callback_id": "v2"})

    with pytest.raises(SlackApiError, match="hash_conflict"):
        await client.views_update(view_id=view_id, hash=first_hash, view=MODAL)
    assert ws.state.view(view_id).callback_id == "v2"


async def test_views_push_stacks_up_to_three(client: AsyncWebClient, ws: Workspace) -> None:
    await client.views_open(trigger_id=ws.state.issue_trigger("bob"), view=MODAL)
    second = await client.views_push(trigger_id=ws.state.issue_trigger("bob"), view=MODAL)
    await client.views_push(trigger_id=ws.state.issue_trigger("bob"), view=MODAL)

    with pytest.raises(SlackApiError, match="push_limit_reached"):
        await client.views_push(trigger_id=ws.state.issue_trigger("bob"), view=MODAL)
    stack = ws.state.open_modals("bob")
    assert len(stack) == 3
    assert second["view"]["root_view_id"] == stack[0].id


async def test_views_publish_sets_and_replaces_home(client: AsyncWebClient, ws: Workspace) -> None:
    home = {"type": "home", "blocks": [SECTION]}

    first = await client.views_publish(user_id="U0ALICE", view=home)
    second = await client.views_publish(user_id="U0ALICE", view={**home, "blocks": [SECTION, SECTION]})

    assert first["view"]["id"] == second["view"]["id"]
    view = ws.state.home_view("alice")
    assert view is not None and len(view.blocks) == 2


async def test_fail_next_returns_ratelimited_once(client: AsyncWebClient, ws: Workspace) -> None:
    ws.state.fail_next("chat.postMessage", retry_after=7)

    with pytest.raises(SlackApiError) as raised:
        await client.chat_postMessage(channel="C0OPS", text="x")
    await client.chat_postMessage(channel="C0OPS", text="again")

    assert raised.value.response.status_code == 429
    assert raised.value.response.headers["Retry-After"] == "7"
    assert raised.value.response["error"] == "ratelimited"
    assert [c.ok for c in ws.state.calls_to("chat.postMessage")] == [False, True]


async def test_response_url_unknown_hook_is_404(ws: Workspace) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.post(f"{ws.base_url}/response/HNOPE", json={"text": "x"}) as response:
            assert response.status == 404
            assert (await response.json())["error"] == "no_active_hooks"


async def test_latency_set_every_call_waits_before_the_message_is_posted(client: AsyncWebClient, ws: Workspace) -> None:
    ws.state.latency = 0.3
    began = time.monotonic()
    posting = asyncio.create_task(client.chat_postMessage(channel="C0OPS", text="slow"))
    second = asyncio.create_task(client.chat_postMessage(channel="C0OPS", text="side by side"))
    await asyncio.sleep(0.05)
    assert ws.state.messages["C0OPS"] == [], "posted before its latency"

    await asyncio.gather(posting, second)

    took = time.monotonic() - began
    assert 0.3 <= took < 0.55, f"two calls took {took:.2f} s: they should wait side by side"
    assert sorted(m.text for m in ws.state.messages["C0OPS"]) == ["side by side", "slow"]
