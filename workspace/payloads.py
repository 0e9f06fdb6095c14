"""The request bodies Slack sends an app, built from workspace records. Pure functions.

Shapes follow Slack's reference for slash commands (a form), interaction
payloads (``block_actions``, ``view_submission``: JSON in a ``payload`` form
field) and the Events API ``event_callback`` envelope.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from workspace.errors import ScenarioError
from workspace.models import APP_ID, BOT_USER_ID, TEAM_DOMAIN, TEAM_ID, Channel, Message, User

VERIFICATION_TOKEN = "tandem-local-verification-token"
"""Slack's deprecated per-app token, still sent in every payload."""

Values = Mapping[str, str | Sequence[str]]


def user_ref(user: User) -> dict[str, Any]:
    return {"id": user.id, "username": user.name, "name": user.name, "team_id": TEAM_ID}


def team_ref() -> dict[str, Any]:
    return {"id": TEAM_ID, "domain": TEAM_DOMAIN}


def slash_command(
    *, user: User, channel: Channel, command: str, text: str, trigger_id: str, response_url: str
) -> dict[str, str]:
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": TEAM_ID,
        "team_domain": TEAM_DOMAIN,
        "channel_id": channel.id,
        "channel_name": "directmessage" if channel.is_im else channel.name,
        "user_id": user.id,
        "user_name": user.name,
        "command": command,
        "text": text,
        "api_app_id": APP_ID,
        "is_enterprise_install": "false",
        "response_url": response_url,
        "trigger_id": trigger_id,
    }


def block_actions(
    *,
    user: User,
    container: dict[str, Any],
    action: dict[str, Any],
    trigger_id: str,
    channel: Channel | None = None,
    message: dict[str, Any] | None = None,
    view: dict[str, Any] | None = None,
    response_url: str | None = None,
) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "container": container,
        "trigger_id": trigger_id,
        "team": team_ref(),
        "enterprise": None,
        "is_enterprise_install": False,
        "actions": [action],
    }
    if channel is not None:
        payload["channel"] = {"id": channel.id, "name": "directmessage" if channel.is_im else channel.name}
    if message is not None:
        payload["message"] = message
        payload["state"] = {"values": {}}
    if view is not None:
        payload["view"] = view
    if response_url is not None:
        payload["response_url"] = response_url
    return payload


def view_submission(*, user: User, view: dict[str, Any], trigger_id: str) -> dict[str, Any]:
    return {
        "type": "view_submission",
        "team": team_ref(),
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "trigger_id": trigger_id,
        "view": view,
        "response_urls": [],
        "is_enterprise_install": False,
        "enterprise": None,
    }


def view_closed(*, user: User, view: dict[str, Any], is_cleared: bool) -> dict[str, Any]:
    return {
        "type": "view_closed",
        "team": team_ref(),
        "user": user_ref(user),
        "api_app_id": APP_ID,
        "token": VERIFICATION_TOKEN,
        "view": view,
        "is_cleared": is_cleared,
        "is_enterprise_install": False,
        "enterprise": None,
    }


def message_event(message: Message, *, channel: Channel, parent_user: str | None = None) -> dict[str, Any]:
    event = {**message.to_slack(), "channel": message.channel, "event_ts": message.ts}
    event["channel_type"] = "im" if channel.is_im else "channel"
    event["blocks"] = [_rich_text(message.text)]
    if parent_user is not None and message.is_reply:
        event["parent_user_id"] = parent_user
    return event


def app_mention_event(message: Message) -> dict[str, Any]:
    event = {**message.to_slack(), "type": "app_mention", "channel": message.channel, "event_ts": message.ts}
    event["blocks"] = [_rich_text(message.text)]
    return event


def envelope(event: dict[str, Any], *, event_id: str, event_time: int) -> dict[str, Any]:
    return {
        "token": VERIFICATION_TOKEN,
        "team_id": TEAM_ID,
        "context_team_id": TEAM_ID,
        "context_enterprise_id": None,
        "api_app_id": APP_ID,
        "event": event,
        "type": "event_callback",
        "event_id": event_id,
        "event_time": event_time,
        "authorizations": [
            {
                "enterprise_id": None,
                "team_id": TEAM_ID,
                "user_id": BOT_USER_ID,
                "is_bot": True,
                "is_enterprise_install": False,
            }
        ],
        "is_ext_shared_channel": False,
        "event_context": f"4-{event_id}",
    }


