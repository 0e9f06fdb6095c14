"""The Slack app: ``build_app(settings, deps) -> AsyncApp``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from slack_bolt import BoltResponse
from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.handlers import Deps, register
from bot.settings import SlackSettings

__all__ = ["AsyncApp", "build_app", "build_client", "run_socket_mode"]

log = logging.getLogger("tandem.bot")


def build_client(settings: SlackSettings, session: aiohttp.ClientSession | None = None) -> AsyncWebClient:
    """A Web API client that retries rate limits (honouring Retry-After), 5xx and connection errors.

    Pass a long-lived ``session`` so calls reuse connections instead of opening one each.
    """
    return AsyncWebClient(
        token=settings.secret("bot_token"),
        base_url=settings.api_url,
        session=session,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
    )


def _team_of(body: dict[str, Any]) -> str | None:
    team = body.get("team")
    if isinstance(team, dict) and team.get("id"):
        return str(team["id"])
    for key in ("team_id", "user_team"):
        if isinstance(body.get(key), str) and body[key]:
            return str(body[key])
    return None


def build_app(settings: SlackSettings, deps: Deps, client: AsyncWebClient) -> AsyncApp:
    app = AsyncApp(
        client=client,
        signing_secret=settings.secret("signing_secret"),
        process_before_response=False,
    )
    register(app, deps)
    home_team: list[str] = []

    @app.middleware
    async def same_workspace(body: dict[str, Any], next: Callable[[], Awaitable[None]]) -> Any:
        """Requests from another workspace (a forwarded button, a misrouted app) change nothing."""
        team = _team_of(body)
        if team is not None:
            if not home_team:
                auth = await client.auth_test()
                home_team.append(str(auth["team_id"]))
            if team != home_team[0]:
                log.warning("ignored a request from workspace %s (this bot serves %s)", team, home_team[0])
                return BoltResponse(status=200, body="")
        return await next()

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        log.error("listener failed on a %s request: %s", body.get("type", "slack"), error, exc_info=error)

    return app


async def run_socket_mode(app: AsyncApp, app_token: str) -> None:
    """Serve ``app`` over Socket Mode (no public URL needed) until cancelled."""
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    handler = AsyncSocketModeHandler(app, app_token)
    await handler.start_async()  # type: ignore[no-untyped-call]
