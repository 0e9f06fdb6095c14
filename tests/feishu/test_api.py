"""The Open API client against the local Feishu fake over HTTP: token cached and renewed, errors typed."""

from __future__ import annotations

import aiohttp
import pytest

from feishu.api import FeishuApi, FeishuError
from workspace.feishu_fake import APP_ID, APP_SECRET, BOT_OPEN_ID, TENANT_KEY, run_feishu


async def test_api_token_is_fetched_once_and_renewed_when_refused() -> None:
    async with run_feishu() as fake, aiohttp.ClientSession() as session:
        api = FeishuApi(session, fake.api_url, APP_ID, APP_SECRET)
        assert await api.bot_open_id() == BOT_OPEN_ID and await api.tenant_key() == TENANT_KEY
        assert len(fake.tokens) == 1, "one token for both calls"
        fake.tokens.clear()
        user = await api.user("ou_bob")
        assert user["department_ids"] == ["od-ops"] and len(fake.tokens) == 1


async def test_api_posts_replies_patches_and_updates_cards() -> None:
    card = {"schema": "2.0", "body": {"elements": [{"tag": "markdown", "content": "hi"}]}}
    async with run_feishu() as fake, aiohttp.ClientSession() as session:
        api = FeishuApi(session, fake.api_url, APP_ID, APP_SECRET)
        root = await api.send_card("oc_1", card, uuid="u-1")
        assert await api.send_card("oc_1", card, uuid="u-1") == root, "one message per uuid"
        reply = await api.reply_card(root, card)
        assert fake.messages[reply].root_id == root
        await api.patch_card(reply, {**card, "body": {"elements": []}})
        assert fake.messages[reply].edits == 1
        await api.delayed_update("c-token", card)
        await api.ephemeral("oc_1", "ou_alice", card)
        assert fake.ephemerals == [("oc_1", "ou_alice", card)]


async def test_api_errors_say_whether_a_retry_can_help() -> None:
    async with run_feishu() as fake, aiohttp.ClientSession() as session:
        bad_secret = FeishuApi(session, fake.api_url, APP_ID, "wrong")
        with pytest.raises(FeishuError, match="10014"):
            await bad_secret.bot_open_id()
        api = FeishuApi(session, fake.api_url, APP_ID, APP_SECRET)
        with pytest.raises(FeishuError) as unknown:
            await api.patch_card("om_none", {"schema": "2.0"})
        assert unknown.value.permanent and unknown.value.code == 230001
        gone = FeishuApi(session, "http://127.0.0.1:9", APP_ID, APP_SECRET)
        with pytest.raises(FeishuError, match="connection failed") as down:
            await gone.bot_open_id()
        assert not down.value.permanent
