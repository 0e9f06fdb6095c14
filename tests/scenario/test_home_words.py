"""App Home says how to get help from where it is (not "this message"), and labels each run's time."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.harness import running


async def test_home_tab_help_line_fits_home_and_run_times_are_labelled(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        await env.start("restart payments and check errors after")
        event = {"type": "app_home_opened", "user": "U0ALICE", "channel": "D0X", "tab": "home", "event_ts": "1.2"}
        assert (await env.ws.deliver(event)).status == 200
        await env.wait(lambda: env.ws.state.home_view("U0ALICE") is not None)
        await env.idle()
        view = env.ws.state.home_view("U0ALICE")
        assert view is not None
        home = "\n".join(_texts(view.blocks))
        assert "this message" not in home
        assert "`/tandem help` in a channel — these commands there" in home
        row = next(line for line in home.splitlines() if "restart payments" in line)
        assert " · last change <!date^" in row and "{date_short_pretty} at {time}" in row


def _texts(blocks: list[dict[str, object]]) -> list[str]:
    found = []
    for block in blocks:
        text = block.get("text")
        if isinstance(text, dict) and isinstance(text.get("text"), str):
            found.append(text["text"])
    return found
