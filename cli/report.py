"""``tandem report``: collaboration metrics for a period, against the period before it. Read-only,
except ``--post``, which writes the post to the outbox for the running bot to deliver."""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from pathlib import Path

from agent.config import ReportRule, load_config
from agent.errors import ConfigError
from agent.models.metrics import Metrics, MetricsQuery
from agent.report import build_report, report_json, report_lines, since_time
from agent.settings import CoreSettings
from agent.weekly import post_now
from cli.report_html import render_html
from cli.wiring import database_exists, open_store

__all__ = ["report_command"]


async def _figures(db: str, query: MetricsQuery) -> tuple[Metrics, Metrics]:
    async with open_store(db) as store:
        return await store.metrics(query), await store.metrics(query.previous())


async def _post(db: str, rule: ReportRule, since: float, until: float) -> None:
    async with open_store(db) as store:
        await post_now(store, rule, since, until, uuid.uuid4().hex[:12])


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
    if args.post and (args.channel or args.requester or args.tool):
        raise ConfigError("--post posts the report of every run: leave out --channel, --requester and --tool")
    if args.post and rule.channel is None:
        raise ConfigError(
            '--post: no [report] channel in the policy; set channel = "C…" under [report] '
            "(or TANDEM_POLICY__REPORT__CHANNEL) to say where the report goes"
        )
    query = MetricsQuery(since=since, until=now, channel=args.channel, requester=args.requester, tool=args.tool)
    report = build_report(*asyncio.run(_figures(settings.db, query)), rule)
    if args.html:
        try:
            Path(args.html).write_text(render_html(report), encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--html: cannot write {args.html}: {exc.strerror or exc}") from None
    if args.post:
        asyncio.run(_post(settings.db, rule, since, now))
    if args.json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
    elif args.html:  # the page has it all: say only where it went
        print(f"Wrote the report to {args.html}")
    else:
        print("\n".join(report_lines(report)))
    if args.post and not args.json:
        print(
            f"\nPosting it with its chart to channel {rule.channel}: "
            "the running bot (tandem serve, tandem dev) sends it."
        )
    return 0
