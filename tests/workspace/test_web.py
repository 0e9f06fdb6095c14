"""The browser page's server side: the page and its files, the event stream, actions as a person."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from slack_sdk.web.async_client import AsyncWebClient

from tests.workspace.bolt_bot import PLAN, Seen, build_bot
from workspace import Workspace, WorkspaceState, run_workspace, serve
from workspace.web import STATIC, typed_text

IMAGE = {"type": "image", "block_id": "chart", "image_url": "https://example.com/chart.png", "alt_text": "errors"}


@pytest.fixture
async def ui() -> AsyncIterator[Workspace]:
    async with run_workspace(ui=True) as workspace:
        yield workspace


@pytest.fixture
async def seen(ui: Workspace) -> AsyncIterator[Seen]:
    record = Seen()
    async with serve(build_bot(ui, record).web_app(path="/slack/events")) as bot_url:
        ui.events_url = f"{bot_url}/slack/events"
        yield record


@pytest.fixture
def api(ui: Workspace) -> AsyncWebClient:
    """The bot's side: a Web API client of the workspace that serves the page."""
    return AsyncWebClient(token=ui.bot_token, base_url=ui.api_url)


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def act(http: aiohttp.ClientSession, ws: Workspace, name: str, **body: Any) -> tuple[int, dict[str, Any]]:
    async with http.post(f"{ws.base_url}/ui/{name}", json=body) as response:
        return response.status, await response.json()


async def seen_by(http: aiohttp.ClientSession, ws: Workspace, user: str) -> dict[str, Any]:
    async with http.get(f"{ws.base_url}/ui/state", params={"user": user}) as response:
        assert response.status == 200
        data: dict[str, Any] = await response.json()
        return data


async def next_event(stream: aiohttp.StreamReader) -> tuple[str, dict[str, Any]]:
    """The next server-sent event (comments and keep-alives skipped)."""
    name, data = "message", ""
    async with asyncio.timeout(5):
        while True:
            line = (await stream.readline()).decode().rstrip("\n")
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                data += line.removeprefix("data: ")
            elif line == "" and data:
                return name, json.loads(data)


# -- the page ----------------------------------------------------------------------------------


async def test_page_served_with_every_static_file_it_imports(ui: Workspace, http: aiohttp.ClientSession) -> None:
    async with http.get(f"{ui.base_url}/") as response:
        assert response.status == 200
        assert response.content_type == "text/html"
        page = await response.text()
    assert 'data-testid="user-switcher"' in page and 'data-testid="composer-input"' in page

    wanted = set(re.findall(r'(?:src|href)="(/static/[^"]+)"', page))
    for script in STATIC.glob("*.js"):
        wanted |= {f"/static/{name}" for name in re.findall(r'from "\./([\w.]+)"', script.read_text())}
    assert {"/static/app.js", "/static/app.css", "/static/blocks.js", "/static/mrkdwn.js"} <= wanted
    for path in sorted(wanted):
        async with http.get(f"{ui.base_url}{path}") as response:
            assert response.status == 200, path
            assert response.content_type in {"text/css", "text/javascript", "application/javascript", "image/svg+xml"}


def test_static_files_build_dom_without_html_strings_or_outside_urls() -> None:
    for path in STATIC.iterdir():
        text = path.read_text()
        for banned in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval("):
            assert banned not in text, f"{path.name} uses {banned}"
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), f"{path.name} loads from outside"
        assert "@import" not in text and "url(http" not in text, path.name


async def test_page_only_without_ui_flag(ws: Workspace, http: aiohttp.ClientSession) -> None:
    async with http.get(f"{ws.base_url}/") as response:
        assert response.status == 404


# -- what a person sees --------------------------------------------------------------------------


async def test_state_shows_own_ephemerals_and_modals_only(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession
) -> None:
    await ui.slash_command("bob", "#ops", "quick")  # the bot acks with text: an ephemeral for bob

    bob, alice = await seen_by(http, ui, "bob"), await seen_by(http, ui, "alice")

    assert [e["text"] for e in bob["ephemerals"]] == ["on it"]
    assert alice["ephemerals"] == []
    assert [c["name"] for c in bob["channels"]] == ["ops", "general"]
    assert {u["name"]: u["role"] for u in bob["users"] if not u["is_bot"]} == {
        "alice": "requester",
        "bob": "approver",
        "carol": "outsider",
    }


async def test_unknown_blocks_reach_the_page_untouched(
    ui: Workspace, http: aiohttp.ClientSession, api: AsyncWebClient
) -> None:
    # The page renders what it knows and shows the rest as JSON (in its JS); the server
    # must hand every block over exactly as the bot sent it.
    await api.chat_postMessage(channel="C0OPS", text="chart", blocks=[IMAGE])
    made_up = {"type": "sparkline", "block_id": "s1", "points": [1, 3, 2]}
    ui.state.add_message("C0OPS", user="U0TANDEMBOT", bot_id="B0TANDEM", text="new", blocks=[made_up])

    messages = (await seen_by(http, ui, "carol"))["messages"]["C0OPS"]

    assert [m["blocks"] for m in messages] == [[IMAGE], [made_up]]


