from __future__ import annotations

from typing import Any

import pytest

from blocks.limits import (
    MAX_MESSAGE_BYTES,
    BlockLimitError,
    check_message,
    check_view,
    validate_view_with_sdk,
    validate_with_sdk,
)


def _mrkdwn(text: str) -> dict[str, Any]:
    return {"type": "mrkdwn", "text": text}


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def _section(text: str = "hi") -> dict[str, Any]:
    return {"type": "section", "text": _mrkdwn(text)}


def _button(**over: Any) -> dict[str, Any]:
    return {"type": "button", "text": _plain("Go"), "action_id": "a", "value": "v"} | over


def _modal(**over: Any) -> dict[str, Any]:
    return {"type": "modal", "title": _plain("Title"), "blocks": [_section()]} | over


@pytest.mark.parametrize(
    ("blocks", "match"),
    [
        ([_section()] * 51, r"blocks: block count is 51, over the limit of 50"),
        ([_section("x" * 3001)], r"blocks\[0\]\.text: text length is 3001"),
        ([{"type": "header", "text": _plain("x" * 151)}], r"blocks\[0\]\.text: text length is 151"),
        ([{"type": "actions", "elements": [_button(text=_plain("x" * 76))]}], r"elements\[0\]\.text"),
        ([{"type": "actions", "elements": [_button(value="v" * 2001)]}], r"elements\[0\]\.value: length is 2001"),
        ([{"type": "actions", "elements": [_button(action_id="a" * 256)]}], r"action_id: length is 256"),
        ([{"type": "actions", "elements": [_button()] * 26}], r"element count is 26, over the limit of 25"),
        ([_section() | {"block_id": "b" * 256}], r"block_id: length is 256"),
        ([_section() | {"fields": [_mrkdwn("f")] * 11}], r"field count is 11"),
        ([_section() | {"fields": [_mrkdwn("f" * 2001)]}], r"fields\[0\]: text length is 2001"),
        ([{"type": "context", "elements": [_mrkdwn("c")] * 11}], r"element count is 11, over the limit of 10"),
        ([_section() | {"accessory": _button(value="v" * 2001)}], r"accessory\.value"),
        ([_section("x" * 2900)] * 5, rf"JSON size in bytes is \d+, over the limit of {MAX_MESSAGE_BYTES}"),
    ],
)
def test_check_message_over_a_limit_raises(blocks: list[dict[str, Any]], match: str) -> None:
    with pytest.raises(BlockLimitError, match=match):
        check_message(blocks)


def test_check_message_within_limits_passes() -> None:
    check_message([_section("x" * 3000), {"type": "actions", "elements": [_button()] * 25}], "fallback")


def test_check_message_long_fallback_text_raises() -> None:
    with pytest.raises(BlockLimitError, match=r"text: text length is 4001"):
        check_message([_section()], "t" * 4001)


def _input(**element: Any) -> dict[str, Any]:
    return {
        "type": "input",
        "label": _plain("L"),
        "element": {"type": "plain_text_input", "action_id": "f"} | element,
    }


@pytest.mark.parametrize(
    ("view", "match"),
    [
        (_modal(blocks=[_section()] * 101), r"view\.blocks: block count is 101, over the limit of 100"),
        (_modal(title=_plain("x" * 25)), r"view\.title: text length is 25"),
        (_modal(submit=_plain("x" * 25)), r"view\.submit"),
        (_modal(close=_plain("x" * 25)), r"view\.close"),
        (_modal(private_metadata="m" * 3001), r"view\.private_metadata: length is 3001"),
        (_modal(callback_id="c" * 256), r"view\.callback_id: length is 256"),
        (_modal(blocks=[_input(max_length=3001)]), r"max_length: max_length is 3001"),
    ],
)
def test_check_view_over_a_limit_raises(view: dict[str, Any], match: str) -> None:
    with pytest.raises(BlockLimitError, match=match):
        check_view(view)


def test_check_view_modal_may_hold_more_blocks_than_a_message() -> None:
    check_view(_modal(blocks=[_section()] * 100))


def test_validate_with_sdk_unknown_block_type_raises() -> None:
    with pytest.raises(BlockLimitError, match=r"blocks\[0\]: unknown block type 'sektion'"):
        validate_with_sdk([{"type": "sektion"}])


def test_validate_with_sdk_unknown_key_raises() -> None:
    with pytest.raises(BlockLimitError, match=r"blocks\[0\]\.txet: not understood by slack_sdk"):
        validate_with_sdk([_section() | {"txet": _mrkdwn("typo")}])


def test_validate_with_sdk_invalid_block_raises_with_sdk_message() -> None:
    with pytest.raises(BlockLimitError, match=r"blocks\[0\]: text or fields attribute must be specified"):
        validate_with_sdk([{"type": "section"}])


def test_validate_with_sdk_valid_blocks_pass() -> None:
    validate_with_sdk([_section(), {"type": "divider"}, {"type": "actions", "elements": [_button()]}])


def test_validate_view_with_sdk_bad_title_raises() -> None:
    with pytest.raises(BlockLimitError, match="title must be between 1 and 24 characters"):
        validate_view_with_sdk(_modal(title=_plain("x" * 30)))


def test_validate_view_with_sdk_unknown_key_raises() -> None:
    with pytest.raises(BlockLimitError, match=r"view\.callbackid: not understood"):
        validate_view_with_sdk(_modal(callbackid="x"))
