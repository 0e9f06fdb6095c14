"""What the benchmark measured, as plain data (shared by the loop, the spawner and the report)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from bench.workload import BrainKind


class BenchFailure(RuntimeError):
    """The workload did not run as specified: the figures would mean nothing."""


@dataclass
class Paused:
    run_id: str
    review_id: str


@dataclass
class TableBytes:
    name: str
    pages: int
    bytes: int
    payload: int


@dataclass
class LoopResult:
    n: int
    brain: BrainKind
    sync_override: bool
    brain_note: str
    db_path: Path
    journal_mode: str
    synchronous: int
    page_size: int
    start_s: float
    resume_s: float
    resumes: list[float]
    resumes_by_anchor: dict[str, list[float]]
    empty_bytes: int
    paused_bytes: int
    paused_freelist: int
    paused_tables: list[TableBytes]
    paused_rows: dict[str, float]
    done_bytes: int
    done_tables: list[TableBytes]
    reviews_per_run: dict[int, int]
    runs_done: int
    peak_rss_kb: int
    extra_paused: list[Paused] = field(default_factory=list)
    profile: str = ""
    durable_commits: int = 0
    """Commits of the resume phase that waited for the disk (fsync)."""
    lazy_commits: int = 0
    """Commits of the resume phase that did not wait for the disk (a later durable one took them there)."""
    every_commit_durable: bool = False
    db_thread: bool = False
    """SQLite called on a database thread (the CLI's way) instead of on the runtime's loop (a served bot's)."""


@dataclass
class ChildRun:
    wall_s: float
    in_child_s: float
    heavy: list[str]
    """Heavy packages the child imported (``bench.coldstart.HEAVY``); none may be."""
    modules: int
    rss_kb: int
    anchor: str | None
    marks: dict[str, float] = field(default_factory=dict)
    cpu_s: float = 0.0
    """The child's user + system CPU time, spawn to exit: less swayed than wall time by other work on the machine."""


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]
