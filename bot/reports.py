"""Reports for Slack: a channel's (``/tandem report``) and a person's own (App Home)."""

from __future__ import annotations

from agent.errors import ConfigError
from agent.models.metrics import MetricsQuery
from agent.report import Report, build_report, since_time
from blocks.report import Blocks, report_blocks
from blocks.text import section
from bot.deps import Deps

DEFAULT_SINCE = "7d"


async def _report(deps: Deps, query: MetricsQuery) -> Report:
    current = await deps.store.metrics(query)
    previous = await deps.store.metrics(query.previous())
    return build_report(current, previous, deps.runtime.config.report)


async def channel_report(deps: Deps, channel: str, since: str) -> Blocks:
    """``/tandem report [7d|30d|DATE]``: this channel's runs only (a channel never sees another's)."""
    now = deps.runtime.clock()
    try:
        start = since_time(since or DEFAULT_SINCE, now)
    except ConfigError as exc:
        return [section(f"{exc}. Try `/tandem report 7d`, `/tandem report 30d` or `/tandem report 2026-11-20`.")]
    report = await _report(deps, MetricsQuery(since=start, until=now, channel=channel))
    return report_blocks(report, f"<#{channel}>")


async def personal_report(deps: Deps, user: str) -> Report:
    """The runs ``user`` started in the last 7 days (App Home shows only a person's own runs)."""
    now = deps.runtime.clock()
    return await _report(deps, MetricsQuery(since=since_time(DEFAULT_SINCE, now), until=now, requester=user))
