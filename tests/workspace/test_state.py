"""Workspace internals that need no bot: clock, signing, payload shapes, response_url."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from slack_sdk.signature import SignatureVerifier

from workspace import ScenarioError, SlackFailure, Workspace, WorkspaceState
from workspace.payloads import input_values
from workspace.transport import Forgery, signed_headers

ROOT = Path(__file__).resolve().parents[2]


def test_next_ts_frozen_clock_still_strictly_increases() -> None:
    state = WorkspaceState(clock=lambda: 1732900000.0)

    stamps = [state.next_ts() for _ in range(3)]

    assert stamps == ["1732900000.000000", "1732900000.000001", "1732900000.000002"]


def test_trigger_redeemed_within_three_seconds_only() -> None:
    state = WorkspaceState(clock=lambda: 1732900000.0)
    fresh, stale = state.issue_trigger("alice"), state.issue_trigger("bob")

    state.advance(2.9)
    assert state.redeem_trigger(fresh).user == "U0ALICE"
    state.advance(0.2)
    with pytest.raises(SlackFailure, match="expired_trigger_id"):
        state.redeem_trigger(stale)


@pytest.mark.parametrize(("forge", "valid"), [(None, True), ("bad_signature", False), ("stale_timestamp", False)])
def test_signed_headers_checked_by_slack_sdk_verifier(forge: Forgery | None, valid: bool) -> None:
    body = "payload=%7B%7D"

    headers = signed_headers(
        body, signing_secret="s3cret", content_type="application/x-www-form-urlencoded", forge=forge
    )

    assert SignatureVerifier("s3cret").is_valid_request(body, headers) is valid


def test_input_values_shapes_selects_checkboxes_and_initial_values() -> None:
    option = {"text": {"type": "plain_text", "text": "High"}, "value": "high"}
    blocks: list[dict[str, Any]] = [
        {
            "type": "input",
            "block_id": "risk",
            "element": {"type": "static_select", "action_id": "pick", "options": [option]},
        },
        {"type": "input", "block_id": "ack", "element": {"type": "checkboxes", "action_id": "c", "options": [option]}},
        {
            "type": "input",
            "block_id": "note",
            "optional": True,
            "element": {"type": "plain_text_input", "action_id": "t", "initial_value": "as before"},
        },
    ]

    values = input_values(blocks, {"pick": "high", "ack": ["high"]})

    assert values == {
        "risk": {"pick": {"type": "static_select", "selected_option": option}},
        "ack": {"c": {"type": "checkboxes", "selected_options": [option]}},
        "note": {"t": {"type": "plain_text_input", "value": "as before"}},
    }


@pytest.mark.parametrize(
    ("given", "match"), [({"risk": "nope"}, "no option"), ({"risk": "high", "x": "1"}, "no input")]
)
def test_input_values_unknown_option_or_input_raises(given: dict[str, str], match: str) -> None:
    option = {"text": {"type": "plain_text", "text": "High"}, "value": "high"}
    blocks = [
        {
            "type": "input",
            "block_id": "risk",
            "element": {"type": "radio_buttons", "action_id": "r", "options": [option]},
        }
    ]

    with pytest.raises(ScenarioError, match=match):
        input_values(blocks, given)


@pytest.mark.parametrize(
    ("payload", "in_channel", "ephemeral"),
    [
        ({"text": "for you"}, [], ["for you"]),
        ({"text": "for all", "response_type": "in_channel"}, ["for all"], []),
    ],
)
async def test_response_url_posts_ephemeral_by_default_or_in_channel(
    ws: Workspace, payload: dict[str, Any], in_channel: list[str], ephemeral: list[str]
) -> None:
    hook = ws.state.issue_hook("alice", "#ops")

    async with aiohttp.ClientSession() as session:
        async with session.post(f"{ws.base_url}/response/{hook.id}", json=payload) as response:
            assert response.status == 200

    assert [m.text for m in ws.state.history("C0OPS")] == in_channel
    assert [e.text for e in ws.state.ephemerals_for("alice")] == ephemeral
    assert ws.state.calls_to("response_url")[0].params == payload


async def test_response_url_expires_after_five_uses(ws: Workspace) -> None:
    hook = ws.state.issue_hook("alice", "#ops")
    statuses = []

    async with aiohttp.ClientSession() as session:
        for _ in range(6):
            async with session.post(f"{ws.base_url}/response/{hook.id}", json={"text": "x"}) as response:
                statuses.append(response.status)

    assert statuses == [200] * 5 + [404]


@pytest.mark.parametrize("package", ["agent", "bot", "storage", "blocks"])
def test_runtime_package_never_imports_workspace(package: str) -> None:
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            assert not any(n == "workspace" or n.startswith("workspace.") for n in names), path
