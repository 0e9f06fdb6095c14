"""Wording about corrections, in one place: what a correction does at a review, what it changed, how a reply
was read, and how a correction's decision line reads."""

from __future__ import annotations

import json

from agent.models import Anchor, Correct, Reading, Step

NOTHING_RAN_YET: frozenset[Anchor] = frozenset({"after_plan", "before_risky_step", "takeover_step"})
"""Reviews of a step that has not run: a correction of its values changes it before it runs, not after."""


def step_fix_effect(anchor: Anchor) -> str:
    """What correcting a step's values at ``anchor`` does, as the Request changes form says it."""
    if anchor == "after_plan":
        return "Tandem changes the step's values and shows you the plan again."
    if anchor in NOTHING_RAN_YET:
        return "Tandem changes the step's values and asks you again before it runs."
    return "Tandem fixes the step and runs it again."


def value_changes(before: dict[str, object], after: dict[str, object]) -> str:
    """``limit 20 → 50, level error → warn``: each parameter a correction changed, old value then new."""

    def shown(params: dict[str, object], key: str) -> str:
        if key not in params:  # a value added says only its new value; one dropped goes back to its default
            return "(default)" if params is after else ""
        value = params[key]
        return value if isinstance(value, str) else json.dumps(value)

    keys = [*after, *(k for k in before if k not in after)]
    changed = [k for k in keys if before.get(k, ...) != after.get(k, ...)]
    return ", ".join(" ".join(x for x in (k, shown(before, k), "→", shown(after, k)) if x) for k in changed)


def step_changed(step: Step, params: dict[str, object]) -> str:
    """``Step 1 changed: `read_logs` limit 20 → 50.`` (empty when no value changed)."""
    changes = value_changes(step.params, params)
    return f"Step {step.number} changed: `{step.tool}` {changes}." if changes else ""


def reading_detail(reading: Reading) -> str:
    """What follows "Read as: …": why it was read so. Nothing for a step's new values: what they change is said
    once the step has them (:func:`step_changed`), not guessed from the words before."""
    if reading.intent == "retry_step":
        return ""
    return " ".join((reading.suggested_fix or reading.reason).split())


def correction_said(correction: Correct, anchor: str | None) -> tuple[str, str]:
    """The icon and verb of a correction's decision line: a wish kept for the result is no rejection."""
    if anchor is not None and correction.noted_for_result(anchor):
        return "📝", "Noted for the result"
    return "❌", "Changes requested"
