"""The weekly report post: when it is due, which period it covers, and the outbox message that carries it.

Times come in, times go out (only :func:`post_now` touches the store). The scheduler
(``Runtime.tick``) keeps one scheduled post per channel in the store (``Store.schedule_post``)
and claims it once its time has come (``Store.claim_post``), writing this module's message to
the outbox in the same transaction; the channel renders the report (figures, trend against
the week before, chart) when it delivers it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agent.config import WEEKDAYS, ReportRule
from agent.errors import ConfigError
from agent.models import Outbound, WeeklyReport, platforms
from agent.models.store import ScheduledPost
from agent.ports import PostsStore

__all__ = [
    "LATE_AFTER",
    "PERIOD",
    "manual_post",
    "next_post_time",
    "post_message",
    "post_now",
    "post_run_id",
    "report_outbound",
    "scheduled_post",
]

PERIOD = 7 * 86400.0
"""A weekly post covers the seven days before its time."""
LATE_AFTER = 15 * 60.0
"""Seconds after its time past which a post says it is late (Tandem was not running then)."""


def next_post_time(rule: ReportRule, now: float) -> float:
    """The first ``weekday`` at ``hour``:00 in the rule's time zone strictly after ``now`` (a Unix time)."""
    zone = rule.zone
    local = datetime.fromtimestamp(now, zone)
    ahead = (WEEKDAYS.index(rule.weekday) - local.weekday()) % 7
    for extra in (0, 7, 14):
        day = (local + timedelta(days=ahead + extra)).date()
        at = datetime(day.year, day.month, day.day, rule.hour, tzinfo=zone).timestamp()
        if at > now:
            return at
    raise AssertionError("a weekday comes round within three weeks")


def scheduled_post(channel: str, at: float) -> ScheduledPost:
    """The post due at ``at``: one per channel and time, so two processes scheduling it schedule one."""
    return ScheduledPost(key=f"{channel}@{at:.0f}", channel=channel, since=at - PERIOD, until=at)


def manual_post(channel: str, since: float, until: float, nonce: str) -> ScheduledPost:
    """A post asked for by hand (``tandem report --post``): its own key, never the week's scheduled one."""
    return ScheduledPost(key=f"{channel}@manual-{nonce}", channel=channel, since=since, until=until, manual=True)


def post_run_id(key: str) -> str:
    """The outbox groups rows by run; a report post (by its key) is its own group."""
    return f"report:{key}"


def post_message(post: ScheduledPost, rule: ReportRule, at: float) -> WeeklyReport:
    """The outbox row of ``post``, claimed at ``at`` (late when well after its time)."""
    late = 0.0 if post.manual else max(0.0, at - post.until)
    return WeeklyReport(
        key=post.key,
        channel=post.channel,
        since=post.since,
        until=post.until,
        late_by=late if late > LATE_AFTER else 0.0,
        timezone=rule.timezone,
        manual=post.manual,
    )


def report_outbound(message: WeeklyReport) -> Outbound | None:
    """The outbox write of a report post's ``message``, for the delivery worker of the platform
    whose channel it names (None: no registered platform takes that channel any more)."""
    where = platforms.report_destination(message.channel)
    if where is None or where.channel is None:
        return None
    return Outbound(where.channel, [message])


async def post_now(store: PostsStore, rule: ReportRule, since: float, until: float, nonce: str) -> ScheduledPost:
    """Post the report of ``[since, until)`` to ``[report] channel`` now (``tandem report --post``): written
    to the outbox at once; the running bot delivers it. ConfigError when the policy names no channel."""
    if rule.channel is None:
        raise ConfigError(
            'no [report] channel in the policy: set channel = "C…" under [report] '
            "(or TANDEM_POLICY__REPORT__CHANNEL) to say where the report goes"
        )
    post = manual_post(rule.channel, since, until, nonce)
    outbound = report_outbound(post_message(post, rule, until))
    if outbound is None:  # the policy was checked when it was loaded; a platform cannot have gone since
        raise ConfigError(f"[report] channel {rule.channel} is no channel reports can go to")
    await store.schedule_post(post, until)
    await store.claim_post(post.key, outbound, until)
    return post
