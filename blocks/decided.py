"""What review messages become once someone decides, and short thread answers.

A decided message keeps what was decided on, loses its buttons, and gains one
context line: ``✅ Plan approved by @ana · 14:02``. The same
:class:`DecisionLine` renders the run card's list of decisions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agent.correction_messages import reading_detail
from agent.decision_lines import OUTCOME_ICONS, DecisionLine
from agent.models import Reading
from blocks import ids
from blocks.limits import MAX_MESSAGE_BLOCKS
from blocks.text import Blocks, actions, button, clip, context, escaped, mention, section, when


def decision_text(line: DecisionLine, *, detail_limit: int = 300) -> str:
    by = f" by {mention(line.actor)}" if line.actor else ""
    text = f"{OUTCOME_ICONS[line.outcome]} {escaped(line.verb, 200)}{by} · {when(line.at)}"
    if line.detail:
        text += f": {clip(' '.join(line.detail.split()), detail_limit).text}"
    return text


def _without_buttons(block: Mapping[str, Any]) -> dict[str, Any] | None:
    if block.get("type") == "actions":
        return None
    kept = dict(block)
    if kept.get("type") == "section" and isinstance(kept.get("accessory"), Mapping):
        if kept["accessory"].get("type") == "button":
            del kept["accessory"]
    return kept


def decided(blocks: Sequence[Mapping[str, Any]], line: DecisionLine) -> Blocks:
    """The anchor message after a decision: same content, no buttons, a line saying who decided."""
    kept = [b for b in (_without_buttons(block) for block in blocks) if b is not None]
    return [*kept[: MAX_MESSAGE_BLOCKS - 1], context(decision_text(line))]


_READINGS: dict[str, str] = {
    "approve": "approve",
    "cancel": "cancel the run",
    "replan": "change the plan",
    "retry_step": "retry step {n}",
    "refine_output": "rework the output",
}


def classified_reply(reading: Reading, review_id: str) -> Blocks:
    """How Tandem read a thread reply, with a way to say it read it wrong."""
    n = reading.target_step if reading.target_step is not None else "?"
    text = f"Read as: *{_READINGS[reading.intent].format(n=n)}*"
    detail = reading_detail(reading)
    if detail:
        text += f" — {clip(detail, 500).text}"
    return [section(text), actions(button("Not what I meant", ids.OVERRIDE, review_id))]


def already_decided(by: str | None, at: float | None, verb: str = "decided") -> Blocks:
    """The ephemeral answer to a click on a review someone already settled."""
    if by is None:
        return [section("This review is no longer open; nothing to do.")]
    stamp = f" at {when(at)}" if at is not None else ""
    return [section(f"Already {escaped(verb, 60)} by {mention(by)}{stamp}; nothing to do.")]
