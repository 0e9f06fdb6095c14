"""Across every surface, a ``<`` in mrkdwn only ever opens a token Tandem meant to write."""

from __future__ import annotations

import re

import pytest

from agent.decision_lines import DecisionLine
from agent.models import Reading
from blocks import review_blocks
from blocks.decided import already_decided, classified_reply, decided
from blocks.help import RunRow, help_blocks, list_blocks, status_blocks
from blocks.modals import feedback_modal, review_details
from blocks.run_card import run_card
from blocks.text import Blocks
from tests.blocks.states import ANCHORS, T0, reviewing, step

HOSTILE = "<!channel> <@U999> <https://evil|click> a & b > c"
TOKEN = re.compile(
    r"<(@[UWB][A-Z0-9]+|!date\^\d+\^(\{date_short_pretty\} at )?\{time\}\|[^>]*|https://x\.test/p1\|[^>]*)>"
)


def _mrkdwn(node: object) -> list[str]:
    if isinstance(node, dict):
        own = [node["text"]] if node.get("type") == "mrkdwn" else []
        return own + [t for value in node.values() for t in _mrkdwn(value)]
    if isinstance(node, list):
        return [t for item in node for t in _mrkdwn(item)]
    return []


def _surfaces() -> list[tuple[str, Blocks]]:
    plan = [
        step(1, tool="t<x>", params={"cmd": HOSTILE}, reason=HOSTILE, status="failed", error=HOSTILE, result=HOSTILE)
    ]
    out: list[tuple[str, Blocks]] = []
    for anchor in ANCHORS:
        run, rv = reviewing(anchor, plan=plan, output=HOSTILE, takeover_reason=HOSTILE, task=HOSTILE)
        rv = rv.model_copy(update={"step": 1, "note": HOSTILE})
        out.append((anchor, review_blocks(run, rv)))
        out.append((f"details:{anchor}", review_details(run, rv)["blocks"]))
    line = DecisionLine(actor="U1", verb=HOSTILE, at=T0, detail=HOSTILE)
    row = RunRow(id=HOSTILE, task=HOSTILE, status="executing", requester=HOSTILE, updated_at=T0, waiting_on=HOSTILE)
    out += [
        ("run_card", run_card(run, [line])),
        ("status", status_blocks(run, [line], link="https://x.test/p1")),
        ("decided", decided(review_blocks(run, rv), line)),
        ("reading", classified_reply(Reading(intent="retry_step", target_step=1, reason=HOSTILE), "rv1")),
        ("already", already_decided(HOSTILE, T0, HOSTILE)),
        ("help", help_blocks()),
        ("list", list_blocks([row], [row.model_copy(update={"link": "https://x.test/p1"})])),
        ("feedback", feedback_modal("{}", subject=HOSTILE)["blocks"]),
    ]
    return out


@pytest.mark.parametrize(("name", "blocks"), _surfaces(), ids=lambda v: v if isinstance(v, str) else "")
def test_surface_hostile_text_angle_brackets_only_open_intended_tokens(name: str, blocks: Blocks) -> None:
    for text in _mrkdwn(blocks):
        stray = TOKEN.sub("", text)
        assert "<" not in stray and ">" not in stray, f"{name}: {text!r}"
        assert "<!channel>" not in text
