"""chat.startStream / appendStream / stopStream on the local workspace: a thread reply whose Markdown grows,
then ends with blocks under it; what Slack refuses, refused."""

from __future__ import annotations

import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from workspace import Workspace

DONE = {"type": "context", "elements": [{"type": "mrkdwn", "text": "✅ Done."}]}
READER = {"recipient_user_id": "U0ALICE", "recipient_team_id": "T0TANDEM"}


async def test_stream_grows_one_thread_reply_then_ends_with_its_blocks(client: AsyncWebClient, ws: Workspace) -> None:
    parent = ws.state.add_message("C0OPS", user="U0ALICE", text="restart payments")
    started = await client.chat_startStream(channel="C0OPS", thread_ts=parent.ts, markdown_text="**Done:** ", **READER)
    ts = started["ts"]
    await client.chat_appendStream(channel="C0OPS", ts=ts, markdown_text="restarted payments.")
    reply = ws.state.message("C0OPS", ts)
    assert (reply.thread_ts, reply.streaming, reply.text) == (parent.ts, True, "**Done:** restarted payments.")

    meta = {"event_type": "tandem_delivery", "event_payload": {"delivery": 7}}
    await client.chat_stopStream(channel="C0OPS", ts=ts, blocks=[DONE], metadata=meta)

    assert reply.blocks == [{"type": "markdown", "text": "**Done:** restarted payments."}, DONE]
    assert (reply.streaming, reply.metadata) == (False, meta)
    with pytest.raises(SlackApiError, match="message_not_in_streaming_state"):
        await client.chat_appendStream(channel="C0OPS", ts=ts, markdown_text="more")


async def test_stream_in_a_channel_without_its_reader_is_refused(client: AsyncWebClient, ws: Workspace) -> None:
    parent = ws.state.add_message("C0OPS", user="U0ALICE", text="restart payments")
    with pytest.raises(SlackApiError, match="invalid_arguments"):
        await client.chat_startStream(channel="C0OPS", thread_ts=parent.ts, markdown_text="hi")
    assert [m.ts for m in ws.state.history("C0OPS")] == [parent.ts]
