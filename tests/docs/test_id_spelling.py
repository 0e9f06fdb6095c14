"""The README spells platform ids as the policy's own error does, so a person copying either gets it right."""

from __future__ import annotations

import re
from pathlib import Path

import bot.origin  # noqa: F401  (registers Slack)
import feishu.origin  # noqa: F401  (registers Feishu)
from agent.models import platforms

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def test_readme_spells_feishu_department_ids_as_the_policy_error_does() -> None:
    error = platforms.id_hint()  # what a policy naming ``exec = ["bob"]`` is told
    said = re.search(r"departments (od.)…", error)
    assert said is not None and said.group(1) == "od-", error  # Feishu's open department ids: od-…
    in_readme = set(re.findall(r"`(od.)…`", README))
    assert in_readme == {"od-"}, in_readme
