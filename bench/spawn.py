"""Fresh processes: the cold-start children, the interpreter baseline, the child's import times."""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.results import BenchFailure, ChildRun, Paused
from bench.workload import EXPECTED_ANCHORS, BrainKind

REPO_ROOT = Path(__file__).resolve().parent.parent


LANGGRAPH_PYTHON = REPO_ROOT / ".venv-langgraph" / "bin" / "python"
"""Where bench/README.md makes LangGraph's virtualenv."""


def add_langgraph_option(parser: argparse.ArgumentParser) -> None:
    """``--langgraph PY``: the interpreter of LangGraph's virtualenv, for the benches measured side by side."""
    parser.add_argument(
        "--langgraph", default=str(LANGGRAPH_PYTHON), help=f"LangGraph's venv's python (default {LANGGRAPH_PYTHON})"
    )


def langgraph_found(python: str) -> bool:
    """Whether ``python`` exists; if not, say where its virtualenv comes from."""
    if Path(python).exists():
        return True
    print(f"no LangGraph interpreter at {python}: see bench/README.md for its virtualenv")
    return False


def child_env(cache: Path) -> dict[str, str]:
    """The environment of a timed child: compiled modules cached in ``cache`` (written by the dropped warm-up
    child, read by the others), as an installed package has them, even where ``PYTHONDONTWRITEBYTECODE`` is
    set. Without it every child would compile every module of the project from source again."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def spawn_until_line(cmd: Sequence[str], env: dict[str, str] | None = None) -> tuple[float, str, float]:
    """Wall-clock from before spawn to the child's first line of output, and the child's CPU time to its exit."""
    cpu_before = _children_cpu_s()
    began = time.perf_counter()
    proc = subprocess.Popen(
        list(cmd), cwd=REPO_ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    took = time.perf_counter() - began
    _, err = proc.communicate()
    if proc.returncode != 0 or not line:
        raise BenchFailure(f"{' '.join(cmd)} failed ({proc.returncode}): {err.strip()[-2000:]}")
    return took, line, _children_cpu_s() - cpu_before  # children are waited for one at a time


def python_baseline(repeats: int, env: dict[str, str] | None = None) -> list[float]:
    """``python -c pass``, spawn to exit: this machine's floor for any fresh process."""
    times = []
    for _ in range(repeats + 1):
        began = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True, cwd=REPO_ROOT, env=env)
        times.append(time.perf_counter() - began)
    return times[1:]  # the first one warms the page cache


def cold_start(db: Path, paused: Sequence[Paused], brain: BrainKind, via: str) -> list[ChildRun]:
    """One fresh process per paused run; the first is a warm-up (page cache, .pyc) and is dropped."""
    runs = []
    for p in paused:
        cmd = [sys.executable, "-m", "bench.coldstart", str(db), p.run_id, p.review_id, "--brain", brain, "--via", via]
        wall, line, cpu = spawn_until_line(cmd, child_env(db.parent / "pycache"))
        data: dict[str, Any] = json.loads(line)
        runs.append(
            ChildRun(
                wall_s=wall,
                cpu_s=cpu,
                in_child_s=float(data["in_child_s"]),
                heavy=[str(name) for name in data["heavy"]],
                modules=int(data["modules"]),
                rss_kb=int(data["rss_kb"]),
                anchor=data["anchor"],
                marks={str(k): float(v) for k, v in data.get("marks", {}).items()},
            )
        )
    for r in runs:
        if r.anchor != EXPECTED_ANCHORS[1]:
            raise BenchFailure(f"cold-start resume stopped at {r.anchor}, expected {EXPECTED_ANCHORS[1]}")
    return runs[1:]


def import_times(db: Path, p: Paused, brain: BrainKind, top: int = 12) -> str:
    """``-X importtime`` of one cold-start child: the top-level imports by cumulative time, and the
    modules whose own code took longest (self time, whatever imported them)."""
    cmd = [sys.executable, "-X", "importtime", "-m", "bench.coldstart", str(db), p.run_id, p.review_id]
    env = child_env(db.parent / "pycache")
    proc = subprocess.run([*cmd, "--brain", brain], cwd=REPO_ROOT, capture_output=True, text=True, check=True, env=env)
    tops, selfs = [], []
    for line in proc.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if not line.startswith("import time:") or len(parts) != 3 or not parts[1].strip().isdigit():
            continue
        name = parts[2].removeprefix(" ")  # then two spaces per level of nesting
        selfs.append((int(parts[0]), name.strip()))
        if not name.startswith(" "):
            tops.append((int(parts[1]), name))
    total = sum(us for us, _ in tops)
    lines = [f"top-level imports, cumulative (all top-level: {total / 1000:.0f} ms, {len(selfs)} modules):"]
    lines += [f"  {us / 1000:8.1f} ms  {name}" for us, name in sorted(tops, reverse=True)[:top]]
    lines.append("heaviest modules by their own import time:")
    lines += [f"  {us / 1000:8.1f} ms  {name}" for us, name in sorted(selfs, reverse=True)[:top]]
    return "\n".join(lines)
