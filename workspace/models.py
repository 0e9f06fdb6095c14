"""Plain records the workspace keeps: people, channels, messages, views, triggers.

Each record knows how to render itself the way Slack's JSON shows it
(``to_slack``); nothing here does I/O.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

TEAM_ID = "T0TANDEM"
TEAM_NAME = "Tandem"
TEAM_DOMAIN = "tandem"
APP_ID = "A0TANDEM"
BOT_USER_ID = "U0TANDEMBOT"
BOT_ID = "B0TANDEM"
BOT_NAME = "tandem"

TRIGGER_TTL = 3.0
"""Seconds a trigger_id can be exchanged for a modal, as in Slack."""
HOOK_TTL = 30 * 60.0
HOOK_USES = 5
MAX_MESSAGE_BLOCKS = 50
MAX_VIEW_BLOCKS = 100
MAX_TEXT = 40_000
MAX_MARKDOWN_TOTAL = 12_000
"""Characters of all of a message's ``markdown`` blocks together (Slack's documented limit)."""
MAX_BLOCKS_TEXT = 13_000
"""Characters of text a message's blocks may carry before Slack answers ``msg_blocks_too_long``
(undocumented; reported between 12,000 and 13,000)."""
MAX_VIEW_STACK = 3


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class User(_Record):
    id: str
    name: str
    real_name: str
    is_bot: bool = False
    bot_id: str | None = None

    def to_slack(self) -> dict[str, Any]:
        profile: dict[str, Any] = {"real_name": self.real_name, "display_name": self.name}
        if self.bot_id:
            profile["bot_id"] = self.bot_id
        return {
            "id": self.id,
            "team_id": TEAM_ID,
            "name": self.name,
            "real_name": self.real_name,
            "deleted": False,
            "is_bot": self.is_bot,
            "is_app_user": False,
            "profile": profile,
        }


class Channel(_Record):
    id: str
    name: str
    is_im: bool = False
    is_private: bool = False
    im_user: str | None = None

    def to_slack(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "is_channel": not self.is_im and not self.is_private,
            "is_im": self.is_im,
            "is_private": self.is_private,
            "is_archived": False,
            "is_member": True,
            "context_team_id": TEAM_ID,
        }
        if self.is_im:
            out["user"] = self.im_user
        else:
            out["name"] = self.name
        return out


_MIME = {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif"}


def mimetype(name: str) -> str:
    return _MIME.get(name.rsplit(".", 1)[-1].lower(), "application/octet-stream")


class Upload(_Record):
    """A file the bot uploads (``files_upload_v2``): reserved, then its bytes, then completed."""

    model_config = ConfigDict(extra="forbid", ser_json_bytes="base64", val_json_bytes="base64")

    id: str
    name: str
    length: int
    created: float
    title: str = ""
    alt_txt: str | None = None
    data: bytes | None = None
    completed: bool = False
    shared: bool = False

    def to_slack(self, site: str) -> dict[str, Any]:
        kind = self.name.rsplit(".", 1)[-1].lower() if "." in self.name else "binary"
        url = f"{site}/files/{self.id}/{self.name}"
        return {
            "id": self.id,
            "created": int(self.created),
            "name": self.name,
            "title": self.title or self.name,
            "mimetype": mimetype(self.name),
            "filetype": kind,
            "size": self.length,
            "user": BOT_USER_ID,
            "url_private": url,
            "url_private_download": url,
            "permalink": url,
            "alt_txt": self.alt_txt,
        }


class Message(_Record):
    channel: str
    ts: str
    user: str
    text: str = ""
    blocks: list[dict[str, Any]] = Field(default_factory=list)
    bot_id: str | None = None
    thread_ts: str | None = None
    edited: dict[str, str] | None = None
    metadata: dict[str, Any] | None = None
    files: list[dict[str, Any]] = Field(default_factory=list)
    streaming: bool = False
    """Its text is still being streamed (``chat.startStream`` until ``chat.stopStream``)."""

    @property
    def is_reply(self) -> bool:
        return self.thread_ts is not None and self.thread_ts != self.ts

    def to_slack(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "message", "ts": self.ts, "user": self.user, "text": self.text, "team": TEAM_ID}
        if self.blocks:
            out["blocks"] = self.blocks
        if self.bot_id:
            out["bot_id"] = self.bot_id
            out["app_id"] = APP_ID
        if self.thread_ts:
            out["thread_ts"] = self.thread_ts
        if self.edited:
            out["edited"] = self.edited
        if self.metadata:
            out["metadata"] = self.metadata
        if self.files:
            out["files"] = self.files
            out["upload"] = True
        return out


class Ephemeral(_Record):
    """A message only ``user`` sees; Slack gives it a ts but never stores it."""

    channel: str
    user: str
    ts: str
    text: str = ""
    blocks: list[dict[str, Any]] = Field(default_factory=list)
    thread_ts: str | None = None


class View(_Record):
    """A modal or App Home view as the bot last defined it (``spec``), plus Slack's bookkeeping."""

    id: str
    user: str
    hash: str
    spec: dict[str, Any]
    root_view_id: str
    previous_view_id: str | None = None
    open: bool = True
    client: str | None = None
    """The browser session it opened in (Slack shows a modal in that client only); None: any."""
    values: dict[str, dict[str, Any]] = Field(default_factory=dict)
    errors: dict[str, str] = Field(default_factory=dict)

    @property
    def type(self) -> str:
        return str(self.spec.get("type", "modal"))

    @property
    def callback_id(self) -> str:
        return str(self.spec.get("callback_id", ""))

    @property
    def blocks(self) -> list[dict[str, Any]]:
        return list(self.spec.get("blocks", []))

    def to_slack(self) -> dict[str, Any]:
        spec = self.spec
        return {
            "id": self.id,
            "team_id": TEAM_ID,
            "type": self.type,
            "blocks": self.blocks,
            "private_metadata": spec.get("private_metadata", ""),
            "callback_id": self.callback_id,
            "state": {"values": self.values},
            "hash": self.hash,
            "title": spec.get("title"),
            "submit": spec.get("submit"),
            "close": spec.get("close"),
            "clear_on_close": bool(spec.get("clear_on_close", False)),
            "notify_on_close": bool(spec.get("notify_on_close", False)),
            "external_id": spec.get("external_id", ""),
            "previous_view_id": self.previous_view_id,
            "root_view_id": self.root_view_id,
            "app_id": APP_ID,
            "app_installed_team_id": TEAM_ID,
            "bot_id": BOT_ID,
        }


class Trigger(_Record):
    id: str
    user: str
    issued_at: float
    used: bool = False
    client: str | None = None
    """The browser session the person acted from (a modal opened with this trigger shows only there)."""


class Hook(_Record):
    """A response_url: who it answers, where, and for which message."""

    id: str
    user: str
    channel: str
    issued_at: float
    message_ts: str | None = None
    is_ephemeral: bool = False
    uses: int = 0


class ApiCall(_Record):
    """One Web API call the bot made, with the outcome the workspace gave it."""

    method: str
    params: dict[str, Any]
    ok: bool
    error: str | None = None
    at: float


class Fault(_Record):
    method: str
    error: str
    status: int
    retry_after: int | None = None
    containing: str | None = None  # only a call whose parameters (as JSON) contain this text
