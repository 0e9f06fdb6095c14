"""The weekly report post: when it falls due, and that it goes out once across restarts and processes.

The process tests run real subprocesses (``tests/agent/weekly_driver.py``) on one real
database: a SQLite file, or a schema of the PostgreSQL server the session starts.
"""

from __future__ import annotations

import asyncio
import json
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from agent.brain import LLMBrain
from agent.config import PolicyConfig, ReportRule, load_config
from agent.errors import ConfigError, PolicyError
from agent.models import WeeklyReport
from agent.offline import OfflineModel
from agent.ports import Store
from agent.runtime import Runtime
from agent.tools import ToolRegistry
from agent.weekly import LATE_AFTER, PERIOD, manual_post, next_post_time, post_message, post_now, scheduled_post
from storage.facade import AsyncStore
from storage.postgres.store import PgStore
from tests.pgserver import PgServer

ROOT = Path(__file__).resolve().parents[2]
BERLIN = ZoneInfo("Europe/Berlin")
RULE = ReportRule(channel="C0OPS", weekday="monday", hour=9, timezone="Europe/Berlin")
WAIT = 60.0


def berlin(*parts: int) -> float:
    return datetime(*parts, tzinfo=BERLIN).timestamp()  # type: ignore[misc]


SUNDAY_NOON = berlin(2026, 11, 29, 12)
MONDAY_NINE = berlin(2026, 11, 30, 9)


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        (SUNDAY_NOON, MONDAY_NINE),
        (MONDAY_NINE - 1, MONDAY_NINE),
        (MONDAY_NINE, MONDAY_NINE + PERIOD),  # strictly after: the one due now is not the next
        (berlin(2026, 11, 30, 10), MONDAY_NINE + PERIOD),
        (berlin(2026, 12, 2, 9), MONDAY_NINE + PERIOD),
        # Summer time starts on Sunday 29 March 2026: 09:00 stays 09:00 on the wall clock.
        (berlin(2026, 3, 28, 12), berlin(2026, 3, 30, 9)),
    ],
)
def test_next_post_time_in_a_time_zone_returns_the_next_weekday_at_the_hour(now: float, expected: float) -> None:
    assert next_post_time(RULE, now) == expected
    assert datetime.fromtimestamp(next_post_time(RULE, now), BERLIN).strftime("%A %H:%M") == "Monday 09:00"


def test_next_post_time_across_summer_time_is_an_hour_shorter_in_utc() -> None:
    before, after = berlin(2026, 3, 23, 9), berlin(2026, 3, 30, 9)
    assert next_post_time(RULE, before) == after
    assert after - before == PERIOD - 3600


def test_post_message_well_after_its_time_says_it_is_late() -> None:
    post = scheduled_post("C0OPS", MONDAY_NINE)
    assert post.since == MONDAY_NINE - PERIOD and post.until == MONDAY_NINE
    assert post_message(post, RULE, MONDAY_NINE + 3 * 3600).late_by == 3 * 3600
    assert post_message(post, RULE, MONDAY_NINE + LATE_AFTER - 1).late_by == 0.0
    manual = manual_post("C0OPS", SUNDAY_NOON - PERIOD, SUNDAY_NOON, "x")
    assert post_message(manual, RULE, SUNDAY_NOON + 3 * 3600).late_by == 0.0


def runtime(store: Store, now: list[float], rule: ReportRule = RULE) -> Runtime:
    config = PolicyConfig(report=rule)
    return Runtime(store, LLMBrain(OfflineModel()), ToolRegistry(), config=config, clock=lambda: now[0])


async def report_rows(store: Store) -> list[WeeklyReport]:
    rows = await store.due_deliveries("slack", MONDAY_NINE + 10 * PERIOD, 60.0)
    return [r.message for r in rows if isinstance(r.message, WeeklyReport)]


async def test_tick_at_the_posts_time_writes_one_post_and_schedules_the_next(tmp_path: Path) -> None:
    now = [SUNDAY_NOON]
    async with AsyncStore(tmp_path / "w.db") as store:
        rt = runtime(store, now)
        await rt.tick()
        assert await report_rows(store) == []
        now[0] = MONDAY_NINE
        await rt.tick()
        await rt.tick()
        rows = await report_rows(store)
        assert [r.until for r in rows] == [MONDAY_NINE]
        assert rows[0].since == MONDAY_NINE - PERIOD and rows[0].late_by == 0.0
        assert [p.until for p in await store.due_posts(MONDAY_NINE + PERIOD)] == [MONDAY_NINE + PERIOD]


async def test_tick_without_a_report_channel_schedules_nothing(tmp_path: Path) -> None:
    now = [SUNDAY_NOON]
    async with AsyncStore(tmp_path / "w.db") as store:
        await runtime(store, now, ReportRule()).tick()
        assert await store.due_posts(SUNDAY_NOON + 10 * PERIOD) == []


async def test_tick_after_the_channel_was_dropped_from_the_policy_posts_nothing(tmp_path: Path) -> None:
    now = [SUNDAY_NOON]
    async with AsyncStore(tmp_path / "w.db") as store:
        await runtime(store, now).tick()
        now[0] = MONDAY_NINE + 60
        await runtime(store, now, ReportRule()).tick()
        assert await report_rows(store) == []


