"""Slack payloads as pydantic models: every handler parses its payload here first (:func:`read`)."""

from __future__ import annotations

import json
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator


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


class Option(_In):
    value: str


class Action(_In):
    action_id: str
    value: str | None = None
    block_id: str | None = None
    selected_option: Option | None = None

    @property
    def selected_value(self) -> str | None:
        return self.selected_option.value if self.selected_option else None


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
    actions: list[Action] = Field(min_length=1)
    trigger_id: str | None = None
    response_url: str | None = None

    @property
    def action(self) -> Action:
        return self.actions[0]

    @property
    def channel_id(self) -> str | None:
        return self.channel.id if self.channel else self.container.channel_id

    @property
    def message_ts(self) -> str | None:
        return self.container.message_ts or (self.message.ts if self.message else None)

    @property
    def thread_ts(self) -> str | None:
        """The thread of the clicked message, if it is a reply."""
        return self.container.thread_ts or (self.message.thread_ts if self.message else None)


class InputValue(_In):
    """One input's value in ``view.state.values[block][action]`` (a text input or a select)."""

    value: str | None = None
    selected_option: Option | None = None


class ViewState(_In):
    values: dict[str, dict[str, InputValue]] = Field(default_factory=dict)


class View(_In):
    id: str
    callback_id: str | None = None
    private_metadata: str = ""
    state: ViewState = Field(default_factory=ViewState)

    def value(self, block_id: str, action_id: str) -> str | None:
        element = self.state.values.get(block_id, {}).get(action_id)
        if element is None:
            return None
        return element.selected_option.value if element.selected_option else element.value

    def metadata(self) -> dict[str, str]:
        try:
            data = json.loads(self.private_metadata or "{}")
        except (ValueError, RecursionError):
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

    @field_validator("text")
    @classmethod
    def _as_typed(cls, text: str) -> str:
        """What the person typed: Slack sends ``&``, ``<`` and ``>`` as entities, and every builder escapes
        once more on the way out (``&amp;`` last, so a typed ``&lt;`` stays ``&lt;``)."""
        return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")

    @property
    def from_a_person(self) -> bool:
        return self.user is not None and self.bot_id is None and self.subtype in (None, "thread_broadcast")


class HomeOpened(_In):
    type: str = "app_home_opened"
    user: str
    tab: str = "home"


# --- reading a payload -----------------------------------------------------------------------------

M = TypeVar("M", bound=BaseModel)


class Unreadable(_In):
    """A payload that did not parse: what it was for, what was wrong, and who sent it from where (if it says)."""

    surface: str
    problem: str
    user: str | None = None
    channel: str | None = None


def read(model: type[M], data: object, surface: str) -> M | Unreadable:
    """``data`` as ``model``; never raises (a listener acks whatever comes, then reads it)."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        user, channel = origin(data)
        return Unreadable(surface=surface, problem=describe(exc), user=user, channel=channel)


def describe(exc: ValidationError) -> str:
    """The first problem pydantic found, as ``where: what`` (never the value itself, which may be huge)."""
    error = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    where = ".".join(str(step) for step in error["loc"]) or "the body"
    return f"{where[:120]}: {error['msg'][:120]}"


def origin(data: object) -> tuple[str | None, str | None]:
    """Who sent ``data`` and in which channel, where the body says so in the usual places (else None)."""
    if not isinstance(data, dict):
        return None, None
    container = data.get("container")
    user = _id(data.get("user")) or _text(data.get("user_id"))
    channel = _id(data.get("channel")) or _text(data.get("channel_id"))
    if channel is None and isinstance(container, dict):
        channel = _text(container.get("channel_id"))
    return user, channel


def _id(value: object) -> str | None:
    return _text(value.get("id")) if isinstance(value, dict) else _text(value)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
