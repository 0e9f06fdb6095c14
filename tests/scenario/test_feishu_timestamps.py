"""Feishu's request timestamp must be a finite number: signed over anything else, a request is still refused."""

from __future__ import annotations

import time
from pathlib import Path

import aiohttp
import pytest

from tests.scenario.feishu_env import OPS, FEnv, running_feishu
from workspace.feishu_fake import ENCRYPT_KEY, envelope, sign

TASK = "restart payments and check errors after"


async def _signed_over(env: FEnv, stamp: str) -> tuple[int, str]:
    """A message asking for a run, signed with our Encrypt Key over ``stamp`` as its timestamp."""
    body = envelope(env.fake.message_event("alice", OPS, TASK), ENCRYPT_KEY)
    nonce = f"n-{stamp}"
    headers = {"Content-Type": "application/json", "X-Lark-Request-Timestamp": stamp, "X-Lark-Request-Nonce": nonce}
    headers["X-Lark-Signature"] = sign(stamp, nonce, ENCRYPT_KEY, body)
    async with aiohttp.ClientSession() as session:
        async with session.post(env.fake.events_url, data=body, headers=headers) as resp:
            return resp.status, await resp.text()


@pytest.mark.parametrize("stamp", ["nan", "NaN", "-nan", "inf", "-inf", "Infinity", "1e999"])
async def test_feishu_signed_request_with_a_timestamp_that_is_no_finite_number_is_refused(
    tmp_path: Path, stamp: str
) -> None:
    async with running_feishu(tmp_path) as env:
        status, answer = await _signed_over(env, stamp)
        assert status == 401 and "timestamp" in answer
        await env.idle()
        assert await env.bot.deps.store.list_runs() == []
        # The same request with a real timestamp starts the run: only the timestamp was wrong
        status, answer = await _signed_over(env, str(int(time.time())))
        assert status == 200, answer
        await env.wait(env.cards)
