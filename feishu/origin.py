"""Feishu/Lark as a platform the core knows: where a Feishu run lives and how Feishu ids look.

Importing this module registers Feishu (:func:`agent.models.platforms.register`); every module of
``feishu/`` that reads an origin imports it, and the composition root imports it before it loads a
policy or a run. Feishu posts no weekly report, so it names no report destination.
"""

from __future__ import annotations

import re
from typing import ClassVar, Literal

from agent.models.platforms import Platform, PrincipalKind, ThreadedOrigin, register

FEISHU = "feishu"
"""The platform's name: the delivery worker's channel and the ``platform`` of Feishu principals."""

_USER = re.compile(r"ou_[A-Za-z0-9]+")  # an open_id
_DEPARTMENT = re.compile(r"od[-_][A-Za-z0-9]+")  # od-… as Feishu's docs write it; od_… too
_CHAT = re.compile(r"oc_[A-Za-z0-9]+")


class FeishuChat(ThreadedOrigin):
    """A run started in a Feishu/Lark chat: its card is the root of the reply thread."""

    kind: Literal["feishu"] = "feishu"
    chat_id: str
    root_id: str | None = None

    PLATFORM: ClassVar[str] = FEISHU
    PLACE: ClassVar[str] = "chat_id"
    ROOT: ClassVar[str] = "root_id"


def parse_id(entry: str) -> PrincipalKind | None:
    """A Feishu user (``ou_…``), or a group: a department (``od-…``) or a chat (``oc_…``); else None."""
    if _USER.fullmatch(entry):
        return "user"
    if _DEPARTMENT.fullmatch(entry) or _CHAT.fullmatch(entry):
        return "group"
    return None


def is_chat(entry: str) -> bool:
    """A Feishu chat id (``oc_…``)."""
    return _CHAT.fullmatch(entry) is not None


def run_origin(entry: str) -> FeishuChat | None:
    """A run asked from outside in a Feishu chat: its card is the root of a reply thread there."""
    return FeishuChat(chat_id=entry) if is_chat(entry) else None


PLATFORM = register(
    Platform(
        name=FEISHU,
        origins=(FeishuChat,),
        parse_id=parse_id,
        is_place=is_chat,
        id_hint="Feishu users ou_…, departments od-… and chats oc_…",
        run_origin=run_origin,
        card_lifetime=14 * 86_400.0,  # a card JSON 2.0 message takes clicks and updates for 14 days
    )
)
