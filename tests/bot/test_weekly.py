"""The report post in Slack, against the local workspace over HTTP: the figures with their trend,
then the chart uploaded the way ``files_upload_v2`` does it, each exactly once."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
from slack_sdk.web.async_client import AsyncWebClient

from agent.config import PolicyConfig, ReportRule
from agent.delivery import DeliveryWorker
from agent.models import (
    Approve,
    Correct,
    Delivery,
    Policy,
    ProposedStep,
    Reading,
    RunState,
    Step,
    TakeoverReading,
)
from agent.ports import ClassifyContext
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from agent.weekly import PERIOD
from bot.channel import CHANNEL, SlackChannel
from storage.facade import AsyncStore
from workspace import Message, Workspace, run_workspace

DAY = 86_400.0
MONDAY = 20_003 * DAY + 9 * 3600  # Monday 2024-10-07 09:00 UTC
NOW = [MONDAY - PERIOD - 3 * DAY]
RULE = ReportRule(channel="C0OPS", weekday="monday", hour=9, timezone="UTC")
PNG = b"\x89PNG\r\n\x1a\n"


@tool(risk=Risk.READ)
def look(service: str) -> str:
    """Look at a service."""
    return f"{service} is fine"


class OneStepBrain:
    """Plans one look at the service; a replan looks at another one (a replan that changes nothing is not
    counted as a correction)."""

    async def plan(self, task: str, tools: ToolRegistry, feedback: Any = (), **_: Any) -> list[ProposedStep]:
        service = f"api-{len(feedback)}" if feedback else "api"
        return [ProposedStep(tool="look", params={"service": service}, reason="r", risk=Risk.READ)]

    async def revise_step(self, task: str, step: Step, tools: ToolRegistry, **_: Any) -> dict[str, Any]:
        return dict(step.params)

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str:
        return "done"

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str:
        return output

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        raise AssertionError("no free text in these runs")

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        return TakeoverReading(kind="unclear", message="No tool can do that.")  # the 4th correction


@dataclass
class World:
    ws: Workspace
    store: AsyncStore
    runtime: Runtime
    worker: DeliveryWorker
    channel: SlackChannel


@asynccontextmanager
async def world(tmp_path: Path) -> AsyncIterator[World]:
    NOW[0] = MONDAY - PERIOD - 3 * DAY
    registry = ToolRegistry()
    registry.add_function(look)
    config = PolicyConfig(report=RULE)
    async with run_workspace() as ws, AsyncStore(tmp_path / "weekly.db") as store:
        client = AsyncWebClient(token=ws.bot_token, base_url=ws.api_url)
        # Every anchor is kept (a read-only run is otherwise done with no review to correct it at).
        policy = Policy(dynamic_anchors=False)
        rt = Runtime(store, OneStepBrain(), registry, policy=policy, config=config, clock=lambda: NOW[0])
        channel = SlackChannel(client, store, config=config)
        worker = DeliveryWorker(store, CHANNEL, channel, clock=lambda: NOW[0], retry_scale=0.001)
        yield World(ws, store, rt, worker, channel)


async def a_run(rt: Runtime, replans: int) -> RunState:
    """A run from the terminal (nothing to show in Slack): ``replans`` corrections, then approvals to the end."""
    state = await rt.start("look at api", "U0ALICE")
    for _ in range(replans):
        state = await rt.decide(state.id, Correct(intent="replan", feedback="not like that"), "U0ALICE")
    while state.pending is not None and state.pending.anchor != "takeover":
        state = await rt.decide(state.id, Approve(), "U0ALICE")
    return state


async def two_weeks(w: World) -> None:
    """The week before: one straight run. This week: one corrected run, and one taken over after replans."""
    await a_run(w.runtime, 0)
    NOW[0] = MONDAY - 5 * DAY
    await a_run(w.runtime, 1)
    NOW[0] = MONDAY - 2 * DAY
    taken = await a_run(w.runtime, 4)
    assert taken.status == "human_takeover"


def posts(w: World) -> list[Message]:
    return [m for m in w.ws.state.history("C0OPS")]


def text_of(message: Message) -> str:
    return " ".join(str(b.get("text", {}).get("text", "")) for b in message.blocks) + " ".join(
        str(e.get("text", "")) for b in message.blocks for e in b.get("elements", [])
    )


async def test_weekly_post_at_its_time_posts_the_trend_then_the_chart_once(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await two_weeks(w)
        await w.runtime.tick()  # schedules Monday's post
        NOW[0] = MONDAY + 30
        await w.runtime.tick()
        await w.runtime.tick()
        await w.worker.idle()
        report, chart = posts(w)
        rows = table_of(report)
        assert rows[0] == ["Figure", "This period", "Previous period", "Change"]
        assert ["Runs", "2", "1", "up 1"] in rows
        assert ["Corrected runs", "2 (100%)", "0 (0%)", "up 100 points"] in rows
        assert ["Takeovers", "1 (50%)", "0 (0%)", "up 50 points"] in rows
        assert "*Runs:*" not in text_of(report)  # the figures are in the table, not said twice
        assert "Posted late" not in text_of(report)
        [file] = chart.files
        assert file["mimetype"] == "image/png" and file["name"].startswith("tandem-report-")
        assert file["title"].startswith("Corrections and takeovers per day")
        async with aiohttp.ClientSession() as http, http.get(file["url_private"]) as got:
            assert got.status == 200 and got.content_type == "image/png"
            assert (await got.read()).startswith(PNG)
        methods = [c.method for c in w.ws.state.calls if c.ok]
        assert methods.count("files.getUploadURLExternal") == 1 and methods.count("upload") == 1
        assert methods.count("files.completeUploadExternal") == 1
        NOW[0] = MONDAY + 3600
        await w.runtime.tick()
        await w.worker.idle()
        assert len(posts(w)) == 2


async def test_weekly_post_whose_table_the_api_refuses_posts_the_figures_as_text(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        await two_weeks(w)
        await w.runtime.tick()
        NOW[0] = MONDAY + 30
        w.ws.state.fail_next(
            "chat.postMessage", "invalid_blocks", status=200, retry_after=None, containing="data_table"
        )
        await w.runtime.tick()
        await w.runtime.tick()
        await w.worker.idle()
        report, chart = posts(w)
        assert table_of(report) == [] and chart.files
        text = text_of(report)
        assert "*Runs:* 2 (previous period 1)" in text
        assert "*Corrected runs:* 2 · 100% (up 100 points)" in text
        assert "*Takeovers:* 1 · 50% (up 50 points)" in text


def table_of(message: Message) -> list[list[str]]:
    """The cells of the message's data_table, as they show (none: [])."""
    tables = [b for b in message.blocks if b.get("type") == "data_table"]
    return [[str(cell["text"]) for cell in row] for t in tables for row in t["rows"]]


