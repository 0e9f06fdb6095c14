from __future__ import annotations

import ast
from pathlib import Path

from blocks import ids

BLOCKS_DIR = Path(__file__).resolve().parents[2] / "blocks"


def test_ids_stable_contract_values_are_unchanged() -> None:
    assert (ids.APPROVE, ids.REJECT, ids.CANCEL) == ("tandem.approve", "tandem.reject", "tandem.cancel")
    assert (ids.DETAILS, ids.OVERRIDE) == ("tandem.details", "tandem.override")
    assert (ids.FEEDBACK_MODAL, ids.DETAILS_MODAL) == ("tandem.feedback", "tandem.details_modal")
    assert (ids.INTENT_BLOCK, ids.FEEDBACK_BLOCK) == ("intent", "feedback")
    assert ids.INTENT_CHOICES == ("replan", "retry_step", "refine_output", "auto")


def test_ids_actions_and_callbacks_are_distinct() -> None:
    assert len(ids.ACTIONS) == 17
    assert not ids.ACTIONS & ids.CALLBACKS


def test_blocks_package_imports_neither_bolt_nor_io() -> None:
    banned = {"slack_bolt", "aiohttp", "sqlite_utils", "litellm", "storage", "bot", "time", "random"}
    for path in BLOCKS_DIR.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] not in banned, f"{path.name} imports {name}"
