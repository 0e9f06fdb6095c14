"""What Feishu posts to ``/feishu/events``, as models: the handler reads the body into one of these first.

Feishu adds fields over time, so unknown ones are ignored; the ones Tandem acts on are typed.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator


class _In(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class Header(_In):
    event_id: str = Field(min_length=1, max_length=200)
    event_type: str
    token: str = ""
    tenant_key: str = ""
    app_id: str = ""
    create_time: str = ""


class UrlVerification(_In):
    type: Literal["url_verification"]
    challenge: str = Field(max_length=1000)
    token: str = ""


class UserId(_In):
    open_id: str = ""
    user_id: str | None = None
    union_id: str | None = None


class Mention(_In):
    key: str
    id: UserId
    name: str = ""


class Message(_In):
    message_id: str
    root_id: str | None = None
    parent_id: str | None = None
    thread_id: str | None = None
    chat_id: str
    chat_type: str = "group"
    message_type: str = "text"
    content: str = "{}"
    mentions: list[Mention] = Field(default_factory=list)

    @property
    def text(self) -> str:
        """The text a person typed, with the ``@_user_1`` placeholders of mentions left out."""
        if self.message_type != "text":
            return ""
        try:
            content = json.loads(self.content)
        except ValueError:
            return ""
        text = str(content.get("text", "")) if isinstance(content, dict) else ""
        for m in self.mentions:
            text = text.replace(m.key, " ")
        return " ".join(text.split())

    @property
    def thread_root(self) -> str | None:
        """The message a reply in a thread hangs off (the run card, for a run's thread)."""
        return self.root_id or None


class Sender(_In):
    sender_id: UserId
    sender_type: str = "user"


class MessageReceived(_In):
    sender: Sender
    message: Message


class MessageEvent(_In):
    """``im.message.receive_v1``: someone wrote to the bot (a mention in a group, a DM, a thread reply)."""

    header: Header
    event: MessageReceived


class Operator(_In):
    open_id: str = Field(min_length=1)
    user_id: str | None = None
    tenant_key: str | None = None


class Action(_In):
    value: dict[str, Any] = Field(default_factory=dict)
    tag: str = ""
    name: str | None = None
    form_value: dict[str, Any] | None = None


class CardContext(_In):
    open_message_id: str = ""
    open_chat_id: str = ""


class CardEvent(_In):
    operator: Operator
    token: str = ""
    action: Action
    context: CardContext = Field(default_factory=CardContext)


class CardCallback(_In):
    """``card.action.trigger``: a click on a card's button, or a form submitted with one."""

    header: Header
    event: CardEvent


class OtherEvent(_In):
    """An event Tandem does not act on (acknowledged, nothing changes)."""

    header: Header


ClickAction = Literal[
    "forget_lesson",
    "approve",
    "approve_always",
    "request_changes",
    "cancel",
    "answer",
    "decline",
    "answer_text",
    "instruct",
    "finish",
    "hand_back",
    "clarify",
    "override",
    "vote",
]


class Click(_In):
    """A button's object value, as Tandem's cards set it."""

    action: ClickAction
    review: str = Field(default="", max_length=100)  # every button but a vote and a lesson's is about a review
    run: str = ""
    vote: str = Field(default="", max_length=10)
    answer: Any = None
    intent: str | None = None
    step: int | None = None
    text: str = Field(default="", max_length=2000)
    lesson: str = Field(default="", max_length=100)

    @model_validator(mode="after")
    def _about_a_review(self) -> Click:
        if self.action not in ("forget_lesson", "vote") and not self.review:
            raise ValueError(f"a {self.action} button names the review it decides")
        return self


Inbound = UrlVerification | MessageEvent | CardCallback | OtherEvent


class Unreadable(ValueError):
    """The body is no Feishu payload Tandem knows; it changes nothing."""


def inbound(data: object) -> Inbound:
    """The payload ``data`` (decrypted JSON) as its model, or :class:`Unreadable` saying why not."""
    if not isinstance(data, dict):
        raise Unreadable("the body is not a JSON object")
    try:
        if data.get("type") == "url_verification":
            return UrlVerification.model_validate(data)
        header = Header.model_validate(data.get("header"))
    except ValidationError as exc:
        raise Unreadable(_problem(exc, "" if data.get("type") == "url_verification" else "header.")) from None
    try:
        match header.event_type:
            case "im.message.receive_v1":
                return MessageEvent.model_validate(data)
            case "card.action.trigger":
                return CardCallback.model_validate(data)
            case _:
                return OtherEvent(header=header)
    except ValidationError as exc:
        raise Unreadable(_problem(exc)) from None


def _problem(exc: ValidationError, prefix: str = "") -> str:
    first = exc.errors()[0]
    where = prefix + ".".join(str(p) for p in first["loc"]) if first["loc"] else prefix.rstrip(".") or "body"
    return f"{where}: {first['msg']}"
