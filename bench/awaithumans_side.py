"""The awaithumans half of :mod:`bench.handoffs`: the same workload through its documented HTTP API.

Its server (``awaithumans serve``: FastAPI, SQLite) runs as a child process of the given python, from a virtualenv
outside this project, with a fresh payload key, admin token and database in a temp directory. Each task is
``POST /api/tasks`` with a ``callback_url``; the "click" is ``POST /api/tasks/{id}/complete`` with the admin token
(as its dashboard completes a task; there is no Slack thread in this setup, so "create → message" is not
measured); its signed webhook (``X-Awaithumans-Signature``, keyed from the payload key by HKDF) is received by
the same receiver as Tandem's, which here records arrivals without checking the signature (the check needs
awaithumans' own key derivation; its cost is microseconds either way).
"""

from __future__ import annotations

import asyncio
import base64
import os
import secrets
import socket
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import aiohttp

from bench.handoff_figures import Figures, Receiver, bounded, prompt, receiving

SCHEMA = {"type": "object", "properties": {"choice": {"type": "string", "enum": ["roll back", "keep"]}}}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def run_awaithumans(n: int, python: str, workdir: Path, log: Callable[[str], None]) -> Figures:
    await asyncio.to_thread(workdir.mkdir, parents=True, exist_ok=True)
    port, token = _free_port(), secrets.token_urlsafe(24)
    env: dict[str, str] = {
        **os.environ,
        "AWAITHUMANS_PAYLOAD_KEY": base64.b64encode(secrets.token_bytes(32)).decode(),
        "AWAITHUMANS_DB_PATH": str(workdir / "awaithumans.db"),
        "AWAITHUMANS_ADMIN_API_TOKEN": token,
        "AWAITHUMANS_PUBLIC_URL": f"http://127.0.0.1:{port}",
    }
    command = ["-m", "awaithumans.cli.main", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--log-level", "warning"]
    with (workdir / "server.log").open("wb") as said:  # (its first-run setup banner, warnings)
        proc = await asyncio.create_subprocess_exec(python, *command, cwd=workdir, env=env, stdout=said, stderr=said)
    figures = Figures("awaithumans sqlite")
    try:
        base = f"http://127.0.0.1:{port}"
        headers = {"Authorization": f"Bearer {token}"}
        async with aiohttp.ClientSession(base, headers=headers) as http:
            await _ready(http, proc)
            receiver = Receiver("", lambda body: str(body["task_id"]), check=False)
            async with receiving(receiver) as hook:
                created: dict[int, str] = {}

                async def create(i: int) -> None:
                    task: dict[str, Any] = {
                        "task": prompt(i),
                        "payload": {"n": i},
                        "payload_schema": {"type": "object"},
                    }
                    task |= {"response_schema": SCHEMA, "timeout_seconds": 900, "idempotency_key": f"bench-{i}"}
                    t0 = time.perf_counter()
                    body = await _posted(http, "/api/tasks", {**task, "callback_url": hook}, 201, figures)
                    figures.creates.append(time.perf_counter() - t0)
                    created[i] = str(body["id"])

                start = time.perf_counter()
                await bounded(n, create)
                log(f"awaithumans: {n} created")
                clicked: dict[str, float] = {}

                async def complete(i: int) -> None:
                    clicked[created[i]] = time.perf_counter()
                    body = {"response": {"choice": "roll back"}, "completed_via_channel": "dashboard"}
                    await _posted(http, f"/api/tasks/{created[i]}/complete", body, 200, figures)

                await bounded(n, complete)
                log(f"awaithumans: {n} completed")
                await receiver.until(n, 600)
                figures.wall = max(receiver.received.values()) - start
            figures.to_webhook = [receiver.received[t] - at for t, at in clicked.items()]
    finally:
        if proc.returncode is None:
            proc.terminate()
        await proc.wait()
    return figures


async def _posted(
    http: aiohttp.ClientSession, path: str, body: dict[str, Any], want: int, figures: Figures, tries: int = 5
) -> dict[str, Any]:
    """POST ``body``; a 5xx is counted in ``figures.errors`` and tried again (the same idempotency key: once)."""
    for _ in range(tries):
        async with http.post(path, json=body) as answer:
            if answer.status == want:
                got: dict[str, Any] = await answer.json()
                return got
            said = await answer.text()
        if answer.status < 500:
            raise RuntimeError(f"awaithumans {path} answered {answer.status}: {said[:300]}")
        figures.errors += 1
        await asyncio.sleep(0.1)
    raise RuntimeError(f"awaithumans {path} failed {tries} times: {said[:300]}")


async def _ready(http: aiohttp.ClientSession, proc: asyncio.subprocess.Process, within: float = 60.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if proc.returncode is not None:
            raise RuntimeError(f"awaithumans serve exited with {proc.returncode}")
        try:
            async with http.get("/api/health") as answer:
                if answer.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.2)
    raise TimeoutError(f"awaithumans serve did not answer within {within:.0f} s")
