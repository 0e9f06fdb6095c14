"""``tandem report``: collaboration metrics for a period, against the period before it. Read-only."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path

from agent.config import load_config
from agent.errors import ConfigError
from agent.models.metrics import Metrics, MetricsQuery
from agent.report import build_report, report_json, report_lines, since_time
from agent.settings import CoreSettings
from cli.report_html import render_html
from cli.wiring import database_exists, open_store

__all__ = ["report_command"]


async def _figures(db: str, query: MetricsQuery) -> tuple[Metrics, Metrics]:
    async with open_store(db) as store:
        return await store.metrics(query), await store.metrics(query.previous())


def report_command(args: argparse.Namespace, settings: CoreSettings) -> int:
    """Print (and with ``--html`` write) the report. Blocking file checks stay out of the event loop."""
    now = time.time()
    try:
        since = since_time(args.since, now)
    except ConfigError as exc:
        raise ConfigError(f"--since: {exc}") from None
    rule = load_config(settings.config).report
    if not database_exists(settings.db):  # read-only: never create an empty database to report on
        raise ConfigError(
            f"No database at {settings.db}: nothing to report yet. "
            "Point TANDEM_DB at the file the bot or the terminal runs use."
        )
    query = MetricsQuery(since=since, until=now, channel=args.channel, requester=args.requester, tool=args.tool)
    report = build_report(*asyncio.run(_figures(settings.db, query)), rule)
    if args.html:
        try:
            Path(args.html).write_text(render_html(report), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--html: cannot write {args.html}: {exc.strerror or exc}") from None
    if args.json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    else:
        print("\n".join(report_lines(report)))
        if args.html:
            print(f"\nWrote {args.html}")
    return 0
