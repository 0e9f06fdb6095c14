"""File uploads as Slack's ``files_upload_v2`` makes them, and files served back to the page.

1. ``files.getUploadURLExternal`` (``filename``, ``length``) reserves a file id and answers
   with an ``upload_url`` on this workspace.
2. ``POST`` the bytes to that URL (:func:`receive`): they must be ``length`` bytes long.
3. ``files.completeUploadExternal`` (``files`` = ``[{"id", "title"}]``, ``channel_id``,
   optional ``initial_comment`` and ``thread_ts``) shares the files into the channel as one
   message carrying them, as Slack does. A file not uploaded, or completed twice, fails.

``GET /files/<id>/<name>`` serves a file's bytes (``url_private`` points there), so the page
shows an image where Slack would.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from workspace.errors import SlackFailure
from workspace.models import BOT_ID, BOT_USER_ID, Upload, mimetype
from workspace.params import Params
from workspace.state import WorkspaceState

__all__ = ["complete_upload", "get_upload_url", "receive", "serve_file"]

Result = dict[str, Any]
MAX_FILE = 10 * 1024 * 1024


def get_upload_url(state: WorkspaceState, params: Params) -> Result:
    filename = params.required("filename")
    try:
        length = int(params.required("length"))
    except ValueError:
        raise SlackFailure("invalid_arguments") from None
    if length <= 0 or length > MAX_FILE:
        raise SlackFailure("invalid_length" if length <= 0 else "file_too_large")
    file_id = state.new_id("F")
    while file_id in state.uploads:  # ids restored from a saved workspace are taken
        file_id = state.new_id("F")
    state.uploads[file_id] = Upload(
        id=file_id, name=filename, length=length, alt_txt=params.optional("alt_txt"), created=state.now()
    )
    return {"upload_url": f"{state.site}/upload/{file_id}", "file_id": file_id}


def complete_upload(state: WorkspaceState, params: Params) -> Result:
    raw = params.structured("files")
    if not isinstance(raw, list) or not raw:
        raise SlackFailure("invalid_arguments")
    uploads = []
    for item in raw:
        if not isinstance(item, dict) or "id" not in item:
            raise SlackFailure("invalid_arguments")
        upload = state.uploads.get(str(item["id"]))
        if upload is None or upload.data is None:
            raise SlackFailure("file_not_found")
        if upload.shared:
            raise SlackFailure("file_already_completed")
        upload.title = str(item.get("title") or upload.name)
        uploads.append(upload)
    channel_id = params.optional("channel_id")
    files = [u.to_slack(state.site) for u in uploads]
    if channel_id is not None:
        channel = state.channel(channel_id)
        state.add_message(
            channel.id,
            user=BOT_USER_ID,
            bot_id=BOT_ID,
            text=params.optional("initial_comment") or "",
            thread_ts=params.optional("thread_ts"),
            files=files,
        )
    for upload in uploads:
        upload.shared = channel_id is not None
        upload.completed = True
    return {"files": [{"id": f["id"], "title": f["title"]} for f in files]}


async def receive(request: web.Request, state: WorkspaceState) -> web.Response:
    """Step 2: the bytes of a reserved file, exactly as long as reserved."""
    upload = state.uploads.get(request.match_info["file_id"])
    if upload is None or upload.completed:
        return web.Response(status=404, text="no such upload")
    data = await request.read()
    if len(data) != upload.length:
        return web.Response(status=400, text=f"expected {upload.length} bytes, got {len(data)}")
    upload.data = data
    state.record("upload", {"file_id": upload.id, "bytes": len(data)})
    return web.Response(text=f"OK - {len(data)}")


async def serve_file(request: web.Request, state: WorkspaceState) -> web.Response:
    upload = state.uploads.get(request.match_info["file_id"])
    if upload is None or upload.data is None or not upload.completed:
        return web.Response(status=404, text="file not found")
    return web.Response(body=upload.data, content_type=mimetype(upload.name))
