"""A benchmark is an entry point of its own: run in a fresh process, it must know the chat platforms
before it loads a policy (the test session registers them for every in-process test, so only a
process started without them shows a benchmark that forgot)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_bench_in_a_fresh_process_loads_the_demo_policy_naming_feishu_people() -> None:
    code = "import bench.clicks as c; config = c.demo_config(); print(sorted(config.approvers['exec']))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "ou_bob" in done.stdout
