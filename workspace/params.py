"""Reading a Web API call's arguments, and checking them the way Slack does.

slack_sdk sends some methods as JSON (``chat.postMessage``, ``views.*``) and
others as a form or query string (``chat.delete``, ``users.info``); in a form,
structured arguments (``blocks``, ``view``) arrive as JSON-encoded strings.
:class:`Params` hides that difference.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block

from workspace import data_table
from workspace.errors import SlackFailure
from workspace.models import MAX_BLOCKS_TEXT, MAX_MARKDOWN_TOTAL, MAX_MESSAGE_BLOCKS, MAX_TEXT


class Params:
    """A method's arguments with Slack's error codes for missing or malformed ones."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.values: dict[str, Any] = {k: v for k, v in values.items() if k != "token"}

    def required(self, name: str, *, error: str = "invalid_arguments") -> str:
        """A required argument; Slack reports some missing ones by name (``channel_not_found``)."""
        value = self.values.get(name)
        if value is None or value == "":
            raise SlackFailure(error, response_metadata={"messages": [f"[ERROR] missing required field: {name}"]})
        return str(value)

    def optional(self, name: str) -> str | None:
        value = self.values.get(name)
        return None if value is None or value == "" else str(value)

    def flag(self, name: str) -> bool:
        value = self.values.get(name)
        if isinstance(value, bool):
            return value
        return str(value).lower() in {"1", "true"}

    def structured(self, name: str) -> Any:
        """A JSON argument: already decoded in a JSON body, a JSON string in a form."""
        value = self.values.get(name)
        if isinstance(value, str):
            if value == "":
                return None
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise SlackFailure("invalid_json", response_metadata={"messages": [f"[ERROR] '{name}'"]}) from None
        return value

    def blocks(self, limit: int) -> list[dict[str, Any]]:
        raw = self.structured("blocks")
        return check_blocks([] if raw is None else raw, limit=limit)

    def message_blocks(self) -> list[dict[str, Any]]:
        """A message's blocks, checked as Slack checks a message (count, each block, then the text they carry)."""
        blocks = self.blocks(MAX_MESSAGE_BLOCKS)
        markdown = sum(len(str(b.get("text", ""))) for b in blocks if b.get("type") == "markdown")
        if markdown > MAX_MARKDOWN_TOTAL:
            raise _invalid(f"markdown blocks carry {markdown} characters; no more than {MAX_MARKDOWN_TOTAL} allowed")
        if _text_size(blocks) > MAX_BLOCKS_TEXT:
            raise SlackFailure("msg_blocks_too_long")
        return blocks

    def text(self) -> str:
        text = self.optional("text") or ""
        if len(text) > MAX_TEXT:
            raise SlackFailure("msg_too_long")
        return text


def check_blocks(raw: Any, *, limit: int) -> list[dict[str, Any]]:
    """Accept a list of blocks only if slack_sdk's models parse and validate every one."""
    if not isinstance(raw, list):
        raise _invalid("blocks must be an array")
    if len(raw) > limit:
        raise _invalid(f"no more than {limit} items allowed")
    for index, block in enumerate(raw):
        problem = _block_problem(block)
        if problem:
            raise _invalid(f"{problem} [json-pointer:/blocks/{index}]")
    return list(raw)


def _text_size(node: Any) -> int:
    """Characters of text a message's blocks carry (every ``text`` string, however deep)."""
    if isinstance(node, list):
        return sum(_text_size(item) for item in node)
    if isinstance(node, dict):
        own = len(node["text"]) if isinstance(node.get("text"), str) else 0
        return own + sum(_text_size(v) for k, v in node.items() if k != "text" or not isinstance(v, str))
    return 0


def _block_problem(block: Any) -> str | None:
    if not isinstance(block, dict):
        return "block must be an object"
    if block.get("type") == "data_table":  # newer than slack_sdk's models
        return data_table.problem(block)
    try:
        parsed = Block.parse(block)
        if parsed is None:
            return f"unsupported type: {block.get('type')!r}"
        parsed.validate_json()
    except (SlackObjectFormationError, TypeError, ValueError, KeyError, AttributeError) as exc:
        return f"invalid block: {exc}"
    unknown = set(block) - set(parsed.attributes) - {"type"}
    if unknown:
        return f"unknown {'field' if len(unknown) == 1 else 'fields'}: {', '.join(sorted(unknown))}"
    return None


def _invalid(message: str) -> SlackFailure:
    return SlackFailure("invalid_blocks", errors=[message], response_metadata={"messages": [f"[ERROR] {message}"]})
