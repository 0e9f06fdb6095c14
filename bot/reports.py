"""Reports for Slack: a channel's (``/tandem report``) and a person's own (App Home)."""

from __future__ import annotations

from agent.commands import DEFAULT_SINCE, BadPeriod
from agent.report import Report
from blocks.report import Blocks, report_blocks
from blocks.text import escape, section
from bot.deps import Deps


async def channel_report(deps: Deps, channel: str, since: str) -> Blocks:
    """``/tandem report [7d|30d|DATE]``: this channel's runs only (a channel never sees another's)."""
    report = await deps.usecases.report(since, channel)
    if isinstance(report, BadPeriod):
        return [
            section(f"{report.error}. Try `/tandem report 7d`, `/tandem report 30d` or `/tandem report 2026-11-20`.")
        ]
    return report_blocks(report, f"<#{escape(channel)}>")


async def personal_report(deps: Deps, user: str) -> Report:
    """The runs ``user`` started in the last 7 days (App Home shows only a person's own runs)."""
    report = await deps.usecases.report(DEFAULT_SINCE, None, requester=user)
    assert not isinstance(report, BadPeriod), "the default period always reads"
    return report
