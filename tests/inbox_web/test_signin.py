"""Signing in to the inbox with Slack (OpenID Connect) and Feishu (OAuth), through the local fakes' real flow."""

from __future__ import annotations

import asyncio
import html
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from cli.dev import dev_feishu_settings
from cli.serve import serving
from tests.inbox_web.helpers import Browser, browser, pending_review
from tests.scenario.asking import ASK, api
from tests.scenario.harness import Env, settings_for
from workspace import oidc, run_workspace
from workspace.feishu_fake import FeishuFake, run_feishu

FEISHU_OPS = "oc_ops"


@pytest.fixture(autouse=True)
def slack_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """The Slack app's client id and secret, as the local workspace knows them, and the inbox's secret."""
    monkeypatch.setenv("TANDEM_INBOX_SLACK_CLIENT_ID", oidc.CLIENT_ID)
    monkeypatch.setenv("TANDEM_INBOX_SLACK_CLIENT_SECRET", oidc.CLIENT_SECRET)
    monkeypatch.setenv("TANDEM_INBOX_SECRET", "a-long-random-secret-for-tests")


async def through_platform(person: Browser, start: str, pick: str, who: str) -> str:
    """Follow a sign-in from ``start`` through the platform's authorize page (picking ``who`` by ``pick``) and
    back; where the inbox sends the browser at the end."""
    async with person.http.get(start, allow_redirects=False) as going:
        assert going.status == 303, await going.text()
        authorize = going.headers["Location"]
    async with person.http.get(authorize) as page:
        assert page.status == 200, await page.text()
        links = re.findall(rf'data-testid="{pick}" href="([^"]+)"', await page.text())
    link = next(html.unescape(href) for href in links if who in html.unescape(href))
    origin = re.match(r"https?://[^/]+", authorize)
    assert origin is not None
    async with person.http.get(origin.group(0) + link, allow_redirects=False) as chosen:
        assert chosen.status == 302, await chosen.text()
        back = chosen.headers["Location"]
    async with person.http.get(back, allow_redirects=False) as returned:
        assert returned.status == 303, await returned.text()
        return returned.headers["Location"]


async def test_inbox_slack_sign_in_returns_to_the_item_as_the_slack_user(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, http, _):
        async with http.post("/api/v1/handoffs", json=ASK) as created:
            review = await pending_review(env, (await created.json())["id"])
        async with browser(env) as alice:
            async with alice.http.get(f"/inbox/items/{review}", allow_redirects=False) as signed_out:
                to_sign_in = signed_out.headers["Location"]
            status, page = await alice.page(to_sign_in)
            start = html.unescape(re.findall(r'href="([^"]+)" data-testid="signin-provider"', page)[0])
            assert start == f"/inbox/signin/slack?next=/inbox/items/{review}"
            assert await through_platform(alice, start, "slack-signin-as", "U0ALICE") == f"/inbox/items/{review}"
            status, page = await alice.page(f"/inbox/items/{review}")
            assert status == 200
            assert "Roll back checkout to v41?" in page
            assert 'data-testid="inbox-me">Alice Requester<' in page
        assert [c.method for c in env.ws.state.calls if c.method.startswith("openid")] == [
            "openid.connect.token",
            "openid.connect.userInfo",
        ]


async def test_inbox_sign_in_coming_back_with_another_state_signs_nobody_in(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, _, _), browser(env) as someone:
        async with someone.http.get("/inbox/signin/slack", allow_redirects=False) as going:
            assert going.status == 303
        forged = "/inbox/signin/slack/callback?code=stolen&state=not-the-one-this-browser-left-with"
        async with someone.http.get(forged, allow_redirects=False) as back:
            assert back.status == 400
            assert "nothing was signed in" in await back.text()
        assert (await someone.page("/inbox/"))[0] == 303
        assert not [c for c in env.ws.state.calls if c.method == "openid.connect.token"]


async def test_inbox_served_without_tandem_dev_has_no_person_switcher(tmp_path: Path) -> None:
    async with api(tmp_path) as (env, _, _), browser(env) as someone:
        status, page = await someone.page("/inbox/signin")
        assert 'data-testid="signin-person"' not in page
        async with someone.post("/inbox/signin/switch", {"person": "U0ALICE"}) as switch:
            assert switch.status == 405
        async with someone.http.get("/inbox/signin/as?person=U0ALICE", allow_redirects=False) as link:
            assert link.status == 404
        assert (await someone.page("/inbox/"))[0] == 303


async def run_of(env: Env, requester: str) -> str:
    """The id of the run ``requester`` started, once it is stored."""
    async with asyncio.timeout(10):
        while True:
            runs = [r.id for r in await env.bot.deps.store.list_runs() if r.requester == requester]
            if runs:
                return runs[0]
            await asyncio.sleep(0.05)


@asynccontextmanager
async def with_feishu(tmp_path: Path) -> AsyncIterator[tuple[Env, FeishuFake]]:
    """``tandem serve`` with Slack and Feishu, each against its local fake."""
    async with run_workspace() as ws, run_feishu() as fake:
        feishu = dev_feishu_settings(fake)
        async with serving(settings_for(ws, tmp_path / "tandem.db"), port=0, feishu=feishu) as bot:
            ws.events_url = f"{bot.url}/slack/events"
            fake.events_url = f"{bot.url}/feishu/events"
            yield Env(ws=ws, bot=bot, db=tmp_path / "tandem.db"), fake


async def test_inbox_feishu_sign_in_shows_and_decides_the_feishu_persons_run(tmp_path: Path) -> None:
    async with with_feishu(tmp_path) as (env, fake), browser(env) as feishu_alice, browser(env) as slack_alice:
        await env.start("restart payments and check errors after", "alice")  # in Slack, as U0ALICE
        await fake.say("alice", FEISHU_OPS, "restart checkout and check errors after")  # in Feishu, as ou_alice
        status, page = await feishu_alice.page("/inbox/signin")
        assert "Sign in with Feishu / Lark" in page
        assert await through_platform(feishu_alice, "/inbox/signin/feishu", "feishu-signin-as", "ou_alice") == "/inbox/"
        assert await through_platform(slack_alice, "/inbox/signin/slack", "slack-signin-as", "U0ALICE") == "/inbox/"
        feishu_plan = await pending_review(env, await run_of(env, "ou_alice"))
        slack_plan = await pending_review(env, await run_of(env, "U0ALICE"))
        status, page = await feishu_alice.page("/inbox/")
        assert 'data-testid="inbox-me">Alice<' in page
        assert await feishu_alice.listed() == [feishu_plan]
        assert await slack_alice.listed() == [slack_plan]
        assert (await slack_alice.answer(feishu_plan, choice="approve"))[0] == 404
        assert await feishu_alice.answer(feishu_plan, choice="approve") == (200, "Approved. The run goes on.")
