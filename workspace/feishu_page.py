"""The Feishu-style chat page of the local Feishu fake (``tandem dev`` serves it beside the Slack one).

People pick who they are (alice, bob or carol), write in the group chat (the bot is mentioned
for them), reply in a run's thread, and click the cards' buttons and forms. Every action goes
through the fake exactly as in the tests: an encrypted, signed request to the bot's
``/feishu/events``, and a card callback's answer (the updated card or a toast) shown as Feishu
shows it. The page polls ``/ui/state`` for what the bot posted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from workspace.feishu_fake import BOT_OPEN_ID, PEOPLE, FeishuFake

STATIC = Path(__file__).parent / "static"
CHAT = "oc_ops"
CHAT_NAME = "ops"
SHOWN = ("alice", "bob", "carol")
ROLES = {"alice": "requester", "bob": "approver", "carol": "outsider"}


class _Form(BaseModel):
    model_config = ConfigDict(extra="forbid")

    person: str = Field(pattern="^(alice|bob|carol)$")


class SayForm(_Form):
    text: str = Field(min_length=1, max_length=4000)
    root_id: str | None = None


class ClickForm(_Form):
    message_id: str
    value: dict[str, Any]
    form_value: dict[str, Any] | None = None


def add_page(app: web.Application, fake: FeishuFake) -> None:
    async def index(request: web.Request) -> web.FileResponse:
        return web.FileResponse(STATIC / "feishu.html", headers={"Cache-Control": "no-cache"})

    async def state(request: web.Request) -> web.Response:
        return web.json_response(snapshot(fake, request.query.get("person", "alice")))

    async def say(request: web.Request) -> web.Response:
        try:
            form = SayForm.model_validate(await request.json())
        except (ValidationError, ValueError) as exc:
            return web.json_response({"error": str(exc)[:300]}, status=400)
        if form.root_id is not None and form.root_id not in fake.messages:
            return web.json_response({"error": "no such thread"}, status=400)
        in_thread = form.root_id is not None
        answer = await fake.say(form.person, CHAT, form.text, root_id=form.root_id, mention_bot=not in_thread)
        return web.json_response({"status": answer.status, "body": answer.body})

    async def click(request: web.Request) -> web.Response:
        try:
            form = ClickForm.model_validate(await request.json())
        except (ValidationError, ValueError) as exc:
            return web.json_response({"error": str(exc)[:300]}, status=400)
        if form.message_id not in fake.messages:
            return web.json_response({"error": "no such message"}, status=400)
        answer = await fake.click_value(form.person, form.message_id, form.value, form.form_value)
        return web.json_response({"status": answer.status, "body": answer.body})

    app.router.add_get("/", index)
    app.router.add_get("/ui/state", state)
    app.router.add_post("/ui/say", say)
    app.router.add_post("/ui/click", click)
    app.router.add_static("/static/", STATIC)


def snapshot(fake: FeishuFake, person: str) -> dict[str, Any]:
    """What ``person`` sees: the chat's messages (cards and texts, threads by root) and their private cards."""
    names = {oid: name for name, (oid, _, _) in PEOPLE.items()} | {BOT_OPEN_ID: "Tandem"}
    me = PEOPLE.get(person, PEOPLE["alice"])[0]
    messages = [
        {
            "id": m.message_id,
            "root_id": m.root_id,
            "sender": names.get(m.sender, m.sender),
            "bot": m.sender == BOT_OPEN_ID,
            "text": m.text,
            "card": m.card or None,
            "edits": m.edits,
        }
        for m in fake.messages.values()
        if m.chat_id == CHAT
    ]
    private = [{"card": card} for chat, who, card in fake.ephemerals if chat == CHAT and who == me]
    people = [{"name": n, "open_id": PEOPLE[n][0], "role": ROLES[n]} for n in SHOWN]
    return {"chat": CHAT_NAME, "me": person, "people": people, "names": names, "messages": messages, "private": private}
