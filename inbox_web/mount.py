"""The inbox inside ``tandem serve`` (and so ``tandem dev``): one call from the composition root."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aiohttp import web

from agent.models.platforms import principal_of
from agent.usecases import UseCases
from api.asgi import mount_asgi
from inbox_web.app import build_app
from inbox_web.items import Door
from inbox_web.live import Live
from inbox_web.providers import Feishu, Provider, Slack
from inbox_web.settings import InboxSettings, inbox_settings
from inbox_web.signin import SignIn

if TYPE_CHECKING:
    from cli.serve import Bot

PREFIX = "/inbox"


def mount(application: web.Application, bot: Bot, settings: InboxSettings | None = None) -> Live:
    """Serve the inbox at ``/inbox`` on ``application``, on the bot's store, runtime and use cases; it is told of
    every change the runtime makes (live updates). A Feishu person decides with Feishu's group membership."""
    settings = settings if settings is not None else inbox_settings()
    slack = bot.deps.usecases
    feishu = bot.feishu.usecases if bot.feishu is not None else None

    def usecases(person: str) -> UseCases:
        platform = principal_of(person)
        return feishu if feishu is not None and platform is not None and platform[0] == "feishu" else slack

    runtime = bot.deps.runtime
    live = Live()
    runtime.observers.append(live)
    door = Door(bot.deps.store, runtime.safety, usecases)
    sign_in = SignIn(settings.switcher, _providers(bot, settings), settings.inbox_url)
    mount_asgi(application, PREFIX, build_app(door, settings, live, sign_in))
    application.on_shutdown.append(live.closing)  # open pages' streams end first: the server need not wait on them
    return live


def _providers(bot: Bot, settings: InboxSettings) -> list[Provider]:
    """Slack's sign-in when the Slack app's client id and secret are set; Feishu's when Feishu is set up."""
    providers: list[Provider] = []
    secret = settings.inbox_slack_client_secret.get_secret_value() if settings.inbox_slack_client_secret else ""
    if settings.inbox_slack_client_id and secret:
        client = bot.app.client
        team: list[str] = []

        async def own_team() -> str:
            if not team:
                team.append(str((await client.auth_test())["team_id"]))
            return team[0]

        providers.append(Slack(settings.inbox_slack_client_id, secret, client.base_url, own_team))
    if bot.feishu is not None:
        feishu = bot.feishu.settings
        app_secret = feishu.app_secret.get_secret_value() if feishu.app_secret else ""
        if feishu.app_id and app_secret:
            providers.append(Feishu(feishu.app_id, app_secret, feishu.api_url, bot.feishu.tenant_key))
    return providers
