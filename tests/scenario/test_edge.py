"""The HTTP edge against the running app: the ``payload`` quirk, requests with no team, and a
malformed body for every listener (each acked, none changing anything)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from blocks import ids
from tests.scenario.harness import OPS, Env, button_value, running, text_of
from workspace import payloads
from workspace.models import BOT_USER_ID, Message
from workspace.people import FORM, JSON
from workspace.transport import Delivery

TASK = "restart payments and check errors after"


async def _pending(env: Env) -> tuple[Message, Message]:
    """A run paused at its plan review: the card and the review."""
    card = await env.start(TASK)
    plan = await env.next_review(card)
    await env.idle()
    return card, plan


async def _snapshot(env: Env) -> tuple[Any, ...]:
    """What a request could change: every run's state and audit events, the channel's messages, views."""
    store = env.bot.deps.store
    runs = [await store.load(summary.id) for summary in await store.list_runs()]
    events = [await store.events(state.id) for state, _ in runs]
    messages = [m.model_dump() for m in env.ws.state.messages[OPS]]
    views = [(v.id, v.open, v.spec) for v in env.ws.state.views.values()]
    return runs, events, messages, views, len(env.ws.state.calls_to("views.publish"))


async def _settle(env: Env) -> None:
    """A positive signal that earlier requests were handled: a later ``/tandem list`` has answered."""
    before = len(env.ws.state.ephemerals_for("U0ALICE"))
    await env.ws.slash_command("alice", OPS, "list")
    await env.ws.wait_until(lambda s: len(s.ephemerals_for("U0ALICE")) > before, within=10)
    await env.idle()


def _form(payload: dict[str, Any]) -> tuple[str, str]:
    return urlencode({"payload": json.dumps(payload)}), FORM


async def _interact(env: Env, payload: dict[str, Any]) -> Delivery:
    body, content_type = _form(payload)
    return await env.ws.send_raw(body, content_type=content_type)


def _click(env: Env, plan: Message, action_id: str, value: str) -> dict[str, Any]:
    alice, ops = env.ws.state.user("alice"), env.ws.state.channel(OPS)
    action = {"type": "button", "action_id": action_id, "block_id": "b1", "value": value, "action_ts": "1.1"}
    return payloads.block_actions(
        user=alice,
        container={"type": "message", "message_ts": plan.ts, "channel_id": OPS, "is_ephemeral": False},
        action=action,
        trigger_id=env.ws.state.issue_trigger(alice.id),
        channel=ops,
        message=plan.to_slack(),
    )


def _click_value(action_id: str, review: str) -> str:
    if action_id in (ids.ANSWER, ids.ANSWER_SELECT):
        return json.dumps({"review": review, "answer": "yes"})
    if action_id == ids.CLARIFY:
        return json.dumps({"review": review, "intent": "approve", "text": "go"})
    return review


# --- one malformed body per listener ------------------------------------------------------------
# Each one carries the pending review (or the run's thread) where it would act, and breaks one
# field the listener's model needs while Bolt still routes it to that listener.

Breaker = Callable[[Env, Message, Message], tuple[str, str]]


def _broken_click(action_id: str) -> Breaker:
    def build(env: Env, card: Message, plan: Message) -> tuple[str, str]:
        payload = _click(env, plan, action_id, _click_value(action_id, button_value(plan, ids.APPROVE)))
        payload["user"] = {"name": "alice"}  # no id
        return _form(payload)

    return build


def _broken_view(callback_id: str, block: str) -> Breaker:
    def build(env: Env, card: Message, plan: Message) -> tuple[str, str]:
        alice = env.ws.state.user("alice")
        view = {
            "id": "V0BROKEN",
            "type": "modal",
            "callback_id": callback_id,
            "private_metadata": json.dumps({"review": button_value(plan, ids.APPROVE), "channel": OPS}),
            "state": {"values": {block: "restart checkout, not payments"}},  # an input's values must be an object
        }
        return _form(payloads.view_submission(user=alice, view=view, trigger_id=env.ws.state.issue_trigger(alice.id)))

    return build


def _broken_command(env: Env, card: Message, plan: Message) -> tuple[str, str]:
    alice, ops = env.ws.state.user("alice"), env.ws.state.channel(OPS)
    form = payloads.slash_command(
        user=alice, channel=ops, command="/tandem", text=TASK, trigger_id="1.1.x", response_url="http://127.0.0.1:9/r"
    )
    del form["user_id"]
    return urlencode(form), FORM


def _broken_event(kind: str) -> Breaker:
    def build(env: Env, card: Message, plan: Message) -> tuple[str, str]:
        event: dict[str, Any]
        if kind == "app_home_opened":
            event = {"type": kind, "channel": "D0ALICE", "tab": "home"}  # no user
        else:
            text = f"<@{BOT_USER_ID}> Looks good, proceed" if kind == "app_mention" else "Looks good, proceed"
            event = {"type": kind, "channel": OPS, "user": "U0ALICE", "text": text, "thread_ts": card.ts}  # no ts
        return json.dumps(payloads.envelope(event, event_id="Ev0BROKEN", event_time=1)), JSON

    return build


LISTENERS: dict[str, tuple[Breaker, str]] = {
    **{action: (_broken_click(action), "button click") for action in sorted(ids.ACTIONS)},
    ids.FEEDBACK_MODAL: (_broken_view(ids.FEEDBACK_MODAL, ids.FEEDBACK_BLOCK), "feedback form"),
    ids.ANSWER_MODAL: (_broken_view(ids.ANSWER_MODAL, ids.ANSWER_BLOCK), "answer form"),
    "/tandem": (_broken_command, "/tandem command"),
    "message": (_broken_event("message"), "message event"),
    "app_mention": (_broken_event("app_mention"), "mention"),
    "app_home_opened": (_broken_event("app_home_opened"), "App Home event"),
}


@pytest.mark.parametrize("listener", sorted(LISTENERS))
async def test_listener_malformed_body_is_acked_and_changes_nothing(
    tmp_path: Path, listener: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="tandem.bot")
    breaker, surface = LISTENERS[listener]
    async with running(tmp_path) as env:
        card, plan = await _pending(env)
        before = await _snapshot(env)
        body, content_type = breaker(env, card, plan)
        delivery = await env.ws.send_raw(body, content_type=content_type)
        assert 200 <= delivery.status < 300, (delivery.status, delivery.body)
        await _settle(env)
        assert await _snapshot(env) == before
        if listener != ids.OPEN_LINK:  # a link button's click is only acked (Slack opens the link): nothing to read
            assert any(f"ignored an unreadable {surface}" in r.getMessage() for r in caplog.records), "not reached"
        if listener == "/tandem":
            assert "could not read" in str(delivery.reply())  # Slack shows the ack's text to whoever typed it


async def test_click_malformed_but_naming_its_sender_tells_them(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _pending(env)
        payload = _click(env, plan, ids.APPROVE, button_value(plan, ids.APPROVE))
        payload["actions"][0]["value"] = {"review": button_value(plan, ids.APPROVE)}  # not a string
        delivery = await _interact(env, payload)
        assert delivery.status == 200
        await env.ws.wait_until(lambda s: bool(s.ephemerals_for("U0ALICE")))
        told = env.ws.state.ephemerals_for("U0ALICE")[-1]
        assert "could not read this button click" in text_of(told)  # type: ignore[arg-type]
        record = await env.bot.deps.store.get_review(button_value(plan, ids.APPROVE))
        assert record is not None and record.status == "pending"


async def test_click_whose_modal_cannot_open_is_still_acked_at_once(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _pending(env)
        payload = _click(env, plan, ids.REJECT, button_value(plan, ids.REJECT))
        payload["trigger_id"] = "expired"  # views.open fails right after the ack
        delivery = await _interact(env, payload)
        assert delivery.status == 200 and delivery.error is None, delivery
        await env.ws.wait_for_call("views.open")
        assert not env.ws.state.open_modals("U0ALICE")


# --- Bolt's `payload` substring quirk -----------------------------------------------------------


async def test_slash_command_whose_text_says_payload_starts_a_run(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        delivery = await env.ws.slash_command("alice", OPS, "check the payload limits on checkout")
        assert delivery.status == 200, delivery.body
        await env.wait(env.cards)
        card = env.cards()[0]
        assert "check the payload limits on checkout" in text_of(card)
        # the run started and, as it only reads, ran to done (the card comes first)
        await env.wait(lambda: "Done" in text_of(env.ws.state.message(OPS, card.ts)))
        runs = await env.bot.deps.store.list_runs()
        assert len(runs) == 1


# --- which workspace --------------------------------------------------------------------------


def _without_team(payload: dict[str, Any]) -> dict[str, Any]:
    payload.pop("team", None)
    payload["user"].pop("team_id", None)
    return payload


def _refused(delivery: Delivery) -> None:
    assert delivery.status == 400 and "names no workspace" in delivery.body, (delivery.status, delivery.body)


async def test_click_with_no_team_is_refused_and_changes_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _pending(env)
        before = await _snapshot(env)
        payload = _without_team(_click(env, plan, ids.APPROVE, button_value(plan, ids.APPROVE)))
        _refused(await _interact(env, payload))
        await _settle(env)
        assert await _snapshot(env) == before


async def test_command_with_no_team_is_refused_and_starts_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        alice, ops = env.ws.state.user("alice"), env.ws.state.channel(OPS)
        form = payloads.slash_command(
            user=alice, channel=ops, command="/tandem", text=TASK, trigger_id="1.1.x", response_url="http://x/r"
        )
        del form["team_id"]
        _refused(await env.ws.send_raw(urlencode(form), content_type=FORM))
        await _settle(env)
        assert not env.cards() and not await env.bot.deps.store.list_runs()


async def test_click_from_another_workspace_is_ignored(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _pending(env)
        before = await _snapshot(env)
        payload = _click(env, plan, ids.APPROVE, button_value(plan, ids.APPROVE))
        payload["team"] = {"id": "T0ELSEWHERE"}
        delivery = await _interact(env, payload)
        assert delivery.status == 200 and not delivery.body
        await _settle(env)
        assert await _snapshot(env) == before


async def test_url_verification_and_ssl_check_without_a_team_are_answered(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        challenge = {"token": payloads.VERIFICATION_TOKEN, "challenge": "c-123", "type": "url_verification"}
        verified = await env.ws.send_raw(json.dumps(challenge))
        assert verified.status == 200 and verified.reply() == {"challenge": "c-123"}
        checked = await env.ws.send_raw("ssl_check=1&token=x", content_type=FORM, forge="unsigned")
        assert checked.status == 200 and not checked.body
