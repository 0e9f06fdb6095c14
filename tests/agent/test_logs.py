"""Operator logs: text and JSON lines, ids as context (per line and bound), tracebacks, settings."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent.errors import ConfigError
from agent.logs import Format, Level, bind, configure, ctx
from agent.settings import CoreSettings, LogSettings, read_settings

TEXT_LINE = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z) (\w+) ([\w.]+): (.*)$")


@contextmanager
def captured(fmt: Format = "text", level: Level = "DEBUG") -> Iterator[io.StringIO]:
    """Logging configured onto a fresh buffer; the root logger as it was afterwards."""
    root = logging.getLogger()
    before = root.level
    out = io.StringIO()
    handler = configure(level, fmt, out)
    try:
        yield out
    finally:
        root.removeHandler(handler)
        root.setLevel(before)


def json_lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_text_line_has_utc_timestamp_level_logger_message_then_context() -> None:
    with captured("text") as out:
        logging.getLogger("tandem.test").info(
            "transition %s -> %s", "planning", "awaiting_review", extra=ctx(run="r1", review="v 2")
        )

    found = TEXT_LINE.match(out.getvalue().rstrip("\n"))
    assert found, out.getvalue()
    assert found.group(2, 3) == ("INFO", "tandem.test")
    assert found.group(4) == 'transition planning -> awaiting_review run=r1 review="v 2"'


def test_json_lines_parse_with_fields_and_context_keys() -> None:
    with captured("json") as out:
        log = logging.getLogger("tandem.test")
        log.warning("delivery %s failed", "d1", extra=ctx(run="r1", delivery="d1", attempt=3))
        log.info("no context")

    first, second = json_lines(out)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", first["ts"])
    assert {k: v for k, v in first.items() if k != "ts"} == {
        "level": "WARNING",
        "logger": "tandem.test",
        "msg": "delivery d1 failed",
        "run": "r1",
        "delivery": "d1",
        "attempt": 3,
    }
    assert set(second) == {"ts", "level", "logger", "msg"}


def test_ctx_without_a_value_leaves_the_key_out() -> None:
    with captured("json") as out:
        logging.getLogger("tandem.test").info("x", extra=ctx(run="r1", review=None))

    assert "review" not in json_lines(out)[0]


@pytest.mark.parametrize("key", ["msg", "ts", "level", "logger", "exc"])
def test_ctx_with_a_key_of_the_line_itself_is_refused(key: str) -> None:
    with pytest.raises(ValueError, match=key):
        ctx(**{key: "x"})


async def test_bind_carries_ids_across_awaits_and_into_tasks_created_inside() -> None:
    log = logging.getLogger("tandem.test")

    async def step(n: int) -> None:
        await asyncio.sleep(0)
        log.info("step %d", n)

    with captured("json") as out:
        with bind(run="r1"):
            await asyncio.sleep(0)
            log.info("after an await")
            task = asyncio.create_task(step(1))
            with bind(review="v1"):
                await asyncio.gather(step(2), asyncio.to_thread(log.info, "in a worker thread"))
        log.info("outside")
        await task  # created inside the block, finished outside it: still carries run

    lines = {line["msg"]: line for line in json_lines(out)}
    assert lines["after an await"]["run"] == "r1" and "review" not in lines["after an await"]
    assert lines["step 1"]["run"] == "r1" and "review" not in lines["step 1"]
    assert (lines["step 2"]["run"], lines["step 2"]["review"]) == ("r1", "v1")
    assert (lines["in a worker thread"]["run"], lines["in a worker thread"]["review"]) == ("r1", "v1")
    assert "run" not in lines["outside"]


async def test_bind_in_one_task_is_not_seen_by_a_sibling_task() -> None:
    log = logging.getLogger("tandem.test")
    bound = asyncio.Event()
    logged = asyncio.Event()

    async def first() -> None:
        with bind(run="r1"):
            bound.set()
            await logged.wait()

    async def second() -> None:
        await bound.wait()
        log.info("sibling")
        logged.set()

    with captured("json") as out:
        await asyncio.gather(first(), second())

    assert "run" not in json_lines(out)[0]


def test_line_context_wins_over_bound_ids() -> None:
    with captured("json") as out, bind(run="r1", review="v1"):
        logging.getLogger("tandem.test").info("x", extra=ctx(review="v2"))

    line = json_lines(out)[0]
    assert (line["run"], line["review"]) == ("r1", "v2")


def _fail() -> None:
    raise RuntimeError("database is locked")


def test_exception_in_text_is_the_message_then_its_traceback() -> None:
    with captured("text") as out:
        try:
            _fail()
        except RuntimeError:
            logging.getLogger("tandem.test").exception("tick failed", extra=ctx(run="r1"))

    first, *rest = out.getvalue().splitlines()
    found = TEXT_LINE.match(first)
    assert found and found.group(2, 4) == ("ERROR", "tick failed run=r1")
    assert rest[0] == "Traceback (most recent call last):"
    assert "in _fail" in "\n".join(rest)
    assert rest[-1] == "RuntimeError: database is locked"


def test_exception_in_json_is_an_exc_string_with_the_traceback() -> None:
    with captured("json") as out:
        try:
            _fail()
        except RuntimeError as exc:
            logging.getLogger("tandem.test").error("tick failed", exc_info=exc)

    (line,) = json_lines(out)
    assert line["msg"] == "tick failed"
    assert line["exc"].startswith("Traceback (most recent call last):")
    assert line["exc"].endswith("RuntimeError: database is locked") and "in _fail" in line["exc"]


def test_exception_logged_outside_an_except_adds_no_empty_traceback() -> None:
    with captured("json") as out:
        logging.getLogger("tandem.test").exception("no exception here")

    assert "exc" not in json_lines(out)[0]


def test_level_filters_lines_below_it() -> None:
    with captured("json", level="WARNING") as out:
        log = logging.getLogger("tandem.test")
        log.info("hidden")
        log.warning("shown")

    assert [line["msg"] for line in json_lines(out)] == ["shown"]


def test_configure_twice_replaces_its_own_handler_only() -> None:
    root = logging.getLogger()
    other = logging.NullHandler()
    root.addHandler(other)
    try:
        with captured("text") as first, captured("json") as second:
            logging.getLogger("tandem.test").warning("once")
        assert other in root.handlers
    finally:
        root.removeHandler(other)

    assert first.getvalue() == ""
    assert [line["msg"] for line in json_lines(second)] == ["once"]


def test_library_with_its_own_console_handler_logs_through_ours_and_keeps_its_file(tmp_path: Path) -> None:
    library = logging.getLogger("some_library.client")
    console, file = io.StringIO(), logging.FileHandler(tmp_path / "library.log")
    library.addHandler(logging.StreamHandler(console))
    library.addHandler(file)
    library.propagate = False
    try:
        with captured("json", level="INFO") as out:
            library.info("calling the provider")
        assert [line["msg"] for line in json_lines(out)] == ["calling the provider"]
        assert console.getvalue() == "", "its own console handler is gone"
        file.flush()
        assert "calling the provider" in (tmp_path / "library.log").read_text()
    finally:
        library.removeHandler(file)
        file.close()


@pytest.mark.parametrize(("level", "shown"), [("INFO", False), ("DEBUG", True)])
@pytest.mark.parametrize(
    ("logger", "line"),
    [
        ("aiohttp.access", '127.0.0.1 "POST /slack/events" 200'),
        ("aiohttp_asgi.resource", "ASGI application <Starlette object at 0x7f> startup completed."),
        ("mcp.server.lowlevel.server", "Processing request of type CallToolRequest"),
        ("mcp.server.streamable_http_manager", "StreamableHTTP session manager started"),
    ],
)
def test_per_request_and_start_up_lines_of_libraries_only_at_debug(
    level: Level, shown: bool, logger: str, line: str
) -> None:
    with captured("json", level=level) as out:
        logging.getLogger(logger).info(line)

    assert bool(out.getvalue()) is shown


@pytest.mark.parametrize(
    ("variable", "value", "named"),
    [
        ("TANDEM_LOG_LEVEL", "loud", "TANDEM_LOG_LEVEL: should be one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
        ("TANDEM_LOG_LEVEL", "5", "TANDEM_LOG_LEVEL"),
        ("TANDEM_LOG_FORMAT", "xml", "TANDEM_LOG_FORMAT: should be one of text, json (got 'xml')"),
    ],
)
def test_invalid_log_setting_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, named: str
) -> None:
    monkeypatch.setenv(variable, value)
    for settings in (LogSettings, CoreSettings):
        with pytest.raises(ConfigError, match=re.escape(named)):
            read_settings(settings)


@pytest.mark.parametrize(
    ("level", "fmt", "expected"),
    [("", "", (None, "text")), (" info ", "JSON", ("INFO", "json")), ("Warning", "text", ("WARNING", "text"))],
)
def test_log_settings_are_read_in_any_case(
    monkeypatch: pytest.MonkeyPatch, level: str, fmt: str, expected: tuple[str | None, str]
) -> None:
    monkeypatch.setenv("TANDEM_LOG_LEVEL", level)
    monkeypatch.setenv("TANDEM_LOG_FORMAT", fmt)
    settings = read_settings(LogSettings)
    assert (settings.log_level, settings.log_format) == expected


def test_other_invalid_settings_are_named_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_STEP_TIMEOUT", "-1")
    with pytest.raises(ConfigError, match="TANDEM_STEP_TIMEOUT: Input should be greater than 0"):
        read_settings(CoreSettings)
