"""Web API methods about identity, messages and conversations, plus response_url posts.

Each method is ``(state, params) -> dict``: synchronous, raising
:class:`~workspace.errors.SlackFailure` for Slack's error codes. The API layer
adds ``"ok": true``.
"""

from __future__ import annotations

from typing import Any

from workspace.errors import SlackFailure
from workspace.models import (
    BOT_ID,
    BOT_NAME,
    BOT_USER_ID,
    TEAM_DOMAIN,
    TEAM_ID,
    TEAM_NAME,
    Hook,
    Message,
)
from workspace.params import Params
from workspace.state import WorkspaceState

Result = dict[str, Any]


def auth_test(state: WorkspaceState, params: Params) -> Result:
    return {
        "url": f"https://{TEAM_DOMAIN}.slack.com/",
        "team": TEAM_NAME,
        "user": BOT_NAME,
        "team_id": TEAM_ID,
        "user_id": BOT_USER_ID,
        "bot_id": BOT_ID,
        "is_enterprise_install": False,
    }


def post_message(state: WorkspaceState, params: Params) -> Result:
    channel = state.channel(params.required("channel", error="channel_not_found"))
    blocks = params.message_blocks()
    text = params.text()
    if not text and not blocks:
        raise SlackFailure("no_text")
    message = state.add_message(
        channel.id,
        user=BOT_USER_ID,
        bot_id=BOT_ID,
        text=text,
        blocks=blocks,
        thread_ts=params.optional("thread_ts"),
        metadata=params.structured("metadata"),
    )
    return {"channel": channel.id, "ts": message.ts, "message": message.to_slack()}


def bot_message(state: WorkspaceState, params: Params) -> Message:
    """The bot's own message that ``channel`` and ``ts`` name (no other may be changed)."""
    channel = state.channel(params.required("channel", error="channel_not_found"))
    message = state.message(channel.id, params.required("ts", error="message_not_found"))
    if message.bot_id != BOT_ID:
        raise SlackFailure("cant_update_message")
    return message


def update(state: WorkspaceState, params: Params) -> Result:
    message = bot_message(state, params)
    # Slack keeps whichever of text/blocks the call leaves out; [] clears blocks.
    if "blocks" in params.values:
        message.blocks = params.message_blocks()
    if "text" in params.values:
        message.text = params.text()
    if not message.text and not message.blocks:
        raise SlackFailure("no_text")
    message.edited = {"user": BOT_USER_ID, "ts": state.next_ts()}
    return {"channel": message.channel, "ts": message.ts, "text": message.text, "message": message.to_slack()}


def post_ephemeral(state: WorkspaceState, params: Params) -> Result:
    channel = state.channel(params.required("channel", error="channel_not_found"))
    user = state.user(params.required("user", error="user_not_found"))
    blocks = params.message_blocks()
    text = params.text()
    if not text and not blocks:
        raise SlackFailure("no_text")
    ephemeral = state.add_ephemeral(
        channel.id, user.id, text=text, blocks=blocks, thread_ts=params.optional("thread_ts")
    )
    return {"message_ts": ephemeral.ts}


def delete(state: WorkspaceState, params: Params) -> Result:
    channel = state.channel(params.required("channel", error="channel_not_found"))
    message = state.message(channel.id, params.required("ts", error="message_not_found"))
    if message.bot_id != BOT_ID:
        raise SlackFailure("cant_delete_message")
    state.remove_message(channel.id, message.ts)
    return {"channel": channel.id, "ts": message.ts}


def users_info(state: WorkspaceState, params: Params) -> Result:
    return {"user": state.user(params.required("user", error="user_not_found")).to_slack()}


def conversations_info(state: WorkspaceState, params: Params) -> Result:
    return {"channel": state.channel(params.required("channel", error="channel_not_found")).to_slack()}


def conversations_replies(state: WorkspaceState, params: Params) -> Result:
    channel = state.channel(params.required("channel", error="channel_not_found"))
    parent = state.find_message(channel.id, params.required("ts", error="thread_not_found"))
    if parent is None:
        raise SlackFailure("thread_not_found")
    root = parent.thread_ts or parent.ts
    messages = []
    for message in state.thread(channel.id, root):
        shown = message.to_slack()
        if message.ts == root:
            shown.update(state.replies_summary(message))
        messages.append(shown)
    return {"messages": messages, "has_more": False, "response_metadata": {"next_cursor": ""}}


def conversations_history(state: WorkspaceState, params: Params) -> Result:
    """Top-level messages, newest first, after ``oldest`` (and before ``latest``) when given."""
    channel = state.channel(params.required("channel", error="channel_not_found"))
    oldest = float(params.optional("oldest") or 0)
    latest = float(params.optional("latest") or "inf")
    limit = int(params.optional("limit") or 100)
    found = [m for m in reversed(state.history(channel.id)) if oldest < float(m.ts) < latest]
    shown = [{**m.to_slack(), **state.replies_summary(m)} for m in found[:limit]]
    return {"messages": shown, "has_more": len(found) > limit, "response_metadata": {"next_cursor": ""}}


def apply_response(state: WorkspaceState, hook: Hook, payload: dict[str, Any]) -> None:
    """Carry out a response_url post (or an immediate command reply) as Slack would."""
    params = Params(payload)
    if params.flag("delete_original"):
        _drop_original(state, hook)
        return
    blocks = params.message_blocks()
    text = params.text()
    if params.flag("replace_original"):
        _replace_original(state, hook, text=text, blocks=blocks)
        return
    if not text and not blocks:
        raise SlackFailure("no_text", status=400)
    thread_ts = params.optional("thread_ts")
    if params.optional("response_type") == "in_channel":
        state.add_message(hook.channel, user=BOT_USER_ID, bot_id=BOT_ID, text=text, blocks=blocks, thread_ts=thread_ts)
    else:
        state.add_ephemeral(hook.channel, hook.user, text=text, blocks=blocks, thread_ts=thread_ts)


def _replace_original(state: WorkspaceState, hook: Hook, *, text: str, blocks: list[dict[str, Any]]) -> None:
    if hook.message_ts is None:
        raise SlackFailure("no_original_message", status=404)
    if hook.is_ephemeral:
        for ephemeral in state.ephemerals:
            if ephemeral.ts == hook.message_ts and ephemeral.user == hook.user:
                ephemeral.text, ephemeral.blocks = text, blocks
                return
        raise SlackFailure("message_not_found", status=404)
    message = state.message(hook.channel, hook.message_ts)
    message.text, message.blocks = text, blocks
    message.edited = {"user": BOT_USER_ID, "ts": state.next_ts()}


def _drop_original(state: WorkspaceState, hook: Hook) -> None:
    if hook.message_ts is None:
        raise SlackFailure("no_original_message", status=404)
    if hook.is_ephemeral:
        state.ephemerals = [e for e in state.ephemerals if not (e.ts == hook.message_ts and e.user == hook.user)]
    else:
        state.remove_message(hook.channel, hook.message_ts)


def get_permalink(state: WorkspaceState, params: Params) -> Result:
    """A link to a message on the page: ``{site}/#/{channel}/{ts}`` opens its channel and its thread."""
    channel = state.channel(params.required("channel", error="channel_not_found"))
    ts = params.required("message_ts", error="message_not_found")
    if state.find_message(channel.id, ts) is None:
        raise SlackFailure("message_not_found")
    return {"channel": channel.id, "permalink": f"{state.site}/#/{channel.id}/{ts}"}
