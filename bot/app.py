"""The Slack app: ``build_app(settings, deps) -> AsyncApp``."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
from slack_bolt import BoltResponse
from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot import messages
from bot.edge import EdgeApp
from bot.handlers import Deps, register
from bot.inbox import SlackInbox
from bot.settings import SlackSettings

__all__ = ["AsyncApp", "EdgeApp", "build_app", "build_client", "run_socket_mode"]

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


def build_app(settings: SlackSettings, deps: Deps, client: AsyncWebClient) -> EdgeApp:
    """Tandem's listeners on a Bolt app; over HTTP its requests pass :mod:`bot.edge` first."""
    app = EdgeApp(
        client=client,
        signing_secret=settings.secret("signing_secret"),
        process_before_response=False,
        acks=deps.acks,
        inbox=SlackInbox(deps.store, deps.background, deps.clock, settings.inbox_lease),
    )
    register(app, deps)
    home_team: list[str] = []

    @app.middleware
    async def same_workspace(
        context: AsyncBoltContext, body: dict[str, Any], next: Callable[[], Awaitable[None]]
    ) -> Any:
        """Requests that name no workspace, or another one (a forwarded button, a misrouted app), change nothing.

        Bolt answers URL verification and ``ssl_check`` (which carry no team) before this runs.
        """
        team = context.team_id  # Bolt's reading: team.id, authorizations, team_id, user.team_id, view.team_id
        if not team:
            log.warning("refused a %s request that names no workspace (team id)", _kind(body))
            return BoltResponse(status=400, body=messages.NO_TEAM)
        if not home_team:
            auth = await client.auth_test()
            home_team.append(str(auth["team_id"]))
        if team != home_team[0]:
            log.warning("ignored a request from workspace %s (this bot serves %s)", str(team)[:40], home_team[0])
            return BoltResponse(status=200, body="")
        return await next()

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        log.error("listener failed on a %s request: %s", _kind(body), error, exc_info=error)

    return app


def _kind(body: dict[str, Any]) -> str:
    kind = body.get("type") or ("slash command" if "command" in body else "Slack")
    return str(kind)[:40]


async def run_socket_mode(app: AsyncApp, app_token: str) -> None:
    """Serve ``app`` over Socket Mode (no public URL needed) until cancelled."""
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    handler = AsyncSocketModeHandler(app, app_token)
    await handler.start_async()  # type: ignore[no-untyped-call]
