"""``tandem report``: collaboration metrics for a period, against the period before it, through the report use
cases of :class:`~agent.commands.Commands` (the terminal sees every place's runs). Read-only, except ``--post``,
which writes the post to the outbox for the running bot to deliver."""

from __future__ import annotations

import argparse
import asyncio
import json
from pathlib import Path

from agent.commands import BadPeriod, Commands
from agent.errors import ConfigError
from agent.outcomes import NotApplied
from agent.policy import SafetyPolicy
from agent.report import Report, report_json, report_lines
from agent.settings import CoreSettings
from cli.options import UsageError
from cli.policy import checked_policy
from cli.report_html import render_html
from cli.wiring import database_exists, open_store

__all__ = ["report_command"]


def report_command(args: argparse.Namespace, settings: CoreSettings) -> int:
    """Print (and with ``--html`` write, with ``--post`` post) the report. Blocking file checks stay out of the
    event loop."""
    if args.post and (args.channel or args.requester or args.tool):
        raise UsageError("--post posts the report of every run: leave out --channel, --requester and --tool")
    safety = SafetyPolicy(checked_policy(settings.config, announce=False))
    if not database_exists(settings.db):  # read-only: never create an empty database to report on
        raise ConfigError(
            f"No database at {settings.db}: nothing to report yet. "
            "Point TANDEM_DB at the file the bot or the terminal runs use."
        )
    report, posted = asyncio.run(_report(args, settings.db, safety))
    if args.json:
        print(json.dumps(report_json(report), indent=2, ensure_ascii=False))
        return 0
    if args.html:  # the page has it all: say only where it went
        print(f"Wrote the report to {args.html}")
    else:
        print("\n".join(report_lines(report)))
    if posted is not None:
        print(f"\nPosting it with its chart to channel {posted}: the running bot (tandem serve, tandem dev) sends it.")
    return 0


async def _report(args: argparse.Namespace, db: str, safety: SafetyPolicy) -> tuple[Report, str | None]:
    """The report, its page written (``--html``), and where it is posted (``--post``; None when not asked)."""
    async with open_store(db) as store:
        commands = Commands(store, safety)
        report = await commands.report(args.since, None, channel=args.channel, requester=args.requester, tool=args.tool)
        if isinstance(report, BadPeriod):  # the parser checked it; only a date that just stopped being past is here
            raise UsageError(f"--since: {report.error}")
        if args.html:
            await asyncio.to_thread(_write_page, args.html, report)
        if not args.post:
            return report, None
        period = report.current.query
        posted = await commands.post_report(period.since, period.until)
    if isinstance(posted, NotApplied):
        raise ConfigError(f"--post: {posted.message}")
    return report, posted.channel


def _write_page(path: str, report: Report) -> None:
    try:
        Path(path).write_text(render_html(report), encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"--html: cannot write {path}: {exc.strerror or exc}") from None
