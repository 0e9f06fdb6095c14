"""The core names no chat platform: ``agent/`` and ``storage/`` hold none of their names or id shapes.

A platform's facts (its origin variants, its id patterns, where its reports go) live in its own
package and reach the core through :mod:`agent.models.platforms`; this reads every file of the
core, code, comments and docstrings alike, so a fact that creeps back in fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ("agent", "storage")

NAMES = re.compile(r"slack|feishu|\blark", re.IGNORECASE)  # in any case, inside identifiers too (SlackThread)
ID_SHAPES = re.compile(
    r"\b[UWCGS]0[A-Z0-9]{2,}\b"  # Slack-shaped example ids: U0BOB, W0…, C0OPS, G0…, S0OPS
    r"|\bo[ucdm][_-]"  # Feishu-shaped ids: ou_…, oc_…, od-…, om_…
)

ALLOWED: dict[str, set[str]] = {}
"""File → words that must stay there; none does today (a platform fact belongs in its package)."""


def platform_words(text: str) -> set[str]:
    return {m.group(0).lower() for m in NAMES.finditer(text)} | {m.group(0) for m in ID_SHAPES.finditer(text)}


def core_files() -> list[Path]:
    return sorted(p for package in CORE for p in (ROOT / package).rglob("*") if p.is_file() and p.suffix != ".pyc")


def test_core_files_are_found() -> None:
    names = {str(p.relative_to(ROOT)) for p in core_files()}
    assert {"agent/models/origin.py", "agent/models/platforms.py", "storage/runs.py"} <= names


@pytest.mark.parametrize("path", core_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_core_file_names_no_chat_platform(path: Path) -> None:
    found = platform_words(path.read_text(encoding="utf-8"))
    assert found <= ALLOWED.get(str(path.relative_to(ROOT)), set()), found


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("class SlackThread(Origin):", {"slack"}),
        ('"""A Feishu chat."""', {"feishu"}),
        ("# a Lark bot", {"lark"}),
        ('write = ["U0BOB"]', {"U0BOB"}),
        ('channel = "C0OPS"', {"C0OPS"}),
        ("users ou_… and chats oc_abc", {"ou_", "oc_"}),
        ("the payload, a skylark, odd_value, Sam, U2 and COPS", set()),
    ],
)
def test_platform_words_finds_names_and_id_shapes(text: str, found: set[str]) -> None:
    assert platform_words(text) == found
