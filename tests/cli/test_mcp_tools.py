"""``tandem run`` and ``tandem tools`` through real MCP servers (stdio and streamable HTTP), as fresh processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.mcpservers.servers import calls, down_url, http_server, run_json, server_toml, tandem, tandem_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return tandem_env(tmp_path)


def policy(env: dict[str, str], text: str) -> None:
    Path(env["TANDEM_CONFIG"]).write_text(text)


def test_run_through_a_stdio_server_waits_at_the_gate_before_the_destructive_tool(
    env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "ops.log"
    policy(env, server_toml("kube", log=log, trust="trusted"))
    run = run_json(env, "run", "--detach", "get pods in namespace prod then delete pod web-1")
    assert [(s["tool"], s["risk"]) for s in run["steps"]] == [("get_pods", "read"), ("delete_pod", "exec")]
    run = run_json(env, "answer", run["id"], "--approve")
    gate = run["pending_review"]
    assert gate["anchor"] == "before_risky_step" and gate["step"] == 2
    assert run["steps"][0]["result"] == "prod: web-1 Running, web-2 Running"
    assert calls(log) == ["get_pods"]  # the destructive tool has not run
    run = run_json(env, "answer", run["id"], "--approve", "--review", gate["id"])
    assert run["steps"][1]["status"] == "done" and run["steps"][1]["result"] == "pod web-1 deleted"
    assert calls(log) == ["get_pods", "delete_pod"]


def test_run_through_an_untrusted_http_server_gates_even_its_read_only_tool(
    env: dict[str, str], tmp_path: Path
) -> None:
    log = tmp_path / "ops.log"
    with http_server(log) as (url, _):
        policy(env, server_toml("kube", url=url))
        run = run_json(env, "run", "--detach", "get pods in namespace prod")
        assert [(s["tool"], s["risk"]) for s in run["steps"]] == [("get_pods", "exec")]
        gate = run["pending_review"]
        assert gate["anchor"] in ("after_plan", "before_risky_step")
        if gate["anchor"] == "after_plan":
            run = run_json(env, "answer", run["id"], "--approve")
            gate = run["pending_review"]
        assert gate["anchor"] == "before_risky_step" and calls(log) == []
        run = run_json(env, "answer", run["id"], "--approve", "--review", gate["id"])
        assert run["steps"][0]["status"] == "done" and run["steps"][0]["result"] == "prod: web-1 Running, web-2 Running"
        assert run["pending_review"]["anchor"] == "before_result"
        assert calls(log) == ["get_pods"]


def test_slow_mcp_tool_fails_its_step_at_the_timeout(env: dict[str, str], tmp_path: Path) -> None:
    policy(env, server_toml("kube", trust="trusted"))
    env["TANDEM_STEP_TIMEOUT"] = "1"
    run = run_json(env, "run", "--detach", "slow status seconds 60")
    assert run["steps"][0]["tool"] == "slow_status"
    step = run["steps"][0]
    assert step["status"] == "failed" and step["error"] == "Timed out after 1 s." and step["timed_out"] == "cancelled"


def test_server_down_when_the_step_runs_fails_it_with_the_reason(env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    with http_server(log) as (url, proc):
        policy(env, server_toml("kube", url=url, trust="trusted"))
        run = run_json(env, "run", "--detach", "delete pod web-1")
        assert run["pending_review"]["anchor"] in ("after_plan", "before_risky_step")
        proc.kill()
        proc.wait()
    while run["pending_review"] is not None and run["pending_review"]["anchor"] != "step_failed":
        run = run_json(env, "answer", run["id"], "--approve", "--review", run["pending_review"]["id"])
        if run["steps"][0]["status"] == "failed":
            break
    error = run["steps"][0]["error"]
    assert run["steps"][0]["status"] == "failed" and "MCP server kube is not reachable" in error, error
    assert calls(log) == []


def test_tools_lists_each_tool_with_its_source_risk_and_why(env: dict[str, str], tmp_path: Path) -> None:
    with http_server(tmp_path / "ops.log") as (url, _):
        policy(
            env,
            server_toml("kube", trust="trusted", risk={"delete_pod": "deploy", "drain_node": "exec"})
            + server_toml("grafana", url=url, tools=["get_pods", "logs"])
            + server_toml("vault", url=down_url()),
        )
        proc = tandem(env, "tools")
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: " ".join(line.split()) for line in proc.stdout.splitlines() if line.strip()}
    assert lines["inspect_cluster"] == "inspect_cluster read tests.cli.held_tools read: declared with @tool(risk=...)"
    assert lines["slow_status"] == (
        "slow_status read MCP server kube read: trusted server kube says read-only (readOnlyHint)"
    )
    assert lines["delete_pod"] == "delete_pod deploy MCP server kube deploy: set by the policy for server kube"
    assert lines["scale_deployment"].startswith("scale_deployment write MCP server kube write: trusted server kube")
    out = proc.stdout
    assert "get_pods" in lines and "MCP server grafana (untrusted" in out
    assert "the policy names logs, which the server does not list" in out
    assert "MCP server kube (trusted" in out and "the policy names drain_node, which the server does not list" in out
    assert "MCP server vault (untrusted" in out and "not reachable (ConnectError" in out
    shown = json.loads(tandem(env, "tools", "--json").stdout)
    assert {t["name"]: t["source"] for t in shown["tools"]}["delete_pod"] == "MCP server kube"


def test_a_process_whose_policy_names_no_server_never_imports_the_sdk(env: dict[str, str]) -> None:
    policy(env, '[approvers]\nexec = ["U0ALICE"]\n')
    probe = "import sys; from cli.main import main; code = main(['tools']); print(code, 'mcp' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "inspect_cluster" in proc.stdout and proc.stdout.split()[-2:] == ["0", "False"]


def test_terminal_run_over_http_shows_the_gate_then_the_result(env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    with http_server(log) as (url, _):
        policy(env, server_toml("kube", url=url, trust="trusted"))
        proc = tandem(env, "run", "delete pod web-1", typed="a\n" * 4)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    gate = out.index("Step 1: delete_pod  risk: exec\n  params: pod=web-1")
    assert gate < out.index("pod web-1 deleted") and ": done ──" in out
    assert calls(log) == ["delete_pod"]


def test_terminal_cancel_at_an_untrusted_read_tools_gate_never_calls_it(env: dict[str, str], tmp_path: Path) -> None:
    log = tmp_path / "ops.log"
    with http_server(log) as (url, _):
        policy(env, server_toml("kube", url=url))
        proc = tandem(env, "run", "get pods in namespace prod", typed="a\nc\ny\n")
    assert proc.returncode == 0, proc.stderr  # the person asked for the cancel: a success (README exit codes)
    assert "Step 1: get_pods  risk: exec" in proc.stdout and ": cancelled ──" in proc.stdout
    assert calls(log) == []
