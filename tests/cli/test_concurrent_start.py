"""Twenty real processes run `tandem run --detach` on one fresh database at the same moment: all start,
and the schema (run store and demo world, both applied by the real start-up) is migrated exactly once."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from sqlite_utils import Database

from demo.store import migrate as migrate_world
from demo.store import migrations as world_migrations
from storage.db import migrations as store_migrations

ROOT = Path(__file__).resolve().parents[2]
PROCESSES = 20
# Imports happen before the barrier, so the processes reach the database together.
CHILD = """
import sys, time
from pathlib import Path
from cli.main import main
ready, go = Path(sys.argv[1]), Path(sys.argv[2])
ready.touch()
deadline = time.monotonic() + 120
while not go.exists():
    if time.monotonic() > deadline:
        sys.exit("never told to go")
    time.sleep(0.001)
sys.exit(main(["run", "--detach", "restart payments and check errors after"]))
"""


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "TANDEM_"))}
    return {**env, "TANDEM_DB": str(db), "TANDEM_MODEL": "offline", "PYTHONPATH": str(ROOT)}


def _start_together(tmp_path: Path, db: Path) -> list[tuple[int, str, str]]:
    go = tmp_path / "go"
    ready = [tmp_path / f"ready-{i}" for i in range(PROCESSES)]
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(flag), str(go)],
            cwd=tmp_path,  # no tandem.toml of the checkout's
            env=_env(db),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for flag in ready
    ]
    try:
        deadline = time.monotonic() + 180
        while not all(flag.exists() for flag in ready):
            assert all(p.poll() is None for p in procs), "a process exited before the barrier"
            assert time.monotonic() < deadline, "processes never got ready"
            time.sleep(0.01)
        assert not db.exists(), "the file must be fresh when they start"
        go.touch()
        outputs = [p.communicate(timeout=120) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    return [(p.returncode, out, err) for p, (out, err) in zip(procs, outputs, strict=True)]


def test_runs_with_twenty_processes_on_fresh_file_all_start_and_migrate_once(tmp_path: Path) -> None:
    db_path = tmp_path / "tandem.db"
    results = _start_together(tmp_path, db_path)

    failures = [(code, err.strip().splitlines()[-1:]) for code, _, err in results if code != 0]
    assert failures == [], f"{len(failures)} of {PROCESSES} processes failed"
    assert all(json.loads(out)["status"] == "awaiting_review" for _, out, _ in results)

    fresh = Database(sqlite3.connect(":memory:", isolation_level=None))
    expected = sorted((s.name, m.name) for s in (store_migrations, world_migrations) for m in s.pending(fresh))
    migrate_world(fresh)
    db = Database(sqlite3.connect(db_path))
    applied = db.execute("SELECT migration_set, name FROM _sqlite_migrations").fetchall()
    assert sorted(applied) == expected
    assert db.table("runs").count == PROCESSES
    # The demo world was seeded once, not once per process.
    for table in ("demo_services", "demo_samples", "demo_logs"):
        assert db.table(table).count == fresh.table(table).count
    db.close()
    fresh.close()
