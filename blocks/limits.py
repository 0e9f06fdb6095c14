"""Slack's Block Kit limits, checked before anything is sent.

:func:`check_message` and :func:`check_view` walk plain block dicts and raise
:class:`BlockLimitError` naming the path of the first thing over a limit,
including limits ``slack_sdk`` does not check (block counts, total size).
:func:`validate_with_sdk` and :func:`validate_view_with_sdk` parse the dicts
through ``slack_sdk.models`` so its own validators run too, and fail on keys
the SDK does not know (it would silently drop them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from slack_sdk.errors import SlackObjectFormationError
from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

MAX_MESSAGE_BLOCKS: Final = 50
MAX_VIEW_BLOCKS: Final = 100
MAX_SECTION_TEXT: Final = 3000
MAX_TEXT: Final = 3000  # any other text object (context elements, labels, ...)
MAX_FIELDS: Final = 10
MAX_FIELD_TEXT: Final = 2000
MAX_HEADER_TEXT: Final = 150
MAX_BUTTON_TEXT: Final = 75
MAX_BUTTON_VALUE: Final = 2000
MAX_ID: Final = 255  # action_id, block_id, callback_id
MAX_ACTIONS_ELEMENTS: Final = 25
MAX_CONTEXT_ELEMENTS: Final = 10
MAX_VIEW_TITLE: Final = 24
MAX_VIEW_BUTTON: Final = 24  # submit and close
MAX_INPUT_LENGTH: Final = 3000  # plain_text_input max_length
MAX_PRIVATE_METADATA: Final = 3000
MAX_MARKDOWN: Final = 12_000  # a markdown block, and all of a message's markdown blocks together
MAX_TABLE_ROWS: Final = 100
MAX_TABLE_COLUMNS: Final = 20
MAX_FALLBACK_TEXT: Final = 4000
"""Slack truncates a message's ``text`` at 40,000 characters and advises staying under 4,000."""
MAX_MESSAGE_BYTES: Final = 12_000
"""Our bound on a message's blocks as compact UTF-8 JSON.

Slack rejects messages whose blocks carry too much text in total
(``msg_blocks_too_long``) at an undocumented point, reported around 12,000 to
13,000 characters of text (slackapi/bolt-js#2509, #2867). JSON is always at
least as long as the text inside it, so holding the whole JSON to 12,000 bytes
keeps the text safely below that, well under the ~16 KB people often quote.
"""


class BlockLimitError(ValueError):
    """Blocks or a view that Slack would reject. The one exception :mod:`blocks` raises."""


def _over(path: str, what: str, size: int, limit: int) -> BlockLimitError:
    return BlockLimitError(f"{path}: {what} is {size}, over the limit of {limit}")


def _text_of(obj: Any) -> str:
    if isinstance(obj, Mapping):
        return str(obj.get("text", ""))
    return "" if obj is None else str(obj)


def _check_len(path: str, value: Any, limit: int, what: str = "text length") -> None:
    size = len(_text_of(value))
    if size > limit:
        raise _over(path, what, size, limit)


def _check_element(el: Mapping[str, Any], path: str) -> None:
    if "action_id" in el:
        _check_len(f"{path}.action_id", el["action_id"], MAX_ID, "length")
    kind = el.get("type")
    if kind == "button":
        _check_len(f"{path}.text", el.get("text"), MAX_BUTTON_TEXT)
        _check_len(f"{path}.value", el.get("value"), MAX_BUTTON_VALUE, "length")
    elif kind == "plain_text_input":
        max_length = el.get("max_length")
        if max_length is not None and max_length > MAX_INPUT_LENGTH:
            raise _over(f"{path}.max_length", "max_length", max_length, MAX_INPUT_LENGTH)
        _check_len(f"{path}.initial_value", el.get("initial_value"), MAX_INPUT_LENGTH, "length")
    elif kind in ("mrkdwn", "plain_text"):
        _check_len(path, el, MAX_TEXT)


def _check_block(block: Mapping[str, Any], path: str) -> None:
    if "block_id" in block:
        _check_len(f"{path}.block_id", block["block_id"], MAX_ID, "length")
    kind = block.get("type")
    if kind == "section":
        _check_len(f"{path}.text", block.get("text"), MAX_SECTION_TEXT)
        fields = block.get("fields") or []
        if len(fields) > MAX_FIELDS:
            raise _over(f"{path}.fields", "field count", len(fields), MAX_FIELDS)
        for i, field in enumerate(fields):
            _check_len(f"{path}.fields[{i}]", field, MAX_FIELD_TEXT)
        if "accessory" in block:
            _check_element(block["accessory"], f"{path}.accessory")
    elif kind == "header":
        _check_len(f"{path}.text", block.get("text"), MAX_HEADER_TEXT)
    elif kind in ("actions", "context"):
        elements = block.get("elements") or []
        limit = MAX_ACTIONS_ELEMENTS if kind == "actions" else MAX_CONTEXT_ELEMENTS
        if len(elements) > limit:
            raise _over(f"{path}.elements", "element count", len(elements), limit)
        for i, el in enumerate(elements):
            _check_element(el, f"{path}.elements[{i}]")
    elif kind == "input":
        _check_len(f"{path}.label", block.get("label"), MAX_TEXT)
        _check_element(block.get("element") or {}, f"{path}.element")
    elif kind == "markdown":
        _check_len(f"{path}.text", block.get("text"), MAX_MARKDOWN)
    elif kind == "table":
        rows = block.get("rows") or []
        if len(rows) > MAX_TABLE_ROWS:
            raise _over(f"{path}.rows", "row count", len(rows), MAX_TABLE_ROWS)
        for i, row in enumerate(rows):
            if len(row) > MAX_TABLE_COLUMNS:
                raise _over(f"{path}.rows[{i}]", "cell count", len(row), MAX_TABLE_COLUMNS)


