"""When Tandem is unsure how to read a reply, it asks instead of guessing."""

from __future__ import annotations

import json
from typing import Any

from agent.models import Reading
from blocks import ids
from blocks.text import Blocks, actions, button, clip, context, section

_CHOICES = (
    ("approve", "Approve"),
    ("replan", "Change the plan"),
    ("retry_step", "Retry a step"),
    ("refine_output", "Rework the output"),
    ("cancel", "Cancel the run"),
)


def clarify_value(review_id: str, intent: str, text: str, step: int | None) -> str:
    return json.dumps({"review": review_id, "intent": intent, "text": text[:1500], "step": step})


def clarify(reading: Reading, review_id: str, text: str, anchor: str, *, can_approve: bool = True) -> Blocks:
    """ "I'm not sure what you meant": one button per reading, each applying the reply as that.
    Without ``can_approve`` (an exec or deploy gate) there is no Approve: the gate's own button approves."""
    quoted = clip(" ".join(text.split()), 300).text
    sure = int(round(reading.confidence * 100))
    lead = f"🤔 Not sure what you meant by “{quoted}” (best guess: *{reading.intent.replace('_', ' ')}*, {sure}% sure)."
    choices = [
        c
        for c in _CHOICES
        if not (c[0] == "refine_output" and anchor != "before_result") and (can_approve or c[0] != "approve")
    ]
    buttons = [
        button(label, f"{ids.CLARIFY}.{intent}", clarify_value(review_id, intent, text, reading.target_step))
        for intent, label in choices
    ]
    return [section(lead), actions(*buttons), context(NOTHING_YET)]


NOTHING_YET = "Nothing changed yet. Pick one, or reply again in other words."


def resolved(blocks: list[dict[str, Any]], line: str) -> Blocks:
    """A clarify question once it no longer needs an answer: its question, no buttons, and ``line``
    (who decided, or that it was asked again)."""
    kept = [b for b in blocks if b.get("type") != "actions" and NOTHING_YET not in str(b)]
    return [*kept[:48], context(line)]