async def test_weekly_post_after_a_missed_hour_says_it_is_late(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        NOW[0] = MONDAY - DAY
        await w.runtime.tick()
        NOW[0] = MONDAY + 5 * 3600
        await w.runtime.tick()
        await w.worker.idle()
        report, _ = posts(w)
        assert "Posted late: it was due Mon 07 Oct 09:00 UTC" in text_of(report)


async def test_weekly_post_whose_upload_failed_retries_only_the_chart(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        NOW[0] = MONDAY - DAY
        await w.runtime.tick()
        NOW[0] = MONDAY + 30
        w.ws.state.fail_next("files.completeUploadExternal", "internal_error", status=500, retry_after=None)
        await w.runtime.tick()
        assert await w.worker.pass_once() == 0  # the figures went out, the chart did not
        assert [m.files for m in posts(w)] == [[]]
        NOW[0] += 10  # the retry's time
        await w.worker.idle()
        report, chart = posts(w)
        assert report.blocks and chart.files
        failed = [c for c in w.ws.state.calls if c.method == "files.completeUploadExternal" and not c.ok]
        assert len(failed) == 1


async def test_weekly_post_sent_again_after_an_unknown_outcome_sends_nothing_twice(tmp_path: Path) -> None:
    async with world(tmp_path) as w:
        NOW[0] = MONDAY - DAY
        await w.runtime.tick()
        NOW[0] = MONDAY + 30
        await w.runtime.tick()
        [row] = await w.store.due_deliveries(CHANNEL, NOW[0], 60.0)
        await w.worker.idle()
        assert len(posts(w)) == 2
        await w.channel.send(Delivery.model_validate({**row.model_dump(), "attempts": 1}), uncertain=True)
        assert len(posts(w)) == 2
