"""Docstrings name modules that exist: a ``:mod:`` reference to a module that was renamed or never written misleads."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agent", "storage", "blocks", "bot", "cli", "workspace", "demo", "feishu", "bench")
MOD = re.compile(r":mod:`~?([A-Za-z_][\w.]*)`")


def _exists(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def test_module_references_in_docstrings_name_existing_modules() -> None:
    missing = {
        f"{path.relative_to(ROOT)}: {name}"
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        for name in MOD.findall(path.read_text())
        if name.split(".")[0] in PACKAGES and not _exists(name)
    }
    assert not missing, sorted(missing)
