"""File uploads the way files_upload_v2 makes them, over HTTP: reserve, upload, complete; served back."""

from __future__ import annotations

import aiohttp
import pytest
from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from workspace import Workspace, WorkspaceState
from workspace.persist import dump, restore

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def test_files_upload_v2_shares_the_file_in_the_channel_and_serves_its_bytes(
    client: AsyncWebClient, ws: Workspace
) -> None:
    done = await client.files_upload_v2(
        channel="C0OPS", file=PNG, filename="chart.png", title="The chart", alt_txt="bars", initial_comment="Here"
    )
    assert done["file"]["title"] == "The chart"
    [message] = ws.state.history("C0OPS")
    [file] = message.files
    assert message.text == "Here" and message.user == "U0TANDEMBOT"
    assert (file["name"], file["mimetype"], file["size"], file["alt_txt"]) == (
        "chart.png",
        "image/png",
        len(PNG),
        "bars",
    )
    async with aiohttp.ClientSession() as http, http.get(file["url_private"]) as got:
        assert got.status == 200 and got.content_type == "image/png" and await got.read() == PNG
    methods = [c.method for c in ws.state.calls]
    assert methods == ["files.getUploadURLExternal", "upload", "files.completeUploadExternal"]


async def test_conversations_history_shows_the_shared_file_newest_first(client: AsyncWebClient, ws: Workspace) -> None:
    await client.chat_postMessage(channel="C0OPS", text="first")
    await client.files_upload_v2(channel="C0OPS", file=PNG, filename="chart.png")
    history = await client.conversations_history(channel="C0OPS")
    assert [m.get("files", [{}])[0].get("name") for m in history["messages"]] == ["chart.png", None]


async def test_complete_upload_of_a_file_never_uploaded_fails_file_not_found(
    client: AsyncWebClient, ws: Workspace
) -> None:
    reserved = await client.files_getUploadURLExternal(filename="chart.png", length=len(PNG))
    with pytest.raises(SlackApiError, match="file_not_found"):
        await client.files_completeUploadExternal(files=[{"id": reserved["file_id"]}], channel_id="C0OPS")
    assert ws.state.history("C0OPS") == []


async def test_upload_of_the_wrong_length_is_refused(ws: Workspace) -> None:
    client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
    reserved = await client.files_getUploadURLExternal(filename="chart.png", length=len(PNG) + 1)
    async with aiohttp.ClientSession() as http, http.post(reserved["upload_url"], data=PNG) as got:
        assert got.status == 400 and "expected" in await got.text()


async def test_completing_one_upload_twice_fails_the_second_time(client: AsyncWebClient, ws: Workspace) -> None:
    done = await client.files_upload_v2(channel="C0OPS", file=PNG, filename="chart.png")
    with pytest.raises(SlackApiError, match="file_already_completed"):
        await client.files_completeUploadExternal(files=[{"id": done["file"]["id"]}], channel_id="C0OPS")
    assert len(ws.state.history("C0OPS")) == 1


async def test_upload_to_a_file_never_reserved_is_not_found(ws: Workspace) -> None:
    async with aiohttp.ClientSession() as http, http.post(f"{ws.base_url}/upload/F-none", data=PNG) as got:
        assert got.status == 404
    assert ws.state.uploads == {}


async def test_saved_workspace_keeps_shared_files(client: AsyncWebClient, ws: Workspace) -> None:
    await client.files_upload_v2(channel="C0OPS", file=PNG, filename="chart.png")
    again = WorkspaceState()
    restore(again, dump(ws.state))
    [upload] = again.uploads.values()
    assert upload.data == PNG and again.history("C0OPS")[0].files[0]["id"] == upload.id
