"""The inbox's list: soonest deadline first, then the higher priority; and it updates live."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import aiohttp

from tests.inbox_web.helpers import browser, inbox_api, pending_review
from tests.scenario.asking import ASK


async def _ask(http: aiohttp.ClientSession, prompt: str, **terms: object) -> str:
    async with http.post("/api/v1/handoffs", json={**ASK, "prompt": prompt, **terms}) as created:
        assert created.status == 201, await created.text()
        return str((await created.json())["id"])


async def test_inbox_lists_the_nearest_deadline_first_then_the_higher_priority(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http):
        late_urgent = await _ask(http, "Late but urgent?", timeout=7200, priority="urgent")
        soon_low = await _ask(http, "Soon and low?", timeout=300, priority="low")
        later_high = await _ask(http, "Later, high?", timeout=3600, priority="high")
        reviews = [await pending_review(env, run) for run in (soon_low, later_high, late_urgent)]
        async with browser(env) as alice:
            await alice.sign_in("U0ALICE")
            assert await alice.listed() == reviews
            status, html = await alice.page("/inbox/")
            assert html.index("Soon and low?") < html.index("Later, high?") < html.index("Late but urgent?")
            assert 'data-priority="urgent"' in html


async def test_inbox_events_tell_an_open_page_of_a_new_handoff(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, http), browser(env) as alice:
        await alice.sign_in("U0ALICE")
        async with alice.http.get("/inbox/events") as stream:
            assert stream.status == 200
            assert stream.headers["Content-Type"].startswith("text/event-stream")
            assert await stream.content.readuntil(b"\n") == b"event: ready\r\n"
            run_id = await _ask(http, "Anything new?")
            async with asyncio.timeout(10):
                while (line := await stream.content.readline()) != b"event: changed\r\n":
                    assert line, "the stream ended"
                data = await stream.content.readline()
            assert run_id in json.loads(data.decode().removeprefix("data: "))["runs"]


async def test_inbox_events_need_a_signed_in_person(tmp_path: Path) -> None:
    async with inbox_api(tmp_path) as (env, _), browser(env) as someone:
        async with someone.http.get("/inbox/events") as stream:
            assert stream.status == 401


async def test_inbox_open_event_stream_ends_when_the_server_stops_instead_of_holding_it(tmp_path: Path) -> None:
    async with aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True)) as outside:
        async with asyncio.timeout(10):  # an open page must not keep the server from stopping (60 s otherwise)
            async with inbox_api(tmp_path) as (env, _), browser(env) as alice:
                await alice.sign_in("U0ALICE")
                outside.cookie_jar.update_cookies({c.key: c.value for c in alice.http.cookie_jar})
                stream = await outside.get(f"{env.bot.url}/inbox/events")
                assert await stream.content.readline() == b"event: ready\r\n"
            rest = await stream.content.read()
        assert b"event: changed" not in rest
        stream.close()
