"""The link in a mail, opened on the real ``tandem serve``: a good one redirects to its inbox item; an expired,
altered or foreign one gets a page saying what happened and what to do, and redirects nowhere."""

from __future__ import annotations

from pathlib import Path

import aiohttp

from mail.links import OPEN, Links
from tests.scenario.harness import running
from tests.scenario.mailing import SECRET

SETTINGS = {"mail_secret": SECRET, "mail_link_ttl": 3600.0}


async def _open(url: str, path: str) -> aiohttp.ClientResponse:
    async with aiohttp.ClientSession(base_url=url) as browser:
        answer = await browser.get(path, allow_redirects=False)
        await answer.read()
        return answer


async def test_mail_link_signed_with_the_secret_redirects_to_its_inbox_item(tmp_path: Path) -> None:
    async with running(tmp_path, **SETTINGS) as env:
        token = Links(SECRET, 3600.0).token("rev_42")

        opened = await _open(env.bot.url, OPEN + token)

        assert opened.status == 303
        assert opened.headers["Location"] == "/inbox/items/rev_42"


async def test_mail_link_past_its_time_gets_an_expired_page_and_no_redirect(tmp_path: Path) -> None:
    async with running(tmp_path, **SETTINGS) as env:
        made_long_ago = Links(SECRET, 3600.0, clock=lambda: env.bot.deps.clock() - 3601 - 5)
        token = made_long_ago.token("rev_42")

        opened = await _open(env.bot.url, OPEN + token)

        assert opened.status == 410
        assert "Location" not in opened.headers
        page = await opened.text()
        assert "This link has expired" in page
        assert "Nothing was decided" in page and 'href="/inbox"' in page


async def test_mail_link_altered_or_signed_with_another_secret_gets_a_forged_page(tmp_path: Path) -> None:
    async with running(tmp_path, **SETTINGS) as env:
        good = Links(SECRET, 3600.0).token("rev_42")
        altered = Links(SECRET, 3600.0).token("rev_43").split(".")[0] + "." + good.split(".", 1)[1]
        for token in (altered, Links("another-secret", 3600.0).token("rev_42"), good[:-6], "garbage"):
            opened = await _open(env.bot.url, OPEN + token)

            assert opened.status == 400, token
            assert "Location" not in opened.headers
            assert "This link is not one Tandem made" in await opened.text()


async def test_mail_link_on_a_server_without_a_mail_secret_says_links_are_not_set_up(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        opened = await _open(env.bot.url, OPEN + Links(SECRET, 3600.0).token("rev_42"))

        assert opened.status == 404
        assert "TANDEM_MAIL_SECRET" in await opened.text()
