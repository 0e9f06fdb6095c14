"""Reading Slack request bodies before Bolt does: what is read, what is refused and why."""

from __future__ import annotations

import json
import random
from typing import Any
from urllib.parse import parse_qsl, quote_plus, urlencode

import pytest
from slack_bolt.request.async_request import AsyncBoltRequest

from bot.envelope import (
    MAX_CONTAINERS,
    BadRequest,
    check_envelope,
    is_ssl_check,
    read_body,
    read_body_text,
    read_form,
)

FORM = "application/x-www-form-urlencoded"
JSON = "application/json"
TEAM = {"id": "T0TANDEM"}
CLICK = {"type": "block_actions", "team": TEAM, "user": {"id": "U1"}, "actions": [{"action_id": "tandem.approve"}]}
COMMAND = {"command": "/tandem", "text": "check the payload limits", "team_id": "T0TANDEM", "user_id": "U1"}


def interaction(payload: dict[str, Any]) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode()


@pytest.mark.parametrize(
    ("raw", "content_type", "kind"),
    [
        (interaction(CLICK), FORM, "block_actions"),
        (json.dumps(CLICK).encode(), JSON, "block_actions"),
        (urlencode(COMMAND).encode(), FORM, "slash_command"),
        (urlencode({**COMMAND, "text": "payload=1"}).encode(), FORM, "slash_command"),
        (json.dumps({"type": "url_verification", "challenge": "c", "token": "t"}).encode(), JSON, "url_verification"),
        (json.dumps({"type": "event_callback", "team_id": "T", "event": {"type": "message"}}).encode(), None, None),
        (json.dumps({"type": "app_rate_limited", "team_id": "T", "minute_rate_limited": 1}).encode(), JSON, None),
        (interaction({"type": "view_closed", "view": {"callback_id": "x", "type": "modal"}}), FORM, None),
        (interaction({"type": "block_suggestion", "action_id": "a"}), FORM, None),
    ],
)
def test_read_body_slack_shapes_are_read_and_bolt_can_build_a_request(
    raw: bytes, content_type: str | None, kind: str | None
) -> None:
    body = read_body(raw, content_type)
    read_kind = check_envelope(body)
    assert read_kind == (kind or body["type"])
    AsyncBoltRequest(body=json.dumps(body), headers={"content-type": JSON}, context={"logger": None})


def test_read_body_command_saying_payload_keeps_its_text() -> None:
    body = read_body(urlencode(COMMAND).encode(), FORM)
    assert body["text"] == "check the payload limits" and body["command"] == "/tandem"


@pytest.mark.parametrize(
    ("raw", "content_type", "reason"),
    [
        (b"", FORM, "empty"),
        (b"  \n", JSON, "empty"),
        (b"\xff\xfe{}", JSON, "not UTF-8"),
        (b"[1, 2]", JSON, "not an object"),
        (b'{"a": 1', JSON, "not valid JSON"),
        (b'{"a": NaN}', JSON, "not valid JSON"),
        (b'{"a": ' + b"1" * 5000 + b"}", JSON, "not valid JSON"),
        (b"[" * 5000 + b"]" * 5000, JSON, "nested too deeply"),
        (b'{"a":' * 100 + b"1" + b"}" * 100, JSON, "more than 64 levels"),
        (b'{"a": [' + b"[]," * MAX_CONTAINERS + b"[]]}", JSON, "JSON objects and arrays"),
        (b"payload=", FORM, "not valid JSON"),
        (b"payload=%5B%5D", FORM, "not an object"),
        (b"payload=%7B%7D&token=x", FORM, "only its `payload`"),
        (b"command=%2Ftandem&command=%2Fother", FORM, "twice"),
        (b"text=hello", FORM, "neither a slash command"),
        (b"payload", FORM, "`payload` field is not valid JSON"),
    ],
)
def test_read_body_unreadable_bodies_are_refused_with_a_reason(
    raw: bytes, content_type: str | None, reason: str
) -> None:
    with pytest.raises(BadRequest, match=reason):
        read_body(raw, content_type)


def nested(levels: int) -> bytes:
    """A JSON object whose containers go ``levels`` deep, objects and arrays in turn, with empty ones beside."""
    text = "[]"
    for level in range(levels - 2, 0, -1):
        text = f'{{"a": {text}, "w": []}}' if level % 2 else f"[{text}, {{}}, 3]"
    return ('{"type": "block_actions", "deep": ' + text + "}").encode()


def depth(value: object) -> int:
    """Levels of containers, by the definition (an object or array is one more than its deepest child)."""
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max((depth(c) for c in children), default=0)


def test_read_body_depth_limit_is_exact_for_objects_and_arrays() -> None:
    assert depth(json.loads(nested(65))) == 65
    assert depth(read_body(nested(64), JSON)) == 64  # at the limit: read
    with pytest.raises(BadRequest, match="more than 64 levels"):
        read_body(nested(65), JSON)