def find_element(blocks: Sequence[dict[str, Any]], action_id: str) -> tuple[str, dict[str, Any]]:
    """The block_id and element a person would press for ``action_id``."""
    for block in blocks:
        candidates = list(block.get("elements", [])) + [block.get("accessory"), block.get("element")]
        for element in candidates:
            if isinstance(element, dict) and element.get("action_id") == action_id:
                return str(block.get("block_id", "")), element
    raise ScenarioError(f"no element with action_id {action_id!r} on that surface")


def action(element: dict[str, Any], *, block_id: str, value: str | None, action_ts: str) -> dict[str, Any]:
    """The ``actions[0]`` entry for pressing or choosing on ``element``."""
    kind = str(element.get("type"))
    out: dict[str, Any] = {
        "action_id": element["action_id"],
        "block_id": block_id,
        "type": kind,
        "action_ts": action_ts,
    }
    if kind == "button":
        out["text"] = element.get("text")
        out["value"] = value if value is not None else element.get("value")
        if element.get("style"):
            out["style"] = element["style"]
    elif kind in {"static_select", "radio_buttons", "overflow"}:
        out["selected_option"] = _option(element, value)
    else:
        out["value"] = value
    return out


def input_values(blocks: Sequence[dict[str, Any]], given: Values) -> dict[str, dict[str, Any]]:
    """``view.state.values`` after a person fills the inputs (keyed by block_id or action_id)."""
    remaining = dict(given)
    values: dict[str, dict[str, Any]] = {}
    for block in blocks:
        element = block.get("element") if block.get("type") == "input" else None
        if not isinstance(element, dict):
            continue
        block_id, action_id = str(block.get("block_id", "")), str(element.get("action_id", ""))
        key = block_id if block_id in remaining else action_id
        entered = remaining.pop(key, None)
        state = _element_state(element, entered)
        if not block.get("optional", False) and _empty(state):
            raise ScenarioError(f"input {block_id!r} is required; Slack would not submit the view")
        values[block_id] = {action_id: state}
    if remaining:
        raise ScenarioError(f"no input block or action_id named {sorted(remaining)} in the view")
    return values


def _element_state(element: dict[str, Any], entered: str | Sequence[str] | None) -> dict[str, Any]:
    kind = str(element.get("type"))
    if kind in {"static_select", "radio_buttons"}:
        chosen = _option(element, str(entered)) if entered is not None else element.get("initial_option")
        return {"type": kind, "selected_option": chosen}
    if kind in {"checkboxes", "multi_static_select"}:
        if entered is None:
            return {"type": kind, "selected_options": element.get("initial_options", [])}
        picks = [entered] if isinstance(entered, str) else list(entered)
        return {"type": kind, "selected_options": [_option(element, p) for p in picks]}
    if kind in _PICKER_FIELDS:
        return {"type": kind, _PICKER_FIELDS[kind]: entered}
    return {"type": kind, "value": entered if entered is not None else element.get("initial_value")}


_PICKER_FIELDS = {
    "users_select": "selected_user",
    "conversations_select": "selected_conversation",
    "channels_select": "selected_channel",
    "datepicker": "selected_date",
    "timepicker": "selected_time",
}


def _option(element: dict[str, Any], value: str | None) -> dict[str, Any]:
    options = list(element.get("options", []))
    for group in element.get("option_groups", []):
        options.extend(group.get("options", []))
    for option in options:
        if option.get("value") == value:
            return dict(option)
    raise ScenarioError(f"no option with value {value!r} in {element.get('action_id')!r}")


def _empty(state: dict[str, Any]) -> bool:
    return all(v in (None, "", []) for k, v in state.items() if k != "type")


def _rich_text(text: str) -> dict[str, Any]:
    return {
        "type": "rich_text",
        "block_id": "rt0",
        "elements": [{"type": "rich_text_section", "elements": [{"type": "text", "text": text}]}],
    }


def app_home_opened_event(user: str, channel: str, event_ts: str, view: dict[str, Any] | None) -> dict[str, Any]:
    """What Slack sends when a person opens the app's Home tab."""
    event: dict[str, Any] = {"type": "app_home_opened", "user": user, "channel": channel, "tab": "home"}
    event["event_ts"] = event_ts
    if view is not None:
        event["view"] = view
    return event