async def test_unknown_person_is_404(ui: Workspace, http: aiohttp.ClientSession) -> None:
    async with http.get(f"{ui.base_url}/ui/state", params={"user": "mallory"}) as response:
        assert response.status == 404
    async with http.get(f"{ui.base_url}/ui/events", params={"user": "mallory"}) as response:
        assert response.status == 404


# -- the event stream -----------------------------------------------------------------------------


async def test_event_stream_pushes_a_change_when_the_bot_posts(
    ui: Workspace, http: aiohttp.ClientSession, api: AsyncWebClient
) -> None:
    async with http.get(f"{ui.base_url}/ui/events", params={"user": "alice"}) as response:
        assert response.content_type == "text/event-stream"
        name, first = await next_event(response.content)
        assert (name, first["changes"], first["state"]["messages"]["C0OPS"]) == ("snapshot", [], [])

        posted = await api.chat_postMessage(channel="C0OPS", text="hello", blocks=PLAN)
        name, event = await next_event(response.content)

    assert name == "change"
    assert event["changes"] == [{"kind": "message_posted", "channel": "C0OPS", "ts": posted["ts"], "view_id": None}]
    assert event["state"]["messages"]["C0OPS"][0]["blocks"] == PLAN


async def test_event_stream_names_updates_deletes_and_views(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession, api: AsyncWebClient
) -> None:
    posted = await api.chat_postMessage(channel="C0OPS", text="hello")
    async with http.get(f"{ui.base_url}/ui/events", params={"user": "alice"}) as response:
        await next_event(response.content)

        await api.chat_update(channel="C0OPS", ts=posted["ts"], text="edited")
        assert [c["kind"] for c in (await next_event(response.content))[1]["changes"]] == ["message_updated"]
        await api.chat_delete(channel="C0OPS", ts=posted["ts"])
        assert [c["kind"] for c in (await next_event(response.content))[1]["changes"]] == ["message_deleted"]
        await act(http, ui, "command", user="alice", channel="C0OPS", text="form")
        kinds = [c["kind"] for c in (await next_event(response.content))[1]["changes"]]
        assert kinds == ["view_opened"]


async def test_workspace_stops_promptly_with_a_page_listening() -> None:
    async with aiohttp.ClientSession() as http:
        async with run_workspace(ui=True) as ws:
            response = await http.get(f"{ws.base_url}/ui/events", params={"user": "alice"})
            await next_event(response.content)
            started = time.monotonic()
        assert time.monotonic() - started < 5
        response.release()


# -- acting as the selected person -----------------------------------------------------------------


async def test_command_reaches_bolt_signed_as_the_selected_person(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession
) -> None:
    status, reply = await act(http, ui, "command", user="carol", channel="C0OPS", text="restart web")

    assert (status, reply["ok"], reply["delivery"]["status"]) == (200, True, 200)
    assert (seen.commands[0]["user_id"], seen.commands[0]["text"]) == ("U0CAROL", "restart web")
    await ui.wait_for_call("chat.postMessage")
    assert [m.text for m in ui.state.history("C0OPS")] == ["plan: restart web"]


async def test_click_then_modal_errors_then_submit(ui: Workspace, seen: Seen, http: aiohttp.ClientSession) -> None:
    await act(http, ui, "command", user="bob", channel="C0OPS", text="form")
    await ui.wait_for_call("views.open")
    modal = (await seen_by(http, ui, "bob"))["modals"][-1]

    status, reply = await act(http, ui, "submit", user="bob", view_id=modal["id"], values={"reason": "no"})
    assert (status, reply["ok"]) == (200, True)
    assert (await seen_by(http, ui, "bob"))["modals"][-1]["errors"] == {"reason": "Say a bit more"}

    await act(http, ui, "submit", user="bob", view_id=modal["id"], values={"reason": "restart web first"})
    assert (await seen_by(http, ui, "bob"))["modals"] == []
    assert seen.submissions[-1]["user"]["id"] == "U0BOB"


async def test_click_on_a_message_button_is_the_selected_persons(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession, api: AsyncWebClient
) -> None:
    posted = await api.chat_postMessage(channel="C0OPS", text="plan", blocks=PLAN)

    await act(http, ui, "click", user="bob", channel="C0OPS", ts=posted["ts"], action_id="approve", value="run-1")

    assert seen.actions[0]["user"]["id"] == "U0BOB"
    await ui.wait_until(lambda s: s.message("C0OPS", posted["ts"]).text == "approved by <@U0BOB>")


