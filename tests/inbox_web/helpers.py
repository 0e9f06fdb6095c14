"""The inbox on the real ``tandem serve`` app, as a browser reaches it: cookies, the CSRF header, sign-in."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

import inbox_web
from tests.scenario.asking import api
from tests.scenario.harness import Env

PEOPLE = {"U0ALICE": "alice", "U0BOB": "bob", "U0CAROL": "carol"}
CSRF = "tandem_inbox_csrf"


@dataclass
class Browser:
    """One person's cookies and the CSRF token their page would send."""

    http: aiohttp.ClientSession

    def csrf(self) -> str:
        cookie = next((c for c in self.http.cookie_jar if c.key == CSRF), None)
        assert cookie is not None, "no CSRF cookie: open a page first"
        return cookie.value

    async def sign_in(self, person: str) -> None:
        async with self.http.get("/inbox/signin") as page:
            assert page.status == 200
        async with self.post("/inbox/signin/switch", {"person": person, "next": "/inbox/"}) as reply:
            assert reply.status == 200, await reply.text()

    def post(self, path: str, body: dict[str, Any], *, csrf: bool = True) -> Any:
        headers = {"X-CSRFToken": self.csrf()} if csrf else {}
        return self.http.post(path, json=body, headers=headers, allow_redirects=False)

    async def answer(self, review_id: str, **form: str) -> tuple[int, str]:
        async with self.post(f"/inbox/items/{review_id}/answer", form) as reply:
            return reply.status, (await reply.json())["message"]

    async def page(self, path: str) -> tuple[int, str]:
        async with self.http.get(path, allow_redirects=False) as reply:
            return reply.status, await reply.text()

    async def listed(self) -> list[str]:
        """The review ids the list shows, in its order."""
        status, html = await self.page("/inbox/?part=list")
        assert status == 200, html
        return re.findall(r'data-testid="inbox-item" data-review="([^"]+)"', html)


@asynccontextmanager
async def browser(env: Env) -> AsyncIterator[Browser]:
    jar = aiohttp.CookieJar(unsafe=True)  # cookies for 127.0.0.1
    async with aiohttp.ClientSession(base_url=env.bot.url, cookie_jar=jar) as http:
        yield Browser(http)


@asynccontextmanager
async def inbox_api(tmp_path: Path, **extra: Any) -> AsyncIterator[tuple[Env, aiohttp.ClientSession]]:
    """``tandem serve`` with the inbox's person switcher (as ``tandem dev`` has it), and an API session."""
    with inbox_web.switching(lambda: PEOPLE):
        async with api(tmp_path, **extra) as (env, http, _):
            yield env, http


async def pending_review(env: Env, run_id: str, after: str | None = None, within: float = 10.0) -> str:
    """The id of the review ``run_id`` waits on (other than ``after``), once it waits (polled until it does)."""
    async with asyncio.timeout(within):
        while True:
            state, _ = await env.bot.deps.store.load(run_id)
            if state.pending is not None and not state.finished and state.pending.id != after:
                return state.pending.id
            await asyncio.sleep(0.05)
