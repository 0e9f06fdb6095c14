"""Imports flow one way (CONVENTIONS: agent/ knows nothing of Slack, aiohttp or SQLite; one module wraps litellm).

The demo world (demo/) is loaded by name like any toolset: the product never imports it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def imports_of(package: str) -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        found[str(path.relative_to(ROOT))] = names
    return found


def _top(name: str) -> str:
    return name.split(".")[0]


DB = {"sqlite_utils", "sqlite3", "psycopg", "psycopg_pool"}
CHANNELS = {"slack_bolt", "slack_sdk", "bot", "blocks", "feishu"}


@pytest.mark.parametrize(
    ("package", "banned"),
    [
        ("agent", DB | CHANNELS | {"aiohttp", "storage", "cli", "workspace", "demo"}),
        ("storage", CHANNELS | {"aiohttp", "litellm", "cli", "workspace", "demo"}),
        ("blocks", DB | {"slack_bolt", "aiohttp", "litellm", "storage", "bot", "feishu", "cli", "workspace", "demo"}),
        ("bot", DB | {"litellm", "feishu", "cli", "workspace", "demo"}),
        ("feishu", DB | {"slack_bolt", "slack_sdk", "litellm", "bot", "blocks", "storage", "cli", "workspace", "demo"}),
        (
            "demo",
            {"slack_bolt", "slack_sdk", "aiohttp", "litellm", "psycopg", "bot", "blocks", "feishu", "cli", "workspace"},
        ),
        ("cli", {"slack_bolt", "sqlite_utils", "psycopg", "psycopg_pool", "litellm"}),
        ("inbox_web", DB | CHANNELS | {"litellm", "storage", "workspace", "demo"}),
    ],
)
def test_package_does_not_import(package: str, banned: set[str]) -> None:
    offenders = {f: sorted(_top(n) for n in names if _top(n) in banned) for f, names in imports_of(package).items()}
    assert not {f: v for f, v in offenders.items() if v}


def test_only_one_module_wraps_litellm() -> None:
    users = [
        f
        for package in ("agent", "storage", "blocks", "bot", "cli", "workspace")
        for f, names in imports_of(package).items()
        if any(_top(n) == "litellm" for n in names)
    ]
    assert users == ["agent/llm.py"]


def test_only_bot_imports_slack_bolt() -> None:
    users = {
        f
        for package in ("agent", "storage", "blocks", "bot", "cli", "workspace")
        for f, names in imports_of(package).items()
        if any(_top(n) == "slack_bolt" for n in names)
    }
    assert users and all(f.startswith("bot/") for f in users), users


def test_bot_and_cli_reach_storage_only_through_the_composition_root() -> None:
    """bot/ and cli/ type against agent.ports.Store; only cli/wiring.py picks (and imports) a backend."""
    users = {
        f
        for package in ("bot", "cli")
        for f, names in imports_of(package).items()
        if any(_top(n) == "storage" for n in names)
    }
    assert users <= {"cli/wiring.py"}, users


def test_only_the_postgres_package_imports_psycopg() -> None:
    users = {
        f
        for package in ("agent", "storage", "blocks", "bot", "cli", "workspace")
        for f, names in imports_of(package).items()
        if any(_top(n) in ("psycopg", "psycopg_pool") for n in names)
    }
    assert users and all(f.startswith("storage/postgres/") for f in users), users


def test_no_test_module_imports_another_test_module() -> None:
    """Tests share helpers through helper modules and conftest fixtures, never another test module's state."""
    offenders = {
        f: sorted(n for n in names if n.split(".")[-1].startswith("test_")) for f, names in imports_of("tests").items()
    }
    assert not {f: v for f, v in offenders.items() if v}
