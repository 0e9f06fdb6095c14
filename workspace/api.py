"""The Web API subset the bot calls, served over aiohttp like ``https://slack.com/api/``.

``POST`` (or ``GET``) ``/api/<method>`` takes form, query or JSON arguments and a
``Authorization: Bearer`` token (or a ``token`` argument), and answers with
Slack's JSON. ``POST /response/<id>`` is the response_url handed out with slash
commands and button clicks; ``POST /upload/<id>`` and ``GET /files/<id>/<name>`` carry
uploaded files (:mod:`workspace.files`). Every call is appended to ``state.calls``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import web

from workspace import chat, files, oidc, streams, views
from workspace.errors import SlackFailure
from workspace.params import Params
from workspace.socket_mode import APP_TOKEN, wss_url
from workspace.state import WorkspaceState

Method = Callable[[WorkspaceState, Params], dict[str, Any]]

METHODS: dict[str, Method] = {
    "auth.test": chat.auth_test,
    "chat.postMessage": chat.post_message,
    "chat.update": chat.update,
    "chat.postEphemeral": chat.post_ephemeral,
    "chat.delete": chat.delete,
    "chat.getPermalink": chat.get_permalink,
    "chat.startStream": streams.start_stream,
    "chat.appendStream": streams.append_stream,
    "chat.stopStream": streams.stop_stream,
    "users.info": chat.users_info,
    "conversations.info": chat.conversations_info,
    "conversations.replies": chat.conversations_replies,
    "conversations.history": chat.conversations_history,
    "files.getUploadURLExternal": files.get_upload_url,
    "files.completeUploadExternal": files.complete_upload,
    "views.open": views.views_open,
    "views.update": views.views_update,
    "views.push": views.views_push,
    "views.publish": views.views_publish,
    "apps.connections.open": lambda state, _: {"url": wss_url(state.site)},
}
APP_METHODS = frozenset({"apps.connections.open"})
"""Methods called with the app-level token (``xapp-…``), not the bot's."""

RESPONSE_URL_METHOD = "response_url"
"""The name response_url posts are logged under in ``state.calls``."""


def build_api(state: WorkspaceState, *, bot_token: str, app_token: str = APP_TOKEN) -> web.Application:
    """An aiohttp app serving ``/api/<method>`` and ``/response/<id>`` from ``state``."""

    def dispatch(method: str, token: str | None, params: Params) -> web.Response:
        try:
            _authorize(method, token, app_token if method in APP_METHODS else bot_token)
            fault = state.take_fault(method, params.values)
            if fault is not None:
                state.record(method, params.values, error=fault.error)
                headers = {} if fault.retry_after is None else {"Retry-After": str(fault.retry_after)}
                return web.json_response({"ok": False, "error": fault.error}, status=fault.status, headers=headers)
            result = METHODS[method](state, params)
        except SlackFailure as failure:
            state.record(method, params.values, error=failure.error)
            return web.json_response(failure.body(), status=failure.status)
        state.record(method, params.values)
        return web.json_response({"ok": True, **result})

    async def call(request: web.Request) -> web.Response:
        method = request.match_info["method"]
        try:
            values = await _read_arguments(request)
        except SlackFailure as failure:
            state.record(method, {}, error=failure.error)
            return web.json_response(failure.body(), status=failure.status)
        if state.latency > 0:
            await asyncio.sleep(state.latency)
        held = state.take_hold(method)
        if held is None:
            return dispatch(method, _token(request, values), Params(values))
        if held:
            dispatch(method, _token(request, values), Params(values))
        hang: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        state.held.append(hang)
        await hang  # no answer until the workspace stops: the caller sees the connection hang
        return web.json_response({"ok": False, "error": "workspace_stopped"}, status=503)

    async def respond(request: web.Request) -> web.Response:
        payload: dict[str, Any] = {}
        try:
            decoded = json.loads(await request.text())
            if not isinstance(decoded, dict):
                raise SlackFailure("invalid_payload", status=400)
            payload = decoded
            chat.apply_response(state, state.use_hook(request.match_info["hook_id"]), payload)
        except json.JSONDecodeError:
            state.record(RESPONSE_URL_METHOD, payload, error="invalid_payload")
            return web.json_response({"ok": False, "error": "invalid_payload"}, status=400)
        except SlackFailure as failure:
            state.record(RESPONSE_URL_METHOD, payload, error=failure.error)
            return web.json_response(failure.body(), status=failure.status)
        state.record(RESPONSE_URL_METHOD, payload)
        return web.json_response({"ok": True})

    async def upload(request: web.Request) -> web.Response:
        return await files.receive(request, state)

    async def download(request: web.Request) -> web.Response:
        return await files.serve_file(request, state)

    app = web.Application(client_max_size=files.MAX_FILE + 1024 * 1024)
    oidc.add_routes(app, state)  # Sign in with Slack: before the catch-all below
    app.router.add_route("*", "/api/{method}", call)
    app.router.add_post("/response/{hook_id}", respond)
    app.router.add_post("/upload/{file_id}", upload)  # step 2 of files_upload_v2
    app.router.add_get("/files/{file_id}/{name}", download)
    return app


def _authorize(method: str, token: str | None, bot_token: str) -> None:
    if method not in METHODS:
        raise SlackFailure("unknown_method", req_method=method)
    if not token:
        raise SlackFailure("not_authed")
    if token != bot_token:
        raise SlackFailure("invalid_auth")


def _token(request: web.Request, values: dict[str, Any]) -> str | None:
    header = request.headers.get("Authorization", "")
    if header.startswith("Bearer "):
        return header.removeprefix("Bearer ").strip()
    token = values.get("token")
    return str(token) if token else None


async def _read_arguments(request: web.Request) -> dict[str, Any]:
    values: dict[str, Any] = dict(request.query)
    if request.method != "POST" or not request.can_read_body:
        return values
    if request.content_type == "application/json":
        try:
            body = json.loads(await request.text())
        except json.JSONDecodeError:
            raise SlackFailure("invalid_json") from None
        if not isinstance(body, dict):
            raise SlackFailure("invalid_json")
        values.update(body)
    else:
        form = await request.post()
        values.update({key: value for key, value in form.items() if isinstance(value, str)})
    return values
