"""The browser UI: a Slack-like page over the local workspace, served beside the Web API.

``GET /`` is the page (``workspace/static``: plain HTML, CSS and JS modules, no
build step). ``GET /ui/state?user=alice`` is what that person sees (see
:mod:`workspace.snapshot`); ``GET /ui/events?user=alice`` streams it as
server-sent events: one ``snapshot`` on connect, then a ``change`` (the named
changes and the new snapshot) after every change to the workspace.

The ``POST /ui/...`` endpoints take JSON and do what the person would do in
Slack through :class:`~workspace.people.Workspace`, so every click, submission,
slash command and message reaches the bot as a signed Slack request.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import aiohttp
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from workspace import payloads
from workspace.errors import WorkspaceError
from workspace.people import Workspace
from workspace.snapshot import Snapshot, changes, snapshot
from workspace.state import WorkspaceState
from workspace.transport import Delivery

STATIC = Path(__file__).parent / "static"
KEEPALIVE = 15.0
COALESCE = 0.02
"""Seconds to wait after a change for the ones that come with it (a post and its card update)."""


@dataclass
class Ui:
    state: WorkspaceState
    workspace: Workspace | None = None
    closed: bool = False


UI = web.AppKey("tandem_ui", Ui)


class _Action(BaseModel):
    model_config = ConfigDict(extra="forbid")

    user: str
    client: str | None = Field(default=None, max_length=64)
    """The page's browser session: a modal opened by this action shows in that session only."""


class CommandForm(_Action):
    channel: str
    text: str = ""
    command: str = "/tandem"


class PostForm(_Action):
    channel: str
    text: str
    thread_ts: str | None = None


class ClickForm(_Action):
    action_id: str
    value: str | None = None
    channel: str | None = None
    ts: str | None = None
    view_id: str | None = None


class SubmitForm(_Action):
    view_id: str
    values: dict[str, str | list[str]] = {}


class ViewForm(_Action):
    view_id: str


class DismissForm(_Action):
    ts: str


def add_ui(app: web.Application, state: WorkspaceState) -> Ui:
    """Serve the page and its endpoints from ``app``; set ``Ui.workspace`` once the workspace exists."""
    ui = Ui(state)
    app[UI] = ui
    app.router.add_get("/", _index)
    app.router.add_static("/static/", STATIC)
    app.router.add_get("/ui/state", _state)
    app.router.add_get("/ui/events", _events)
    app.router.add_get("/feishu", _feishu)
    app.router.add_get("/inbox", _inbox)
    for name, handler in _ACTIONS.items():
        app.router.add_post(f"/ui/{name}", handler)
    app.on_shutdown.append(_close_streams)
    return ui


# -- reading -------------------------------------------------------------------------------


async def _index(request: web.Request) -> web.FileResponse:
    return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


async def _feishu(request: web.Request) -> web.Response:
    """The Feishu-style chat beside this page (``tandem dev`` runs both), or why there is none."""
    url = request.app[UI].state.elsewhere.get("feishu")
    if not url:
        return web.Response(status=404, text="No Feishu view here: `tandem dev` runs one beside this page.")
    raise web.HTTPFound(url)


async def _inbox(request: web.Request) -> web.Response:
    """The web inbox (``tandem dev`` serves one beside this page), signed in as ``?user=`` (the person shown)."""
    url = request.app[UI].state.elsewhere.get("inbox")
    if not url:
        return web.Response(status=404, text="No web inbox here: `tandem dev` serves one beside this page.")
    user = request.query.get("user", "")
    raise web.HTTPFound(f"{url}/signin/as?{urlencode({'person': user, 'next': '/inbox/'})}")


async def _state(request: web.Request) -> web.Response:
    ui = request.app[UI]
    try:
        return web.json_response(snapshot(ui.state, request.query.get("user", "alice"), request.query.get("client")))
    except WorkspaceError as exc:
        return web.json_response({"ok": False, "error": str(exc)}, status=404)


async def _events(request: web.Request) -> web.StreamResponse:
    ui = request.app[UI]
    user, client = request.query.get("user", "alice"), request.query.get("client")
    try:
        before: Snapshot | None = snapshot(ui.state, user, client)
    except WorkspaceError as exc:
        return web.json_response({"ok": False, "error": str(exc)}, status=404)
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    try:
        version = ui.state.changes.version
        await _send(response, "snapshot", {"changes": [], "state": before})
        while not ui.closed:
            try:
                async with asyncio.timeout(KEEPALIVE):
                    await ui.state.changes.wait_past(version)
            except TimeoutError:
                await response.write(b": keep-alive\n\n")
                continue
            await asyncio.sleep(COALESCE)
            version = ui.state.changes.version
            if ui.closed:
                break
            after = snapshot(ui.state, user, client)
            found = changes(before, after)
            if found:
                await _send(response, "change", {"changes": [c.model_dump() for c in found], "state": after})
            before = after
    except ConnectionResetError:
        pass  # the page went away
    return response


async def _send(response: web.StreamResponse, event: str, data: dict[str, Any]) -> None:
    await response.write(f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode())


async def _close_streams(app: web.Application) -> None:
    ui = app[UI]
    ui.closed = True
    ui.state.changes.bump()  # wakes every stream, which then sees ``closed`` and ends


