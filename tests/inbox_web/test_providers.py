"""The platforms' sign-in, server to server: who signed in, and who is turned away."""

from __future__ import annotations

import html
import re
from urllib.parse import parse_qs, urlsplit

import aiohttp
import pytest

from inbox_web.providers import Feishu, SignInFailed, Slack
from workspace import oidc, run_workspace
from workspace.feishu_fake import APP_ID, APP_SECRET, TENANT_KEY, run_feishu
from workspace.models import TEAM_ID

BACK = "http://127.0.0.1:9/inbox/signin/slack/callback"


async def _code(http: aiohttp.ClientSession, authorize: str, pick: str, who: str) -> str:
    """Pick ``who`` on the platform's authorize page; the code it sends back."""
    async with http.get(authorize) as page:
        links = [html.unescape(h) for h in re.findall(rf'data-testid="{pick}" href="([^"]+)"', await page.text())]
    origin = authorize.split("/openid")[0].split("/open-apis")[0]
    async with http.get(origin + next(h for h in links if who in h), allow_redirects=False) as chosen:
        return parse_qs(urlsplit(chosen.headers["Location"]).query)["code"][0]


async def _team(team: str) -> str:
    return team


@pytest.mark.parametrize(
    ("team", "secret", "why"),
    [
        ("T0ELSEWHERE", oidc.CLIENT_SECRET, "belongs to another workspace"),
        (TEAM_ID, "not-the-secret", r"did not sign you in \(bad_client_secret\)"),
    ],
)
async def test_slack_sign_in_of_another_workspace_or_with_a_wrong_secret_is_refused(
    team: str, secret: str, why: str
) -> None:
    async with run_workspace() as ws, aiohttp.ClientSession() as http:
        slack = Slack(oidc.CLIENT_ID, secret, ws.api_url, lambda: _team(team))
        code = await _code(http, slack.authorize_url(BACK, "s"), "slack-signin-as", "U0ALICE")
        with pytest.raises(SignInFailed, match=why):
            await slack.who(http, code, BACK)


async def test_slack_sign_in_code_is_good_once() -> None:
    async with run_workspace() as ws, aiohttp.ClientSession() as http:
        slack = Slack(oidc.CLIENT_ID, oidc.CLIENT_SECRET, ws.api_url, lambda: _team(TEAM_ID))
        code = await _code(http, slack.authorize_url(BACK, "s"), "slack-signin-as", "U0BOB")
        assert (await slack.who(http, code, BACK)).person == "U0BOB"
        with pytest.raises(SignInFailed, match="invalid_code"):
            await slack.who(http, code, BACK)


async def test_feishu_sign_in_of_another_tenant_is_refused() -> None:
    async with run_feishu() as fake, aiohttp.ClientSession() as http:
        elsewhere = Feishu(APP_ID, APP_SECRET, fake.api_url, lambda: _team("tenant-elsewhere"))
        code = await _code(http, elsewhere.authorize_url(BACK, "s"), "feishu-signin-as", "ou_bob")
        with pytest.raises(SignInFailed, match="another organisation"):
            await elsewhere.who(http, code, BACK)
        ours = Feishu(APP_ID, APP_SECRET, fake.api_url, lambda: _team(TENANT_KEY))
        code = await _code(http, ours.authorize_url(BACK, "s"), "feishu-signin-as", "ou_bob")
        assert (await ours.who(http, code, BACK)).person == "ou_bob"


def test_authorize_pages_sit_beside_the_platforms_apis() -> None:
    slack = Slack("id", "secret", "https://slack.com/api/", lambda: _team(TEAM_ID))
    assert slack.authorize == "https://slack.com/openid/connect/authorize"
    lark = Feishu("cli", "secret", "https://open.larksuite.com", lambda: _team(TENANT_KEY))
    assert lark.authorize == "https://accounts.larksuite.com/open-apis/authen/v1/authorize"
