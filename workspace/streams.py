"""Streaming a message (2026): ``chat.startStream``, ``chat.appendStream``, ``chat.stopStream``.

A stream is a bot's thread reply whose Markdown grows while it is written: start posts it (with its first
text, if any), each append adds text to it, and stop ends it, optionally with more text, blocks below the
text and metadata. Outside a DM, Slack needs the person it streams to (``recipient_user_id`` and
``recipient_team_id``). The text is kept as one ``markdown`` block, as the page draws it; a stopped stream
takes no more text (``message_not_in_streaming_state``).
"""

from __future__ import annotations

from typing import Any

from workspace.chat import bot_message
from workspace.errors import SlackFailure
from workspace.models import BOT_ID, BOT_USER_ID, MAX_MARKDOWN_TOTAL, Message
from workspace.params import Params
from workspace.state import WorkspaceState

Result = dict[str, Any]


def start_stream(state: WorkspaceState, params: Params) -> Result:
    channel = state.channel(params.required("channel", error="channel_not_found"))
    thread_ts = params.optional("thread_ts")
    if not channel.is_im and not (params.optional("recipient_user_id") and params.optional("recipient_team_id")):
        raise SlackFailure("invalid_arguments", response_metadata={"messages": ["[ERROR] missing recipient"]})
    if thread_ts is not None and state.find_message(channel.id, thread_ts) is None:
        raise SlackFailure("thread_not_found")
    text = _markdown(params, "")
    message = state.add_message(
        channel.id, user=BOT_USER_ID, bot_id=BOT_ID, text=text, blocks=_blocks(text), thread_ts=thread_ts
    )
    message.streaming = True
    return {"channel": channel.id, "ts": message.ts}


def append_stream(state: WorkspaceState, params: Params) -> Result:
    message = _streaming(state, params)
    added = params.required("markdown_text")
    _grow(message, _markdown(params, message.text, added))
    return {"channel": message.channel, "ts": message.ts}


def stop_stream(state: WorkspaceState, params: Params) -> Result:
    message = _streaming(state, params)
    if params.optional("markdown_text"):
        _grow(message, _markdown(params, message.text))
    below = params.message_blocks() if "blocks" in params.values else []
    message.blocks = [*_blocks(message.text), *below]
    metadata = params.structured("metadata")
    if metadata:
        message.metadata = metadata
    message.streaming = False
    return {"channel": message.channel, "ts": message.ts, "message": message.to_slack()}


def _streaming(state: WorkspaceState, params: Params) -> Message:
    message = bot_message(state, params)
    if not message.streaming:
        raise SlackFailure("message_not_in_streaming_state")
    return message


def _markdown(params: Params, so_far: str, added: str | None = None) -> str:
    """The stream's text with this call's ``markdown_text`` added (Markdown, at most 12,000 characters)."""
    text = so_far + (added if added is not None else params.optional("markdown_text") or "")
    if len(text) > MAX_MARKDOWN_TOTAL:
        raise SlackFailure("msg_too_long")
    return text


def _grow(message: Message, text: str) -> None:
    message.text = text
    message.blocks = [*_blocks(text), *(b for b in message.blocks if b.get("type") != "markdown")]


def _blocks(text: str) -> list[dict[str, Any]]:
    return [{"type": "markdown", "text": text}] if text else []
