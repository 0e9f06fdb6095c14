"""Slack payloads as pydantic models: every handler parses its payload here first."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Ref(_In):
    id: str


class SlashCommand(_In):
    command: str = "/tandem"
    text: str = ""
    user_id: str
    channel_id: str
    team_id: str | None = None
    trigger_id: str | None = None


class Action(_In):
    action_id: str
    value: str | None = None
    block_id: str | None = None
    selected_option: dict[str, Any] | None = None

    @property
    def selected_value(self) -> str | None:
        return str(self.selected_option["value"]) if self.selected_option else None


class Container(_In):
    channel_id: str | None = None
    message_ts: str | None = None
    thread_ts: str | None = None


class Message(_In):
    ts: str
    thread_ts: str | None = None
    blocks: list[dict[str, Any]] = Field(default_factory=list)


class BlockActions(_In):
    user: Ref
    team: Ref | None = None
    channel: Ref | None = None
    container: Container = Field(default_factory=Container)
    message: Message | None = None
    actions: list[Action]
    trigger_id: str | None = None

    @property
    def action(self) -> Action:
        return self.actions[0]

    @property
    def channel_id(self) -> str | None:
        return self.channel.id if self.channel else self.container.channel_id

    @property
    def message_ts(self) -> str | None:
        return self.container.message_ts or (self.message.ts if self.message else None)


class View(_In):
    id: str
    callback_id: str | None = None
    private_metadata: str = ""
    state: dict[str, Any] = Field(default_factory=dict)

    def value(self, block_id: str, action_id: str) -> str | None:
        element = self.state.get("values", {}).get(block_id, {}).get(action_id, {})
        if not isinstance(element, dict):
            return None
        if element.get("selected_option"):
            return str(element["selected_option"].get("value"))
        value = element.get("value")
        return None if value is None else str(value)

    def metadata(self) -> dict[str, str]:
        try:
            data = json.loads(self.private_metadata or "{}")
        except json.JSONDecodeError:
            return {}
        return {str(k): str(v) for k, v in data.items()} if isinstance(data, dict) else {}


class ViewSubmission(_In):
    user: Ref
    team: Ref | None = None
    view: View


class MessageEvent(_In):
    type: str
    channel: str
    text: str = ""
    ts: str
    user: str | None = None
    bot_id: str | None = None
    subtype: str | None = None
    thread_ts: str | None = None

    @property
    def from_a_person(self) -> bool:
        return self.user is not None and self.bot_id is None and self.subtype in (None, "thread_broadcast")


class HomeOpened(_In):
    type: str = "app_home_opened"
    user: str
    tab: str = "home"