async def test_post_now_writes_a_post_of_its_own_beside_the_scheduled_one(tmp_path: Path) -> None:
    now = [SUNDAY_NOON]
    async with AsyncStore(tmp_path / "w.db") as store:
        await runtime(store, now).tick()
        await post_now(store, RULE, SUNDAY_NOON - PERIOD, SUNDAY_NOON, "a1")
        now[0] = MONDAY_NINE
        await runtime(store, now).tick()
        rows = await report_rows(store)
        assert [(r.manual, r.until) for r in rows] == [
            (True, SUNDAY_NOON),
            (False, MONDAY_NINE),
        ]


async def test_post_now_without_a_report_channel_says_how_to_set_one(tmp_path: Path) -> None:
    async with AsyncStore(tmp_path / "w.db") as store:
        with pytest.raises(ConfigError, match=r"no \[report\] channel"):
            await post_now(store, ReportRule(), SUNDAY_NOON - PERIOD, SUNDAY_NOON, "a1")
        assert await report_rows(store) == []


# --- real processes ------------------------------------------------------------------


@asynccontextmanager
async def driver(
    db: str, now: float, ticks: int = 0, go: Path | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    args = [db, repr(now), str(ticks), *([str(go)] if go is not None else [])]
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.agent.weekly_driver", *args, cwd=ROOT, stdout=asyncio.subprocess.PIPE
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.wait()


async def read_until(proc: asyncio.subprocess.Process, line: str) -> None:
    assert proc.stdout is not None
    async with asyncio.timeout(WAIT):
        while True:
            got = (await proc.stdout.readline()).decode().strip()
            assert got, f"the driver ended before printing {line!r}"
            if got == line:
                return


async def test_weekly_post_missed_while_the_process_was_killed_goes_out_once_late(tmp_path: Path) -> None:
    db = str(tmp_path / "restart.db")
    async with driver(db, SUNDAY_NOON) as first:  # schedules Monday's post, then dies
        await read_until(first, json.dumps({"tick": 2}))
        first.send_signal(signal.SIGKILL)
    late = MONDAY_NINE + 3 * 3600  # nothing ran at nine
    async with driver(db, late) as second:
        await read_until(second, json.dumps({"tick": 3}))
        second.send_signal(signal.SIGKILL)  # killed again, after the post was claimed
    async with driver(db, late + 3600, ticks=2) as third:
        assert await third.wait() == 0
    async with AsyncStore(db) as store:
        rows = await report_rows(store)
        assert [(r.until, r.late_by) for r in rows] == [(MONDAY_NINE, 3 * 3600)]
        assert [p.until for p in await store.due_posts(MONDAY_NINE + PERIOD)] == [MONDAY_NINE + PERIOD]


async def two_processes_at_once(db: str, tmp_path: Path) -> None:
    async with driver(db, SUNDAY_NOON, ticks=1) as first:  # Monday's post is scheduled
        assert await first.wait() == 0
    go = tmp_path / "go"
    async with driver(db, MONDAY_NINE + 1, 20, go) as one, driver(db, MONDAY_NINE + 1, 20, go) as two:
        await read_until(one, "ready")
        await read_until(two, "ready")
        go.touch()  # both tick together from here
        assert (await one.wait(), await two.wait()) == (0, 0)


async def test_weekly_post_with_two_processes_on_one_sqlite_file_goes_out_once(tmp_path: Path) -> None:
    db = str(tmp_path / "two.db")
    await two_processes_at_once(db, tmp_path)
    async with AsyncStore(db) as store:
        assert [r.until for r in await report_rows(store)] == [MONDAY_NINE]


async def test_weekly_post_with_two_processes_on_one_postgres_database_goes_out_once(
    tmp_path: Path, pg_server: PgServer
) -> None:
    url = pg_server.schema()
    await two_processes_at_once(url, tmp_path)
    async with PgStore(url) as store:
        assert [r.until for r in await report_rows(store)] == [MONDAY_NINE]


# --- the policy --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("toml", "message"),
    [
        (
            'channel = "#ops"',
            r'report.channel: "#ops" is not a channel reports can go to; use a Slack channel id \(C…\)',
        ),
        ('channel = "C0OPS"\nweekday = "funday"', r'report.weekday: "funday" is not a weekday; use monday … sunday'),
        ('channel = "C0OPS"\nhour = 24', r"report.hour: Input should be less than or equal to 23"),
        ('channel = "C0OPS"\ntimezone = "Mars/Base"', r'report.timezone: "Mars/Base" is not an IANA time zone'),
        ("hour = 7", r"report: hour schedule the weekly post: set channel too"),
    ],
)
def test_report_schedule_in_the_policy_with_a_bad_value_names_the_key(tmp_path: Path, toml: str, message: str) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text(f"[report]\n{toml}\n")
    with pytest.raises(PolicyError, match=message):
        load_config(policy, environ={})


def test_report_schedule_in_the_policy_reads_short_weekdays_and_environment_overrides() -> None:
    environ = {
        "TANDEM_POLICY__REPORT__CHANNEL": "C0OPS",
        "TANDEM_POLICY__REPORT__WEEKDAY": "Fri",
        "TANDEM_POLICY__REPORT__HOUR": "17",
        "TANDEM_POLICY__REPORT__TIMEZONE": "America/New_York",
    }
    rule = load_config(None, environ=environ).report
    assert (rule.channel, rule.weekday, rule.hour, rule.timezone) == ("C0OPS", "friday", 17, "America/New_York")
