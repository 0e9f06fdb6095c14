"""The App Home tab, published when a person opens it."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from blocks.home import home_view
from blocks.report import home_summary
from bot.deps import Deps
from bot.intake import on_event
from bot.payloads import HomeOpened
from bot.reports import personal_report
from bot.runs import run_rows

EVENT = "app_home_opened"
RECENT = 50


def register(app: AsyncApp, deps: Deps) -> None:
    @on_event(HomeOpened, "App Home event")
    async def on_home_opened(opened: HomeOpened, client: AsyncWebClient) -> None:
        if opened.tab != "home":
            return
        deps.spawn(publish(deps, client, opened.user), name="home")

    app.event(EVENT)(on_home_opened)


async def publish(deps: Deps, client: AsyncWebClient, user: str) -> None:
    groups = await deps.directory.groups_of(user)
    states = await deps.usecases.open_runs(limit=RECENT * 4)
    waiting = [s for s in states if deps.runtime.safety.waits_on(s, user, groups)]
    mine = [s for s in states if s.requester == user]
    recent = [
        s
        for s in await deps.store.list_runs(limit=RECENT)
        if s.requester == user and s.status in ("done", "cancelled", "failed")
    ]
    for summary in recent[: max(0, 15 - len(mine))]:
        mine.append((await deps.store.load(summary.id))[0])
    week = home_summary(await personal_report(deps, user))
    view = home_view(await run_rows(deps, client, waiting), await run_rows(deps, client, mine), week)
    await client.views_publish(user_id=user, view=view)
