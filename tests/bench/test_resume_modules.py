"""What a process that only resumes a run imports: no heavy package, and no module beyond a list kept here.

A fresh ``python -m bench.coldstart`` resumes a run paused at its plan review (the product's Runtime,
AsyncStore on SQLite, the offline brain, the bench tools) and reports ``sys.modules``. The names are
compared, not times: Tandem's own modules one by one, everything else by its top-level package, less
what the interpreter loads before running anything. A module that starts being imported on the resume
path fails this test until it is added to ``resume_modules.txt``, on purpose.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from bench.coldstart import HEAVY
from bench.loop import run_loop
from bench.results import Paused
from bench.spawn import REPO_ROOT
from bench.workload import EXPECTED_ANCHORS, BrainKind

LISTED = Path(__file__).with_name("resume_modules.txt")
OWN = {"agent", "bench", "blocks", "bot", "cli", "demo", "feishu", "storage", "workspace"}


def _resume(tmp_path: Path, brain: BrainKind) -> dict[str, Any]:
    """A run paused at its plan review, resumed by a fresh ``bench.coldstart``: the child's JSON line."""
    result = asyncio.run(run_loop(1, tmp_path, brain=brain, extra_paused=1))
    p: Paused = result.extra_paused[0]
    cmd = [sys.executable, "-m", "bench.coldstart", str(result.db_path), p.run_id, p.review_id, "--brain", brain]
    out = subprocess.run([*cmd, "--modules"], cwd=REPO_ROOT, capture_output=True, text=True, check=True).stdout
    line: dict[str, Any] = json.loads(out.splitlines()[0])
    return line


def _startup() -> set[str]:
    """What the interpreter has loaded before running anything."""
    code = "import json, sys; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return set(json.loads(out))


def _names(modules: set[str]) -> set[str]:
    """Own modules by full name; any other by its top-level package."""
    return {name if name.split(".")[0] in OWN else name.split(".")[0] for name in modules}


def _listed() -> set[str]:
    lines = (line.split("#")[0].strip() for line in LISTED.read_text().splitlines())
    return {line for line in lines if line}


def test_resume_in_fresh_process_imports_no_heavy_package_and_only_listed_modules(tmp_path: Path) -> None:
    resumed = set(_resume(tmp_path, "llm")["loaded"])

    assert {name.split(".")[0] for name in resumed} & set(HEAVY) == set()
    names = _names(resumed - _startup())
    assert "agent.runtime" in names and "storage.facade" in names  # it did resume through the product
    new, gone = sorted(names - _listed()), sorted(_listed() - names)
    assert new == [], f"a resume now imports these too; if that is meant, add them to {LISTED.name}: {new}"
    assert gone == [], f"a resume no longer imports these; remove them from {LISTED.name}: {gone}"


def test_resume_child_with_modules_flag_lists_them_and_still_resumes(tmp_path: Path) -> None:
    data = _resume(tmp_path, "fixed")

    assert data["anchor"] == EXPECTED_ANCHORS[1]
    assert data["heavy"] == []
    assert "storage.database" in data["loaded"] and len(data["loaded"]) == data["modules"]
