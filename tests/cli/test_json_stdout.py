"""``tandem run --detach`` prints its JSON alone on stdout, whatever the log level and whoever logs:
a real process, with litellm talking to a local OpenAI-compatible server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

from tests.cli.run import ROOT
from tests.fakes.openai_server import serve_openai

PLAN = json.dumps(
    {
        "steps": [
            {"tool": "check_service", "params": {"service": "auth"}, "reason": "see how auth is doing"},
            {"tool": "restart_service", "params": {"service": "auth"}, "reason": "clear the stuck workers"},
        ]
    }
)


async def test_run_detach_at_info_with_a_litellm_model_prints_only_json_on_stdout(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_", "LITELLM", "OPENAI_"))}
    async with serve_openai() as llm:
        llm.reply(PLAN)
        env |= {
            "PYTHONPATH": str(ROOT),
            "TANDEM_LOG_LEVEL": "INFO",
            "TANDEM_MODEL": "openai/test-model",
            "TANDEM_LLM_API_BASE": llm.base_url,
            "OPENAI_API_KEY": "sk-test-local",
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "cli.main",
            "run",
            "--detach",
            "restart auth",
            cwd=tmp_path,
            env=env,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode == 0, err.decode()
    assert llm.requests, "the plan came from the model, through litellm"
    assert "LiteLLM completion() model= test-model" in err.decode(), "litellm logged at INFO, on stderr"
    shown = json.loads(out.decode())  # nothing but the run's JSON
    assert shown["status"] == "awaiting_review"