def _check_blocks(blocks: Sequence[Mapping[str, Any]], limit: int, path: str) -> None:
    if len(blocks) > limit:
        raise _over(path, "block count", len(blocks), limit)
    for i, block in enumerate(blocks):
        _check_block(block, f"{path}[{i}]")


def json_size(obj: Any) -> int:
    """Bytes of ``obj`` as compact UTF-8 JSON, the way it goes over the wire."""
    return len(json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode())


def check_message(blocks: Sequence[Mapping[str, Any]], text: str | None = None) -> None:
    """Raise :class:`BlockLimitError` if Slack would reject these message blocks."""
    _check_blocks(blocks, MAX_MESSAGE_BLOCKS, "blocks")
    markdown = sum(len(_text_of(b)) for b in blocks if b.get("type") == "markdown")
    if markdown > MAX_MARKDOWN:
        raise _over("blocks", "markdown text across the message", markdown, MAX_MARKDOWN)
    tables = sum(1 for b in blocks if b.get("type") == "table")
    if tables > 1:
        raise _over("blocks", "table count", tables, 1)
    size = json_size(list(blocks))
    if size > MAX_MESSAGE_BYTES:
        raise _over("blocks", "JSON size in bytes", size, MAX_MESSAGE_BYTES)
    if text is not None:
        _check_len("text", text, MAX_FALLBACK_TEXT)


def check_view(view: Mapping[str, Any]) -> None:
    """Raise :class:`BlockLimitError` if Slack would reject this view."""
    _check_blocks(view.get("blocks") or [], MAX_VIEW_BLOCKS, "view.blocks")
    _check_len("view.title", view.get("title"), MAX_VIEW_TITLE)
    _check_len("view.submit", view.get("submit"), MAX_VIEW_BUTTON)
    _check_len("view.close", view.get("close"), MAX_VIEW_BUTTON)
    _check_len("view.callback_id", view.get("callback_id"), MAX_ID, "length")
    _check_len("view.private_metadata", view.get("private_metadata"), MAX_PRIVATE_METADATA, "length")


def _dropped(before: Any, after: Any, path: str) -> str | None:
    """The first path present in ``before`` but lost or changed in ``after``."""
    if isinstance(before, Mapping):
        if not isinstance(after, Mapping):
            return path
        for key, value in before.items():
            if key not in after:
                return f"{path}.{key}"
            lost = _dropped(value, after[key], f"{path}.{key}")
            if lost:
                return lost
        return None
    if isinstance(before, list):
        if not isinstance(after, list) or len(before) != len(after):
            return path
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            lost = _dropped(b, a, f"{path}[{i}]")
            if lost:
                return lost
        return None
    return None if before == after else path


def validate_with_sdk(blocks: Sequence[Mapping[str, Any]]) -> None:
    """Parse each block through ``slack_sdk`` and run its validators."""
    for i, raw in enumerate(blocks):
        path = f"blocks[{i}]"
        parsed = Block.parse(dict(raw))
        if parsed is None:
            raise BlockLimitError(f"{path}: unknown block type {raw.get('type')!r}")
        try:
            out = parsed.to_dict()
        except SlackObjectFormationError as exc:
            raise BlockLimitError(f"{path}: {exc}") from exc
        lost = _dropped(dict(raw), out, path)
        if lost:
            raise BlockLimitError(f"{lost}: not understood by slack_sdk (unknown key or wrong shape)")


def validate_view_with_sdk(view: Mapping[str, Any]) -> None:
    """Parse a view (and its blocks) through ``slack_sdk`` and run its validators."""
    validate_with_sdk(view.get("blocks") or [])
    try:
        out = View(**view).to_dict()
    except (SlackObjectFormationError, TypeError) as exc:
        raise BlockLimitError(f"view: {exc}") from exc
    lost = _dropped(dict(view), out, "view")
    if lost:
        raise BlockLimitError(f"{lost}: not understood by slack_sdk (unknown key or wrong shape)")
