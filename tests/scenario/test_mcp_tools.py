"""A tool of an MCP server gated in Slack like a @tool function's: the gate shows the call, and the tool runs
on the server only once the button is clicked."""

from __future__ import annotations

from pathlib import Path

from blocks import ids
from tests.mcpservers.servers import calls, server_toml
from tests.scenario.harness import THREE_ANCHORS, gate_of, policy_file, running, text_of


async def test_gated_mcp_call_runs_on_the_server_only_after_the_approve_button(tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    config = policy_file(tmp_path, server_toml("kube", log=log, trust="trusted") + THREE_ANCHORS)
    async with running(tmp_path, config=config, tools="tests.cli.held_tools") as env:
        card, gate = await gate_of(env, "delete pod web-1")
        shown = text_of(gate)
        assert "delete_pod" in shown and "web-1" in shown and "exec" in shown
        assert calls(log) == []
        await env.click("alice", gate, ids.APPROVE)
        await env.wait(lambda: calls(log) == ["delete_pod"], within=20)
        await env.wait(lambda: any("pod web-1 deleted" in text_of(m) for m in env.thread(card)), within=20)
