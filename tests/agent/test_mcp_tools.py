"""MCP servers as toolsets: real servers written with the SDK, over stdio and streamable HTTP."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from typing import Any

import mcp.client.stdio as mcp_stdio
import pytest

import agent.mcptools.connection as mcp_connection
from agent.config import load_config
from agent.config_mcp import McpServer
from agent.errors import InvalidParams, PolicyError, ToolError
from agent.mcptools.risk import Hints, judge
from agent.mcptools.toolset import mcp_toolsets
from agent.models import Risk
from agent.runtime.stopping import OutOfTime, within
from agent.tools import ToolRegistry
from tests.mcpservers.servers import calls, down_url, http_server, server_toml


def _config(tmp_path: Path, text: str) -> object:
    file = tmp_path / "tandem.toml"
    file.write_text(text)
    return load_config(file, environ={})


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[mcp.servers.kube]\ntrust = "trusted"\n', "give either command"),
        ('[mcp.servers.kube]\ncommand = ["k"]\nurl = "http://x/mcp"\n', "not both or neither"),
        ('[mcp.servers.kube]\nurl = "ftp://x"\n', "is not an http(s) URL"),
        ('[mcp.servers.kube]\ncommand = ["k"]\ntrust = "sure"\n', "mcp.servers.kube.trust"),
        ('[mcp.servers.kube]\ncommand = ["k"]\nrisk = { delete_pod = "nuke" }\n', "mcp.servers.kube.risk.delete_pod"),
        (
            '[mcp.servers.kube]\ncommand = ["k"]\ntools = ["get_pods"]\nrisk = { delete_pod = "exec" }\n',
            "risk names delete_pod",
        ),
        ('[mcp.servers.kube]\ncommand = ["k"]\nheaders = { A = "b" }\n', "headers go with url"),
        ("[mcp.servers.kube]\ncommand = []\n", "command is empty"),
        ('[mcp.servers."a b"]\ncommand = ["k"]\n', "is not a server name"),
        ('[mcp.servers.kube]\ncommand = ["k"]\nrisks = {}\n', "mcp.servers.kube.risks: unknown key"),
    ],
)
def test_mcp_policy_with_a_mistake_is_refused_naming_it(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(PolicyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _config(tmp_path, text)


async def test_stdio_server_trusted_tools_get_their_risk_from_annotations(tmp_path: Path) -> None:
    config = _config(
        tmp_path, server_toml("kube", log=tmp_path / "ops.log", trust="trusted", risk={"scale_deployment": "deploy"})
    )
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools) as servers:  # type: ignore[arg-type]
        assert servers[0].problem is None
        risks = {spec.name: (spec.risk, spec.risk_why) for spec in tools.specs()}
        assert risks["get_pods"] == (Risk.READ, "read: trusted server kube says read-only (readOnlyHint)")
        assert risks["delete_pod"][0] == Risk.EXEC and "destructive" in risks["delete_pod"][1]
        assert risks["enable_rollouts"][0] == Risk.WRITE
        assert risks["scale_deployment"] == (Risk.DEPLOY, "deploy: set by the policy for server kube")
        assert tools.get("apply_manifest").idempotent and not tools.get("delete_pod").idempotent
        assert {spec.source for spec in tools.specs()} == {"MCP server kube"}
        assert await tools.get("get_pods").call({"namespace": "prod"}) == "prod: web-1 Running, web-2 Running"
        assert calls(tmp_path / "ops.log") == ["get_pods"]


async def test_untrusted_server_every_tool_is_gated_and_the_allow_list_limits_them(tmp_path: Path) -> None:
    config = _config(tmp_path, server_toml("kube", tools=["get_pods", "delete_pod"], risk={"get_pods": "read"}))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
        assert sorted(tools.names) == ["delete_pod", "get_pods"]
        assert (tools.get("delete_pod").risk, tools.get("delete_pod").risk_why) == (
            Risk.EXEC,
            "exec: untrusted server kube, no override",
        )
        assert tools.get("get_pods").risk == Risk.READ
        assert not tools.get("delete_pod").idempotent


async def test_mcp_params_are_checked_against_the_listed_schema_like_a_tool_function(tmp_path: Path) -> None:
    config = _config(tmp_path, server_toml("kube"))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
        spec = tools.get("scale_deployment")
        assert spec.json_schema()["required"] == ["deployment", "replicas"]
        assert spec.describe()["parameters"]["properties"]["replicas"]["type"] == "integer"
        with pytest.raises(InvalidParams, match="replicas: 'three' is not of type 'integer'"):
            spec.validate({"deployment": "web", "replicas": "three"})
        with pytest.raises(InvalidParams, match="'deployment' is a required property"):
            spec.validate({"replicas": 3})
        with pytest.raises(InvalidParams, match="'color' was unexpected"):
            spec.validate({"deployment": "web", "replicas": 3, "color": "red"})


async def test_server_saying_its_tools_changed_gets_them_listed_again(tmp_path: Path) -> None:
    config = _config(tmp_path, server_toml("kube", trust="trusted"))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
        assert "rollout_status" not in tools
        await tools.get("enable_rollouts").call({})
        deadline = time.monotonic() + 10
        while "rollout_status" not in tools:
            assert time.monotonic() < deadline, "the new tool was never listed"
            await asyncio.sleep(0.02)
        assert tools.get("rollout_status").risk == Risk.READ
        assert await tools.get("rollout_status").call({"deployment": "web"}) == "web: rolled out"


async def test_http_server_tools_are_listed_and_called(tmp_path: Path) -> None:
    with http_server(tmp_path / "ops.log") as (url, _):
        config = _config(tmp_path, server_toml("grafana", url=url, trust="trusted"))
        tools = ToolRegistry()
        async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
            assert tools.get("delete_pod").risk == Risk.EXEC
            assert tools.get("scale_deployment").risk == Risk.WRITE
            assert await tools.get("scale_deployment").call({"deployment": "web", "replicas": 3}) == "web scaled to 3"
        assert calls(tmp_path / "ops.log") == ["scale_deployment"]


async def test_http_server_that_went_down_fails_the_call_with_the_reason(tmp_path: Path) -> None:
    with http_server(tmp_path / "ops.log") as (url, proc):
        config = _config(tmp_path, server_toml("grafana", url=url))
        tools = ToolRegistry()
        async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
            proc.kill()
            proc.wait()
            with pytest.raises(ToolError, match=r"MCP server grafana (failed during the call|is not reachable) \("):
                await asyncio.wait_for(tools.get("get_pods").call({"namespace": "prod"}), 15)


async def test_server_down_at_start_is_reported_and_its_calls_are_not_made(tmp_path: Path) -> None:
    config = _config(tmp_path, server_toml("grafana", url=down_url()))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools, connect_timeout=5) as servers:  # type: ignore[arg-type]
        assert servers[0].problem is not None and "ConnectError" in servers[0].problem
        assert len(tools) == 0


async def test_slow_mcp_tool_is_stopped_at_its_step_timeout(tmp_path: Path) -> None:
    config = _config(tmp_path, server_toml("kube", trust="trusted"))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
        spec = tools.get("slow_status")
        assert spec.runs_in == "loop"
        started = time.monotonic()
        with pytest.raises(OutOfTime) as out:
            await within(asyncio.ensure_future(spec.call({"seconds": 60})), timeout=0.5, stoppable=True, grace=2.0)
        assert out.value.outcome == "cancelled" and time.monotonic() - started < 5
        assert await spec.call({"seconds": 0}) == "ok"  # the session still serves the next call


@pytest.mark.parametrize(
    ("trust", "hints", "override", "risk", "why"),
    [
        ("trusted", Hints(read_only=True), None, Risk.READ, "read: trusted server kube says read-only (readOnlyHint)"),
        ("trusted", Hints(destructive=False), None, Risk.WRITE, "write: trusted server kube says not destructive"),
        ("trusted", Hints(destructive=True), None, Risk.EXEC, "exec: trusted server kube says destructive"),
        ("trusted", Hints(), None, Risk.EXEC, "exec: trusted server kube says nothing of its effects"),
        ("trusted", Hints(read_only=True), "deploy", Risk.DEPLOY, "deploy: set by the policy for server kube"),
        ("untrusted", Hints(read_only=True), None, Risk.EXEC, "exec: untrusted server kube, no override"),
        ("untrusted", Hints(read_only=True), "read", Risk.READ, "read: set by the policy for server kube"),
    ],
)
def test_mcp_tool_risk_follows_trust_then_annotations_and_the_policy_wins(
    trust: str, hints: Hints, override: str | None, risk: Risk, why: str
) -> None:
    server = McpServer.model_validate({"command": ["k"], "trust": trust, "risk": {"t": override} if override else {}})
    judged = judge("kube", server, "t", hints, gate=Risk.WRITE)
    assert judged.risk == risk and judged.why.startswith(why)


def test_untrusted_server_tools_ask_at_a_gate_level_above_exec() -> None:
    judged = judge("kube", McpServer(command=["k"]), "t", Hints(read_only=True), gate=Risk.DEPLOY)
    assert judged.risk == Risk.DEPLOY


async def test_stdio_server_dying_mid_call_fails_the_call_with_the_reason(tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    config = _config(tmp_path, server_toml("kube", log=log, trust="trusted"))
    tools = ToolRegistry()
    async with mcp_toolsets(config, tools):  # type: ignore[arg-type]
        await asyncio.to_thread(Path(f"{log}.hold").touch)
        call = asyncio.ensure_future(tools.get("delete_pod").call({"pod": "web-1"}))
        deadline = time.monotonic() + 20
        while calls(log) != ["delete_pod"]:  # the server has the call
            assert time.monotonic() < deadline
            await asyncio.sleep(0.02)
        killed = int(await asyncio.to_thread(Path(f"{log}.pid").read_text))
        os.kill(killed, signal.SIGKILL)
        with pytest.raises(ToolError, match=r"MCP server kube failed during the call \(.+\); it may or may not"):
            await asyncio.wait_for(call, 15)
        # the session connects again, to a new server process that takes the next call
        await asyncio.to_thread(Path(f"{log}.hold").unlink)
        deadline = time.monotonic() + 30
        while True:
            try:
                await tools.get("get_pods").call({"namespace": "prod"})
                break
            except ToolError as exc:
                assert time.monotonic() < deadline, f"the session never connected again: {exc}"
                await asyncio.sleep(0.1)
        assert int(await asyncio.to_thread(Path(f"{log}.pid").read_text)) != killed


async def test_http_server_gets_the_policys_headers_and_a_wrong_token_is_the_reason_it_is_not_reachable(
    tmp_path: Path,
) -> None:
    with http_server(tmp_path / "ops.log", token="s3cret") as (url, _):
        good = _config(tmp_path, server_toml("github", url=url, headers={"Authorization": "Bearer s3cret"}))
        tools = ToolRegistry()
        async with mcp_toolsets(good, tools) as servers:  # type: ignore[arg-type]
            assert servers[0].problem is None and "get_pods" in tools
        bad = _config(tmp_path, server_toml("github", url=url, headers={"Authorization": "Bearer wrong"}))
        tools = ToolRegistry()
        async with mcp_toolsets(bad, tools, connect_timeout=5) as servers:  # type: ignore[arg-type]
            assert servers[0].problem is not None and "401" in servers[0].problem
            assert len(tools) == 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def _gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


async def test_closing_while_a_stdio_server_is_being_spawned_again_leaves_no_server_running(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spawned: list[Any] = []  # the processes, kept referenced: a leaked one stays running, as it does in a worker
    spawning, spawn_returns = asyncio.Event(), asyncio.Event()
    spawn = mcp_stdio._create_platform_compatible_process

    async def slow_spawn(*args: Any, **kwargs: Any) -> Any:
        process = await spawn(*args, **kwargs)
        spawned.append(process)
        if len(spawned) == 2:  # the reconnect: the process runs, the spawn has not returned it yet
            spawning.set()
            await spawn_returns.wait()
        return process

    monkeypatch.setattr(mcp_stdio, "_create_platform_compatible_process", slow_spawn)
    config = _config(tmp_path, server_toml("kube", trust="trusted"))
    tools = ToolRegistry()
    toolsets = mcp_toolsets(config, tools)  # type: ignore[arg-type]
    await toolsets.__aenter__()
    try:
        os.kill(spawned[0].pid, signal.SIGKILL)
        with pytest.raises(ToolError, match=r"MCP server kube (failed during the call|is not reachable) \("):
            await tools.get("get_pods").call({"namespace": "prod"})
        await asyncio.wait_for(spawning.wait(), 20)
        closing = asyncio.ensure_future(toolsets.__aexit__(None, None, None))
        await asyncio.sleep(0)  # one step of the close: it has said to stop
        spawn_returns.set()
        await asyncio.wait_for(closing, 30)
        assert await _gone(spawned[1].pid, 5), "the server spawned again is still running after the close"
    finally:
        for process in spawned:
            if process.returncode is None:
                process.kill()
                await process.wait()


async def test_closing_a_connection_stuck_connecting_cancels_it_after_the_bound(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    stuck = asyncio.Event()

    async def never_spawns(*args: Any, **kwargs: Any) -> Any:
        stuck.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(mcp_stdio, "_create_platform_compatible_process", never_spawns)
    monkeypatch.setattr(mcp_connection, "CLOSE_WITHIN", 0.5)
    config = _config(tmp_path, server_toml("kube"))
    async with mcp_toolsets(config, ToolRegistry(), connect_timeout=0.1) as servers:  # type: ignore[arg-type]
        await asyncio.wait_for(stuck.wait(), 10)
        assert servers[0].problem == "no answer within 0.1 s"
        started = time.monotonic()
    assert time.monotonic() - started < 5
    assert "MCP server kube: the session did not end within 0.5 s; cancelled" in caplog.text
