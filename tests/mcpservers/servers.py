"""The test MCP server (:mod:`tests.mcpservers.ops`) as tests start it: over stdio (a command for the policy
file) or over streamable HTTP on 127.0.0.1 (a real process on a free port), and policy text naming it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

OPS = Path(__file__).resolve().parent / "ops.py"
ELICITING = Path(__file__).resolve().parent / "eliciting.py"


def stdio_command() -> list[str]:
    return [sys.executable, str(OPS)]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextmanager
def http_server(
    log: Path, token: str | None = None, script: Path = OPS
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The server (``script``, :mod:`tests.mcpservers.ops` by default) over streamable HTTP, its calls logged to
    ``log`` (``token``: it answers only requests with that bearer token): its URL and process (stopped after)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(script), "--http", str(port), *(["--token", token] if token else [])],
        env={**os.environ, "OPS_LOG": str(log)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:  # a positive signal: the port takes connections
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise AssertionError("the MCP test server did not start") from None
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        proc.kill()
        proc.wait()


def down_url() -> str:
    """A URL nobody answers on."""
    return f"http://127.0.0.1:{_free_port()}/mcp"


def server_toml(name: str, *, log: Path | None = None, url: str | None = None, **extra: object) -> str:
    """A ``[mcp.servers.NAME]`` section: over HTTP at ``url``, else over stdio logging calls to ``log``."""
    lines = [f"[mcp.servers.{name}]"]
    if url is not None:
        lines.append(f"url = {json.dumps(url)}")
    else:
        lines.append(f"command = {json.dumps(stdio_command())}")
        if log is not None:
            lines.append(f"env = {{ OPS_LOG = {json.dumps(str(log))} }}")
    for key, value in extra.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} = {json.dumps(v)}" for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        else:
            lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def calls(log: Path) -> list[str]:
    return log.read_text().split() if log.exists() else []


ROOT = Path(__file__).resolve().parents[2]


def tandem_env(tmp_path: Path) -> dict[str, str]:
    """The environment of a ``tandem`` process of a test: its own database and policy file in ``tmp_path``, a
    small @tool module beside the MCP servers, the offline model, and a plan's approval apart from the gates."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))},
        "PYTHONPATH": str(ROOT),
        "TANDEM_DB": str(tmp_path / "tandem.db"),
        "TANDEM_CONFIG": str(tmp_path / "tandem.toml"),
        "TANDEM_TOOLS": "tests.cli.held_tools",
        "HELD_TOOLS_DIR": str(tmp_path),
        "TANDEM_MODEL": "offline",
        "TANDEM_POLICY__ANCHORS__MERGE_GATE": "false",
    }


def tandem(env: dict[str, str], *args: str, typed: str | None = None) -> subprocess.CompletedProcess[str]:
    """``tandem ARGS`` in a fresh process (``typed``: what a person types at its prompts)."""
    return subprocess.run(
        [sys.executable, "-m", "cli.main", *args],
        cwd=ROOT,
        env=env,
        input=typed,
        capture_output=True,
        text=True,
        timeout=90,
    )


def run_json(env: dict[str, str], *args: str) -> dict[str, Any]:
    """``tandem ARGS`` printing a run as JSON, which must exit 0: the run."""
    proc = tandem(env, *args)
    assert proc.returncode == 0, proc.stderr
    data: dict[str, Any] = json.loads(proc.stdout)
    return data


def eliciting_toml(name: str, log: Path, *, key: str | None = "k" * 32, url: str | None = None, **extra: object) -> str:
    """A ``[mcp.servers.NAME]`` section for :mod:`tests.mcpservers.eliciting`: at ``url`` over HTTP, else over
    stdio logging to ``log`` (``key``: the key it seals its request state with; None: a key of its process's own)."""
    lines = [f"[mcp.servers.{name}]"]
    if url is not None:
        lines.append(f"url = {json.dumps(url)}")
    else:
        env = {"OPS_LOG": str(log), **({"ELICIT_KEY": key} if key else {})}
        lines.append(f"command = {json.dumps([sys.executable, str(ELICITING)])}")
        lines.append("env = { " + ", ".join(f"{k} = {json.dumps(v)}" for k, v in env.items()) + " }")
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    return "\n".join(lines) + "\n"