def test_read_body_depth_check_agrees_with_the_definition_on_random_trees() -> None:
    rng = random.Random(25)

    def tree(levels: int) -> object:
        """A spine ``levels`` deep (objects and arrays at random), with shallow branches off it."""
        if levels == 0:
            return rng.choice([1, "[{", None, 2.5])
        twigs = [rng.choice([[], {}, [1, [2]], {"x": {"y": []}}, "]}"]) for _ in range(rng.randint(0, 2))]
        if rng.random() < 0.5:
            return [*twigs, tree(levels - 1)]
        return {**{f"t{i}": twig for i, twig in enumerate(twigs)}, "k": tree(levels - 1)}

    for _ in range(3000):
        body = {"type": "block_actions", "deep": tree(rng.randint(58, 66))}
        raw = json.dumps(body).encode()
        if depth(body) <= 64:
            assert read_body(raw, JSON) == body
        else:
            with pytest.raises(BadRequest, match="more than 64 levels"):
                read_body(raw, JSON)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({}, "no `type`"),
        ({"type": 5}, "not a string"),
        ({"type": "shortcut", "callback_id": "x"}, "does not handle `shortcut`"),
        ({"type": "interactive_message", "callback_id": [], "actions": {}}, "does not handle"),
        ({**CLICK, "actions": []}, "at least 1 item"),
        ({**CLICK, "actions": "tandem.approve"}, "valid list"),
        ({**CLICK, "actions": [{"value": "r1"}]}, "action_id: Field required"),
        ({**CLICK, "team": 5}, "team"),
        ({**CLICK, "user": ["U1"]}, "user"),
        ({**CLICK, "authorizations": "abc"}, "authorizations"),
        ({**CLICK, "authorizations": [5]}, "authorizations.0"),
        ({**CLICK, "event": None}, "`event` is null"),
        ({**CLICK, "event": "message"}, "event"),
        ({**CLICK, "response_urls": None}, "`response_urls` is null"),
        ({**CLICK, "message": {"user": 5}}, "message.user"),
        ({**CLICK, "function_execution_id": "F1", "bot_access_token": "xoxb-other"}, "function_execution_id"),
        ({"type": "event_callback", "event": {"text": "hi"}}, "event.type: Field required"),
        ({"type": "event_callback", "event": {"type": "message", "user": 5}}, "event.user"),
        ({"type": "event_callback", "event": {"type": "message", "message": {"channel": 5}}}, "event.message"),
        ({"type": "view_submission", "view": "callback_id"}, "view"),
        ({"type": "view_submission", "view": {"callback_id": "x"}}, "view.type"),
        ({"type": "view_submission", "view": {"callback_id": "x", "type": "workflow_step"}}, "view.type"),
        ({"type": "url_verification", "challenge": {"x": 1}}, "challenge"),
        ({"command": 5}, "command"),
    ],
)
def test_check_envelope_fields_bolt_would_trip_over_are_refused(body: dict[str, Any], reason: str) -> None:
    with pytest.raises(BadRequest, match=reason):
        check_envelope(body)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(b"ssl_check=1&token=x", True), (b"token=x&ssl_check=1", True), (b"ssl_check=0", False), (b"x=1", False)],
)
def test_is_ssl_check_only_for_slack_certificate_checks(raw: bytes, expected: bool) -> None:
    assert is_ssl_check(raw) is expected


def _random_form_value(rng: random.Random) -> str:
    """Percent-encoded text with the odd stray escape, raw backslash, plus, non-ASCII or broken UTF-8."""
    pieces = [
        lambda: quote_plus(rng.choice(['{"a": "b c"}', "100%", "\\n\\x41", "é中", "a+b", "[x]", "\\"])),
        lambda: rng.choice(["%", "%4", "%zz", "%C3", "%C3%A9", "%E4%B8", "\\", "\\x41", "\\%41", "+", "é"]),
        lambda: "".join(rng.choice("ab%+\\xX0123456789AFaf") for _ in range(rng.randint(0, 6))),
    ]
    return "".join(rng.choice(pieces)() for _ in range(rng.randint(0, 8)))


def test_read_form_reads_every_payload_field_as_parse_qsl_does() -> None:
    rng = random.Random(20261204)
    for _ in range(5000):
        text = "payload=" + _random_form_value(rng)
        assert read_form(text) == parse_qsl(text, keep_blank_values=True), text


def test_read_form_other_forms_are_read_as_parse_qsl_does() -> None:
    for text in ["payload=a&payload=b", "command=%2Ftandem&text=payload%3D1", "payloads=x", "", "payload"]:
        assert read_form(text) == parse_qsl(text, keep_blank_values=True), text


def test_read_body_text_is_the_payload_as_sent() -> None:
    sent = json.dumps({**CLICK, "message": {"text": "restart 100% of \\ payments+api — 中文"}})
    body, text = read_body_text(urlencode({"payload": sent}).encode(), FORM)
    assert text == sent and body == json.loads(sent)
    assert read_body_text(urlencode(COMMAND).encode(), FORM) == (COMMAND, None)
