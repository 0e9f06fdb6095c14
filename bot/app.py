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
from bot.authorization import AuthCheck, kind_of
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
        before_authorize=AuthCheck(),  # a failed auth.test is worded by what it is (see bot.authorization)
        user_facing_authorize_error_message=messages.SLACK_NOT_ANSWERING,  # Bolt's own call, after ours answered
        inbox=SlackInbox(deps.inbox, deps.background, deps.clock, settings.inbox_lease),
    )
    register(app, deps)

    @app.middleware
    async def same_workspace(
        context: AsyncBoltContext, body: dict[str, Any], next: Callable[[], Awaitable[None]]
    ) -> Any:
        """Requests that name no workspace, or another one (a forwarded button, a misrouted app), change nothing.

        Bolt answers URL verification and ``ssl_check`` (which carry no team) before this runs.
        """
        team = context.team_id  # Bolt's reading: team.id, authorizations, team_id, user.team_id, view.team_id
        if not team:
            log.warning("refused a %s request that names no workspace (team id)", kind_of(body))
            return BoltResponse(status=400, body=messages.NO_TEAM)
        home = context.authorize_result.team_id if context.authorize_result is not None else None
        if team != home:  # Bolt's authorization learned the bot's own workspace from auth.test
            log.warning("ignored a request from workspace %s (this bot serves %s)", str(team)[:40], home)
            return BoltResponse(status=200, body="")
        return await next()

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        log.error("listener failed on a %s request: %s", kind_of(body), error, exc_info=error)

    return app


async def run_socket_mode(app: AsyncApp, app_token: str) -> None:
    """Serve ``app`` over Socket Mode (no public URL needed) until cancelled."""
    from slack_bolt.adapter.socket_mode.async_handler import AsyncSocketModeHandler

    handler = AsyncSocketModeHandler(app, app_token)
    await handler.start_async()  # type: ignore[no-untyped-call]