# -- acting ------------------------------------------------------------------------------

Handler = Callable[[web.Request], Awaitable[web.Response]]


def _action(
    form: type[_Action], act: Callable[[Workspace, Any], Awaitable[Delivery | None]], *, needs_bot: bool = True
) -> Handler:
    """A POST endpoint: parse the JSON body as ``form``, act as its user, report how the bot answered."""

    async def handle(request: web.Request) -> web.Response:
        ui = request.app[UI]
        try:
            parsed = form.model_validate_json(await request.text())
        except ValidationError as exc:
            return web.json_response({"ok": False, "error": f"bad request: {exc.errors()[0]['msg']}"}, status=400)
        if ui.workspace is None or (needs_bot and ui.workspace.events_url is None):
            return web.json_response({"ok": False, "error": "No bot is connected to this workspace."}, status=503)
        try:
            delivery = await act(ui.workspace, parsed)
        except WorkspaceError as exc:
            return web.json_response({"ok": False, "error": str(exc)}, status=422)
        except (aiohttp.ClientError, OSError) as exc:
            error = f"The bot is not reachable at {ui.workspace.events_url}: {exc}"
            return web.json_response({"ok": False, "error": error}, status=502)
        finally:
            ui.state.changes.bump()
        if delivery is None:
            return web.json_response({"ok": True, "delivery": None})
        problem = _problem(delivery)
        shown = {"kind": delivery.kind, "status": delivery.status, "error": delivery.error}
        return web.json_response({"ok": problem is None, "error": problem, "delivery": shown})

    return handle


def _problem(delivery: Delivery) -> str | None:
    if delivery.error == "operation_timeout":
        return "The bot did not answer within 3 seconds; Slack would show an error here."
    if delivery.status != 200:
        return f"The bot answered HTTP {delivery.status}: {delivery.body[:200]}"
    if delivery.error:
        return f"Slack could not apply the bot's answer: {delivery.error}"
    return None


async def _command(ws: Workspace, form: CommandForm) -> Delivery:
    return await ws.slash_command(form.user, form.channel, form.text.strip(), command=form.command, client=form.client)


async def _post(ws: Workspace, form: PostForm) -> Delivery:
    text, mentions_bot = typed_text(ws.state, form.text)
    if mentions_bot:
        return await ws.mention(form.user, form.channel, text, thread_ts=form.thread_ts)
    return await ws.post(form.user, form.channel, text, thread_ts=form.thread_ts)


async def _click(ws: Workspace, form: ClickForm) -> Delivery:
    if form.view_id is not None:
        return await ws.click_in_view(form.user, form.view_id, form.action_id, form.value, client=form.client)
    if form.channel is None or form.ts is None:
        raise WorkspaceError("a click needs a view_id, or a channel and a message ts")
    return await ws.click(form.user, form.channel, form.ts, form.action_id, form.value, client=form.client)


async def _submit(ws: Workspace, form: SubmitForm) -> Delivery:
    return await ws.submit_view(form.user, form.view_id, form.values, client=form.client)


async def _close(ws: Workspace, form: ViewForm) -> Delivery | None:
    return await ws.close_view(form.user, form.view_id)


async def _home_opened(ws: Workspace, form: _Action) -> Delivery | None:
    """Opening the Home tab tells the bot (``app_home_opened``), as Slack does; without a bot, nothing to tell."""
    if ws.events_url is None:
        return None
    person = ws.state.user(form.user)
    home = ws.state.home_view(person.id)
    view = home.to_slack() if home else None
    event = payloads.app_home_opened_event(person.id, ws.state.dm(person.id).id, ws.state.next_ts(), view)
    return await ws.deliver(event)


async def _dismiss(ws: Workspace, form: DismissForm) -> None:
    """Slack's client forgets an ephemeral when its person dismisses it; the bot is not told."""
    me = ws.state.user(form.user).id
    ws.state.ephemerals = [e for e in ws.state.ephemerals if not (e.user == me and e.ts == form.ts)]


_ACTIONS: dict[str, Handler] = {
    "command": _action(CommandForm, _command),
    "post": _action(PostForm, _post),
    "click": _action(ClickForm, _click),
    "submit": _action(SubmitForm, _submit),
    "close": _action(ViewForm, _close),
    "dismiss": _action(DismissForm, _dismiss, needs_bot=False),
    "home_opened": _action(_Action, _home_opened, needs_bot=False),
}

_TYPED_MENTION = re.compile(r"(?<![\w@<])@([a-z](?:[\w.-]*\w)?)", re.IGNORECASE)


def typed_text(state: WorkspaceState, text: str) -> tuple[str, bool]:
    """What Slack's client sends for typed text: ``&<>`` escaped, ``@name`` as ``<@U…>``.

    Also says whether the bot was mentioned (Slack then sends ``app_mention``).
    """
    by_name = {u.name.lower(): u for u in state.users.values()}
    mentioned_bot = False

    def replace(match: re.Match[str]) -> str:
        nonlocal mentioned_bot
        user = by_name.get(match.group(1).lower())
        if user is None:
            return match.group(0)
        mentioned_bot = mentioned_bot or user.is_bot
        return f"<@{user.id}>"

    escaped = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _TYPED_MENTION.sub(replace, escaped), mentioned_bot
