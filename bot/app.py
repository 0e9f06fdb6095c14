"""The Slack app: ``build_app(settings, deps) -> AsyncApp``."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt.async_app import AsyncApp
from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
    AsyncServerErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from bot.handlers import Deps, register
from bot.settings import SlackSettings

log = logging.getLogger("tandem.bot")


def build_client(settings: SlackSettings) -> AsyncWebClient:
    """A Web API client that retries rate limits (honouring Retry-After), 5xx and connection errors."""
    return AsyncWebClient(
        token=settings.secret("bot_token"),
        base_url=settings.api_url,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(max_retry_count=2),
            AsyncRateLimitErrorRetryHandler(max_retry_count=3),
            AsyncServerErrorRetryHandler(max_retry_count=2),
        ],
    )


def build_app(settings: SlackSettings, deps: Deps, client: AsyncWebClient) -> AsyncApp:
    app = AsyncApp(
        client=client,
        signing_secret=settings.secret("signing_secret"),
        process_before_response=False,
    )
    register(app, deps)

    @app.error
    async def on_error(error: Exception, body: dict[str, Any]) -> None:
        log.error("listener failed on a %s request: %s", body.get("type", "slack"), error, exc_info=error)

    return app
