"""The report post in Slack: the week's figures with their trend, then the chart, uploaded as a file.

The delivery worker hands over an outbox row of kind ``weekly_report`` (written when the
scheduler claimed the post, see :mod:`agent.weekly`). The report is computed from the store
when it is sent, for the row's period and the one before. Two messages go out: the figures
(stamped with the delivery id in their metadata) and the chart, uploaded the way
``files_upload_v2`` does it (``files.getUploadURLExternal``, the upload, then
``files.completeUploadExternal`` with ``channel_id``) under a file name that carries the
delivery id. A retry looks for both first and sends only what is missing, so a crash between
them neither loses nor doubles either.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from agent.chart import chart_png
from agent.config import PolicyConfig
from agent.models import Delivery, WeeklyReport
from agent.models.metrics import MetricsQuery
from agent.ports import Store
from agent.report import build_report, stamp
from blocks.report import weekly_blocks

__all__ = ["REPORT_METADATA_TYPE", "ReportPoster", "chart_name"]

REPORT_METADATA_TYPE = "tandem_report"
REFUSED_BLOCKS = frozenset({"invalid_blocks", "invalid_blocks_format"})
"""How a workspace's API refuses a block it does not know (then the report goes out without it)."""
log = logging.getLogger("tandem.bot")


def chart_name(delivery: Delivery) -> str:
    return f"tandem-report-{delivery.id}.png"


def _due(at: float, zone: str) -> str:
    return datetime.fromtimestamp(at, ZoneInfo(zone)).strftime("%a %d %b %H:%M ") + zone


class ReportPoster:
    """Sends one report post (its two messages) to the channel the row names."""

    def __init__(self, client: AsyncWebClient, store: Store, config: PolicyConfig) -> None:
        self.client = client
        self.store = store
        self.config = config

    async def send(self, delivery: Delivery, message: WeeklyReport, *, uncertain: bool) -> None:
        channel = message.channel
        query = MetricsQuery(since=message.since, until=message.until)
        report = build_report(
            await self.store.metrics(query), await self.store.metrics(query.previous()), self.config.report
        )
        late = _due(query.until, message.timezone) if message.late_by else None
        text_sent, chart_sent = False, False
        if uncertain or delivery.attempts:  # an earlier attempt may have sent one or both
            text_sent, chart_sent = await self._already_there(channel, delivery)
        if not text_sent:
            text = f"Tandem report, {stamp(query.since)} to {stamp(query.until)}"
            meta = {"event_type": REPORT_METADATA_TYPE, "event_payload": {"delivery": delivery.id}}
            try:  # the figures in a data_table; a workspace that does not know the block gets them as text
                blocks = weekly_blocks(report, late=late, manual=message.manual, table=True)
                await self.client.chat_postMessage(channel=channel, blocks=blocks, text=text, metadata=meta)
            except SlackApiError as exc:
                if exc.response.get("error") not in REFUSED_BLOCKS:
                    raise
                log.info("the report's data_table was refused (%s): its figures go as text", exc.response["error"])
                blocks = weekly_blocks(report, late=late, manual=message.manual)
                await self.client.chat_postMessage(channel=channel, blocks=blocks, text=text, metadata=meta)
        if not chart_sent:
            title = f"Corrections and takeovers per day, {stamp(query.since)[:10]} to {stamp(query.until)[:10]}"
            png = await asyncio.to_thread(chart_png, report.current.days, title)
            await self.client.files_upload_v2(
                channel=channel,
                file=png,
                filename=chart_name(delivery),
                title=title,
                alt_txt=f"{title}: {report.current.corrections.total} corrections, "
                f"{report.current.takeovers} takeovers in all",
            )

    async def _already_there(self, channel: str, delivery: Delivery) -> tuple[bool, bool]:
        resp = await self.client.conversations_history(
            channel=channel, oldest=f"{delivery.created_at - 60:.6f}", include_all_metadata=True, limit=200
        )
        text_sent = chart_sent = False
        for message in resp.get("messages") or []:
            meta: dict[str, Any] = message.get("metadata") or {}
            payload = meta.get("event_payload") or {}
            if meta.get("event_type") == REPORT_METADATA_TYPE and payload.get("delivery") == delivery.id:
                text_sent = True
            if any(f.get("name") == chart_name(delivery) for f in message.get("files") or []):
                chart_sent = True
        return text_sent, chart_sent
