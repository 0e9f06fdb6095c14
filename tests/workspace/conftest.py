from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from slack_sdk.web.async_client import AsyncWebClient

from workspace import Workspace, run_workspace


@pytest.fixture
async def ws() -> AsyncIterator[Workspace]:
    async with run_workspace() as workspace:
        yield workspace


@pytest.fixture
async def client(ws: Workspace) -> AsyncIterator[AsyncWebClient]:
    web_client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    yield web_client
