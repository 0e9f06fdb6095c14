"""``tandem dev``'s Feishu-style chat: linked from the Slack page, driving the bot through the local Feishu."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import aiohttp

from cli.dev import DEMO_POLICY, developing


async def test_dev_slack_page_links_to_the_feishu_view_which_starts_a_run(tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db", config=DEMO_POLICY) as dev, aiohttp.ClientSession() as http:
        assert dev.feishu is not None
        async with http.get(f"{dev.url}/feishu", allow_redirects=False) as resp:
            assert resp.status == 302 and resp.headers["Location"] == dev.feishu_url
        async with http.get(f"{dev.feishu_url}/") as resp:
            assert resp.status == 200 and 'data-testid="feishu-person"' in await resp.text()

        said = {"person": "alice", "text": "restart payments and check errors after"}
        async with http.post(f"{dev.feishu_url}/ui/say", json=said) as resp:
            assert resp.status == 200 and (await resp.json())["status"] == 200
        deadline = time.monotonic() + 15
        state = await _state(http, dev.feishu_url)
        while not any(m["bot"] and m["root_id"] for m in state["messages"]):
            assert time.monotonic() < deadline, "no review was posted in the run's thread"
            await asyncio.sleep(0.05)
            state = await _state(http, dev.feishu_url)
        assert [p["role"] for p in state["people"]] == ["requester", "approver", "outsider"]
        runs = await dev.bot.deps.store.list_runs()
        assert len(runs) == 1 and runs[0].scope == "oc_ops"


async def test_dev_feishu_view_refuses_an_unknown_person_and_changes_nothing(tmp_path: Path) -> None:
    async with developing(port=0, db=tmp_path / "t.db") as dev, aiohttp.ClientSession() as http:
        assert dev.feishu is not None
        async with http.post(f"{dev.feishu_url}/ui/say", json={"person": "mallory", "text": "deploy"}) as resp:
            assert resp.status == 400
        async with http.post(
            f"{dev.feishu_url}/ui/click", json={"person": "bob", "message_id": "om_x", "value": {}}
        ) as resp:
            assert resp.status == 400 and "no such message" in (await resp.json())["error"]
        assert (await _state(http, dev.feishu_url))["messages"] == []
        assert await dev.bot.deps.store.list_runs() == []


async def _state(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    async with http.get(f"{url}/ui/state", params={"person": "alice"}) as resp:
        data: dict[str, Any] = await resp.json()
        return data


async def _answered(http: aiohttp.ClientSession, url: str, text: str) -> None:
    """Alice says ``text`` in the Feishu view; it returns once the bot has posted a run card for it."""
    before = len([m for m in (await _state(http, url))["messages"] if m["bot"] and not m["root_id"]])
    async with http.post(f"{url}/ui/say", json={"person": "alice", "text": text}) as resp:
        assert resp.status == 200 and (await resp.json())["status"] == 200
    deadline = time.monotonic() + 15
    while len([m for m in (await _state(http, url))["messages"] if m["bot"] and not m["root_id"]]) <= before:
        assert time.monotonic() < deadline, f"no answer to {text!r}"
        await asyncio.sleep(0.05)


async def test_dev_feishu_view_after_a_restart_answers_every_message(tmp_path: Path) -> None:
    db = tmp_path / "t.db"
    async with developing(port=0, db=db) as dev, aiohttp.ClientSession() as http:
        assert dev.feishu is not None
        for n in range(3):
            await _answered(http, dev.feishu_url, f"check payments health {n}")
    async with developing(port=0, db=db) as dev, aiohttp.ClientSession() as http:
        assert dev.feishu is not None
        for n in range(3):  # the local Feishu's event ids are new ones, not repeats of the first start's
            await _answered(http, dev.feishu_url, f"check checkout health {n}")
        assert len(await dev.bot.deps.store.list_runs()) == 6
