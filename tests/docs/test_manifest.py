"""manifest.yml matches what the app handles, both ways."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import yaml

from blocks import ids
from bot.handlers import COMMAND, EVENTS
from tests.scenario.harness import OPS, running

ROOT = Path(__file__).resolve().parents[2]
MANIFEST: dict[str, Any] = yaml.safe_load((ROOT / "manifest.yml").read_text())
# Slack's event subscription names → the event type the app receives
EVENT_TYPES = {
    "message.channels": "message",
    "message.groups": "message",
    "app_mention": "app_mention",
    "app_home_opened": "app_home_opened",
}
SCOPES_FOR = {
    "message.channels": "channels:history",
    "message.groups": "groups:history",
    "app_mention": "app_mentions:read",
    "app_home_opened": "chat:write",  # needs no scope of its own; views.publish works with the bot token
}


def test_manifest_commands_match_the_registered_command() -> None:
    assert [c["command"] for c in MANIFEST["features"]["slash_commands"]] == [COMMAND]


def test_manifest_events_match_the_registered_events_both_ways() -> None:
    subscribed = MANIFEST["settings"]["event_subscriptions"]["bot_events"]
    assert {EVENT_TYPES[e] for e in subscribed} == set(EVENTS)


def test_manifest_scopes_are_exactly_the_needed_ones() -> None:
    subscribed = MANIFEST["settings"]["event_subscriptions"]["bot_events"]
    needed = {"commands", "chat:write", "usergroups:read", "files:write"} | {SCOPES_FOR[e] for e in subscribed}
    assert set(MANIFEST["oauth_config"]["scopes"]["bot"]) == needed


def test_manifest_enables_interactivity_for_the_buttons_and_modal() -> None:
    assert MANIFEST["settings"]["interactivity"]["is_enabled"] is True
    assert ids.APPROVE in ids.ACTIONS and ids.FEEDBACK_MODAL in ids.CALLBACKS


@pytest.mark.parametrize("event_type", sorted({EVENT_TYPES[e] for e in EVENT_TYPES}))
async def test_every_subscribed_event_reaches_a_listener(
    tmp_path: Path, event_type: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    async with running(tmp_path) as env:
        event = {"type": event_type, "channel": OPS, "user": "U0ALICE", "text": "<@U0TANDEMBOT> hi", "ts": "1.1"}
        delivery = await env.ws.deliver(event)
        assert delivery.status == 200
        await env.idle()
    assert not [r for r in caplog.records if "Unhandled request" in r.getMessage()]


async def test_every_registered_action_is_handled(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    async with running(tmp_path) as env:
        app = env.bot.app
        for action_id in sorted(ids.ACTIONS):
            payload = {
                "type": "block_actions",
                "user": {"id": "U0ALICE"},
                "team": {"id": "T0TANDEM"},
                "channel": {"id": OPS},
                "container": {"type": "message", "channel_id": OPS, "message_ts": "1.1"},
                "actions": [{"action_id": action_id, "block_id": "b", "value": "nope", "type": "button"}],
                "trigger_id": env.ws.state.issue_trigger("U0ALICE"),
            }
            import json
            from urllib.parse import urlencode

            delivery = await env.ws.send_raw(
                urlencode({"payload": json.dumps(payload)}), content_type="application/x-www-form-urlencoded"
            )
            assert delivery.status == 200, (action_id, delivery.body)
        await env.idle()
        del app
    assert not [r for r in caplog.records if "Unhandled request" in r.getMessage()]
