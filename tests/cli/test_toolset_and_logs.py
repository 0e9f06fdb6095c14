"""The bot never runs the demo toolset unasked; the real ``tandem`` process logs the way its settings say."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest

from agent.errors import ConfigError
from bot.settings import SlackSettings
from cli.serve import DEMO_NOTICE, choose_tools

ROOT = Path(__file__).resolve().parents[2]
SECRETS = {"SLACK_BOT_TOKEN": "xoxb-1", "SLACK_SIGNING_SECRET": "s", "SLACK_APP_TOKEN": "xapp-1"}


def _closed_port() -> int:
    """A local port nothing listens on: a Web API call there fails at once instead of reaching Slack."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    api = f"http://127.0.0.1:{_closed_port()}/api/"
    return {
        **env,
        **SECRETS,
        "SLACK_API_URL": api,
        "TANDEM_DB": str(tmp_path / "t.db"),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }


def tandem(env: dict[str, str], *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("command", [["serve", "--port", "0"], ["socket"]])
def test_bot_without_tandem_tools_exits_1_naming_it_and_the_demo_flag(tmp_path: Path, command: list[str]) -> None:
    proc = tandem(_env(tmp_path), *command)

    assert proc.returncode == 1, proc.stderr
    assert "error: TANDEM_TOOLS is not set" in proc.stderr and "--demo" in proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("command", [["serve", "--port", "0", "--demo"], ["socket", "--demo"]])
def test_demo_flag_with_other_tandem_tools_exits_1_naming_both(tmp_path: Path, command: list[str]) -> None:
    proc = tandem(_env(tmp_path, TANDEM_TOOLS="tests.cli.held_tools"), *command)

    assert proc.returncode == 1
    assert "--demo runs the demo toolset, but TANDEM_TOOLS=tests.cli.held_tools is set" in proc.stderr


@pytest.mark.parametrize(
    ("tools", "demo", "loaded"),
    [
        (None, True, ["demo.tools"]),
        ("tests.cli.held_tools", False, ["tests.cli.held_tools"]),
        ("demo.tools", False, ["demo.tools"]),
        ("demo.tools", True, ["demo.tools"]),
        (" , ", True, ["demo.tools"]),
    ],
)
def test_choose_tools_loads_tandem_tools_or_the_demo_when_asked(
    tools: str | None, demo: bool, loaded: list[str]
) -> None:
    settings = choose_tools(SlackSettings(tools=tools), demo=demo)

    assert settings.tool_modules == loaded
    assert settings.demo is (loaded == ["demo.tools"])


@pytest.mark.parametrize("tools", [None, "", " , "])
def test_choose_tools_without_tandem_tools_or_demo_is_refused(tools: str | None) -> None:
    with pytest.raises(ConfigError, match="TANDEM_TOOLS is not set"):
        choose_tools(SlackSettings(tools=tools), demo=False)


@asynccontextmanager
async def bot(env: dict[str, str], *args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """The real process, started and killed after."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "cli.main",
        *args,
        cwd=ROOT,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            proc.send_signal(signal.SIGKILL)
        await proc.communicate()


async def _lines_until(stream: asyncio.StreamReader | None, needle: str) -> list[str]:
    """Lines read from ``stream`` up to and including the first that holds ``needle``."""
    assert stream is not None
    lines: list[str] = []
    async with asyncio.timeout(30):
        while not lines or needle not in lines[-1]:
            line = (await stream.readline()).decode()
            assert line, "closed early: " + "".join(lines)
            lines.append(line)
    return lines


async def _healthz(first_line: str) -> str:
    url = re.search(r"listening on (http://127\.0\.0\.1:\d+)/slack/events", first_line)
    assert url, first_line
    async with aiohttp.ClientSession() as http, http.get(f"{url.group(1)}/healthz") as response:
        assert response.status == 200
        assert await response.json() == {"ok": True}
    return url.group(1)


async def test_serve_with_demo_says_so_and_answers_healthz(tmp_path: Path) -> None:
    async with bot(_env(tmp_path, TANDEM_LOG_FORMAT="json"), "serve", "--port", "0", "--demo") as proc:
        out = await _lines_until(proc.stdout, DEMO_NOTICE)
        url = await _healthz(out[0])
        started = json.loads((await _lines_until(proc.stderr, "serving Slack over HTTP"))[-1])

    assert len(out) == 2
    assert started["level"] == "WARNING" and started["logger"] == "tandem.bot"
    assert started["msg"] == "serving Slack over HTTP on the demo toolset (simulated; nothing real happens)"
    assert (started["mode"], started["tools"], started["url"]) == ("http", "demo.tools", url)


async def test_serve_with_tandem_tools_logs_them_at_info_without_the_demo_notice(tmp_path: Path) -> None:
    env = _env(tmp_path, TANDEM_LOG_FORMAT="json", TANDEM_TOOLS="tests.cli.held_tools")
    async with bot(env, "serve", "--port", "0") as proc:
        first = (await _lines_until(proc.stdout, "listening on"))[0]
        await _healthz(first)
        started = json.loads((await _lines_until(proc.stderr, "serving Slack over HTTP"))[-1])
        proc.send_signal(signal.SIGKILL)  # a demo notice would be out before the log line
        rest, _ = await proc.communicate()

    assert (started["level"], started["msg"], started["tools"]) == (
        "INFO",
        "serving Slack over HTTP",
        "tests.cli.held_tools",
    )
    assert "demo" not in rest.decode().lower()


async def test_socket_with_demo_says_so_before_connecting(tmp_path: Path) -> None:
    async with bot(_env(tmp_path), "socket", "--demo") as proc:
        out = await _lines_until(proc.stdout, DEMO_NOTICE)
        started = (await _lines_until(proc.stderr, "Socket Mode"))[-1]

    assert out == ["Tandem is connecting to Slack in Socket Mode.\n", DEMO_NOTICE + "\n"]
    found = re.match(r"\d{4}-\d\d-\d\dT[\d:.]+Z WARNING tandem\.bot: (.*)$", started)
    assert found, started
    assert found.group(1) == (
        "connecting to Slack in Socket Mode on the demo toolset (simulated; nothing real happens)"
        " tools=demo.tools mode=socket"
    )


def test_terminal_run_without_tandem_tools_uses_the_demo_and_warns(tmp_path: Path) -> None:
    proc = tandem(_env(tmp_path), "run", "restart payments and check errors after", "--detach")

    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "awaiting_review"
    (line,) = proc.stderr.splitlines()
    assert re.match(r"\d{4}-\d\d-\d\dT[\d:.]+Z WARNING tandem\.cli: TANDEM_TOOLS is not set: using the demo", line)


def test_terminal_commands_log_nothing_below_warning_by_default(tmp_path: Path) -> None:
    env = _env(tmp_path, TANDEM_TOOLS="demo.tools")
    proc = tandem(env, "run", "restart payments and check errors after", stdin="a\n" * 8)

    assert proc.returncode == 0, proc.stderr
    assert ": done ──" in proc.stdout
    assert proc.stderr == ""


@pytest.mark.parametrize(
    ("command", "variable", "value"),
    [
        (["runs"], "TANDEM_LOG_LEVEL", "chatty"),
        (["serve", "--port", "0", "--demo"], "TANDEM_LOG_FORMAT", "xml"),
        (["dev", "--port", "0"], "TANDEM_LOG_LEVEL", "verbose"),
    ],
)
def test_invalid_log_setting_exits_1_naming_the_variable(
    tmp_path: Path, command: list[str], variable: str, value: str
) -> None:
    proc = tandem(_env(tmp_path, **{variable: value}), *command)

    assert proc.returncode == 1
    assert proc.stderr.startswith(f"error: Invalid setting {variable}: should be one of")
    assert f"(got {value!r})" in proc.stderr and "Traceback" not in proc.stderr
