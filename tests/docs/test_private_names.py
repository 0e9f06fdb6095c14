"""A module's public names are its interface: no module reaches into another project module for an
``_underscore`` name, by ``from m import _x`` or by ``m._x`` on an imported module. A name other modules
need is public where it lives (or the code moves to where it is used)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agent", "storage", "blocks", "bot", "cli", "workspace", "demo", "feishu", "bench", "tests")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_reaches(source: str) -> list[str]:
    """``module._name`` for each private name of another project module that ``source`` uses."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name -> project module it is bound to
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                if _private(alias.name):
                    found.append(f"{node.module}.{alias.name}")
                modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    modules[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and _private(node.attr)
        ):
            found.append(f"{modules[node.value.id]}.{node.attr}")
    return found


def test_private_reaches_finds_imported_and_attribute_private_names() -> None:
    source = "from agent.models.base import _Model, Risk\nfrom agent import tools\nimport os\ntools._MARK\nos._exit\n"
    assert private_reaches(source) == ["agent.models.base._Model", "agent.tools._MARK"]


def test_no_module_uses_a_private_name_of_another_project_module() -> None:
    found = {
        str(path.relative_to(ROOT)): reaches
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if (reaches := private_reaches(path.read_text()))
    }
    assert not found
