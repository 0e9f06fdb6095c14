"""A small slack_bolt AsyncApp that records what reached it, for the workspace's tests."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp, AsyncRespond, AsyncSay
from slack_bolt.request.async_request import AsyncBoltRequest
from slack_sdk.web.async_client import AsyncWebClient

from workspace import Workspace

PLAN: list[dict[str, Any]] = [
    {"type": "section", "block_id": "plan", "text": {"type": "mrkdwn", "text": "Plan: restart web"}},
    {
        "type": "actions",
        "block_id": "review",
        "elements": [
            {
                "type": "button",
                "action_id": "approve",
                "text": {"type": "plain_text", "text": "Approve"},
                "value": "run-1",
                "style": "primary",
            },
            {
                "type": "button",
                "action_id": "reject",
                "text": {"type": "plain_text", "text": "Reject"},
                "value": "run-1",
            },
        ],
    },
]
FORM: dict[str, Any] = {
    "type": "modal",
    "callback_id": "request",
    "title": {"type": "plain_text", "text": "Request"},
    "submit": {"type": "plain_text", "text": "Send"},
    "private_metadata": "run-1",
    "blocks": [
        {
            "type": "input",
            "block_id": "reason",
            "label": {"type": "plain_text", "text": "Reason"},
            "element": {"type": "plain_text_input", "action_id": "text"},
        }
    ],
}


def home(text: str) -> dict[str, Any]:
    button = {"type": "button", "action_id": "refresh", "text": {"type": "plain_text", "text": "Refresh"}}
    return {
        "type": "home",
        "blocks": [
            {"type": "section", "block_id": "top", "text": {"type": "mrkdwn", "text": text}, "accessory": button}
        ],
    }


@dataclass
class Seen:
    commands: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    submissions: list[dict[str, Any]] = field(default_factory=list)
    events: list[tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=list)


def build_bot(ws: Workspace, seen: Seen) -> AsyncApp:
    client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    # The token comes from the client; passing token= as well only makes bolt log a warning.
    app = AsyncApp(signing_secret=ws.signing_secret, client=client)

    @app.command("/tandem")
    async def on_command(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        seen.commands.append(body)
        if body["text"] == "quick":
            await ack(text="on it")
            return
        await ack()
        if body["text"] == "form":
            await client.views_open(trigger_id=body["trigger_id"], view=FORM)
        else:
            await client.chat_postMessage(channel=body["channel_id"], text=f"plan: {body['text']}", blocks=PLAN)

    @app.action("approve")
    async def on_approve(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        seen.actions.append(body)
        container = body["container"]
        text = f"approved by <@{body['user']['id']}>"
        await client.chat_update(channel=container["channel_id"], ts=container["message_ts"], text=text, blocks=[])

    @app.action("reject")
    async def on_reject(ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        seen.actions.append(body)
        await respond(replace_original=True, text="rejected")

    @app.action("dismiss")
    async def on_dismiss(ack: AsyncAck, body: dict[str, Any], respond: AsyncRespond) -> None:
        await ack()
        seen.actions.append(body)
        await respond(delete_original=True)

    @app.action("refresh")
    async def on_refresh(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        await ack()
        seen.actions.append(body)
        await client.views_publish(user_id=body["user"]["id"], view=home(f"refreshed {len(seen.actions)}"))

    @app.view("request")
    async def on_submit(ack: AsyncAck, body: dict[str, Any], client: AsyncWebClient) -> None:
        seen.submissions.append(body)
        reason = body["view"]["state"]["values"]["reason"]["text"]["value"] or ""
        if len(reason) < 5:
            await ack(response_action="errors", errors={"reason": "Say a bit more"})
            return
        await ack()
        await client.chat_postMessage(channel="C0OPS", text=f"request: {reason}")

    @app.event("message")
    async def on_message(body: dict[str, Any], request: AsyncBoltRequest, client: AsyncWebClient) -> None:
        seen.events.append((body, dict(request.headers)))
        event = body["event"]
        if event.get("thread_ts"):
            await client.chat_postMessage(channel=event["channel"], thread_ts=event["thread_ts"], text="noted")

    @app.event("app_mention")
    async def on_mention(body: dict[str, Any], request: AsyncBoltRequest, say: AsyncSay) -> None:
        seen.events.append((body, dict(request.headers)))
        await say(text="hello", thread_ts=body["event"]["ts"])

    return app