async def test_thread_reply_and_mention_reach_the_bot(ui: Workspace, seen: Seen, http: aiohttp.ClientSession) -> None:
    parent = ui.state.add_message("C0OPS", user="U0ALICE", text="parent")

    await act(http, ui, "post", user="alice", channel="C0OPS", text="use <eu-west-1>", thread_ts=parent.ts)
    await act(http, ui, "post", user="bob", channel="C0OPS", text="@tandem hi")

    message, mention_as_message, mention = (body["event"] for body, _ in seen.events)
    assert (message["type"], message["text"], message["thread_ts"]) == ("message", "use &lt;eu-west-1&gt;", parent.ts)
    assert (mention_as_message["type"], mention_as_message["ts"]) == ("message", mention["ts"])
    assert (mention["type"], mention["user"], mention["text"]) == ("app_mention", "U0BOB", "<@U0TANDEMBOT> hi")


async def test_dismiss_forgets_only_that_persons_ephemeral_without_asking_the_bot(
    ui: Workspace, http: aiohttp.ClientSession
) -> None:
    mine = ui.state.add_ephemeral("C0OPS", "U0ALICE", text="yours", blocks=[])
    ui.state.add_ephemeral("C0OPS", "U0BOB", text="bob's", blocks=[])
    await act(http, ui, "dismiss", user="alice", ts=mine.ts)

    assert [e.text for e in ui.state.ephemerals] == ["bob's"]


async def test_close_sends_view_closed_only_when_the_view_asks(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession
) -> None:
    await act(http, ui, "command", user="bob", channel="C0OPS", text="form")
    await ui.wait_for_call("views.open")
    view = ui.state.open_modals("bob")[-1]

    status, reply = await act(http, ui, "close", user="bob", view_id=view.id)

    assert (status, reply) == (200, {"ok": True, "delivery": None})
    assert ui.state.open_modals("bob") == []


async def test_modal_opened_in_one_browser_session_shows_there_only(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession
) -> None:
    await act(http, ui, "command", user="bob", channel="C0OPS", text="form", client="tab-1")
    await ui.wait_for_call("views.open")

    async def modals(client: str) -> list[str]:
        query = {"user": "bob", "client": client}
        async with http.get(f"{ui.base_url}/ui/state", params=query) as response:
            return [m["title"]["text"] for m in (await response.json())["modals"]]

    assert await modals("tab-1") == ["Request"]
    assert await modals("a-new-browser") == []
    async with http.get(f"{ui.base_url}/ui/events", params={"user": "bob", "client": "a-new-browser"}) as stream:
        _, first = await next_event(stream.content)
    assert first["state"]["modals"] == []


@pytest.mark.parametrize(
    ("name", "body", "status"),
    [
        ("click", {"user": "alice", "action_id": "approve"}, 422),  # neither a message nor a view
        ("click", {"user": "alice", "channel": "C0OPS", "ts": "1.0", "action_id": "x"}, 422),
        ("post", {"user": "alice"}, 400),
        ("post", {"user": "nobody", "channel": "C0OPS", "text": "hi"}, 422),
        ("submit", {"user": "alice", "view_id": "V404"}, 422),
    ],
)
async def test_bad_actions_are_refused_with_a_reason(
    ui: Workspace, seen: Seen, http: aiohttp.ClientSession, name: str, body: dict[str, Any], status: int
) -> None:
    got, reply = await act(http, ui, name, **body)

    assert (got, reply["ok"]) == (status, False)
    assert reply["error"]


async def test_actions_without_a_bot_say_so(ui: Workspace, http: aiohttp.ClientSession) -> None:
    status, reply = await act(http, ui, "command", user="alice", channel="C0OPS", text="hi")
    assert (status, reply["error"]) == (503, "No bot is connected to this workspace.")

    ui.events_url = "http://127.0.0.1:9/slack/events"
    status, reply = await act(http, ui, "command", user="alice", channel="C0OPS", text="hi")
    assert status == 502 and "not reachable" in reply["error"]


@pytest.mark.parametrize(
    ("typed", "sent", "mentions_bot"),
    [
        ("restart web", "restart web", False),
        ("a < b && c > d", "a &lt; b &amp;&amp; c &gt; d", False),
        ("@tandem deploy", "<@U0TANDEMBOT> deploy", True),
        ("ask @Bob and @nobody", "ask <@U0BOB> and @nobody", False),
        ("thanks @carol.", "thanks <@U0CAROL>.", False),
        ("mail me at carol@example.com", "mail me at carol@example.com", False),
    ],
)
def test_typed_text_is_escaped_with_mentions_as_slack_client_sends_it(
    typed: str, sent: str, mentions_bot: bool
) -> None:
    assert typed_text(WorkspaceState(), typed) == (sent, mentions_bot)


def test_static_folder_is_inside_the_package() -> None:
    assert STATIC.parent == Path(__file__).resolve().parents[2] / "workspace"
