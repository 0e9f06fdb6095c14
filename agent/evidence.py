"""What a review shows of what ran: the outcomes of the steps that finished since the run's last review.

A person deciding at a gate needs what the earlier steps returned (the error logs before a
restart), not only the step's parameters. Which steps those are is worked out once, when the
machine asks (:func:`note_asked`, stored on the review); what they returned is built once per view
(:func:`review_evidence`); every channel renders the same :class:`StepEvidence`, none fetches it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from agent.models import Anchor, LastAsked, Review, RunState, Step

FIRST_LINES = 6  # lines of a step's output a review shows (8 when that is all); the rest is behind "Show details"
EVIDENCE_ANCHORS: frozenset[Anchor] = frozenset(
    {"before_risky_step", "recovery", "after_risky_step", "step_failed", "before_result"}
)


@dataclass(frozen=True)
class Chip:
    """One parameter as ``key=value`` on one line (newlines shown as ``↵``)."""

    key: str
    value: str

    @property
    def text(self) -> str:
        return f"{self.key}={self.value}"


@dataclass(frozen=True)
class StepEvidence:
    """What one step returned, as a review shows it: the first lines, and everything."""

    number: int
    tool: str
    params: tuple[Chip, ...]
    status: Literal["done", "failed"]
    first_lines: tuple[str, ...]  # an error is shown in full: all its lines
    total_lines: int
    text: str  # the whole output (or error)
    error: str | None

    @property
    def more_lines(self) -> int:
        return self.total_lines - len(self.first_lines)


def chips(params: Mapping[str, Any]) -> tuple[Chip, ...]:
    """A step's parameters as readable ``key=value`` chips, in the order the planner gave them."""
    return tuple(Chip(str(key), _one_line(value)) for key, value in params.items())


def _one_line(value: Any) -> str:
    raw = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return raw.replace("\r\n", "\n").replace("\n", "↵")


def output_text(value: Any) -> str:
    """A step's result as text: strings as they are, anything else as indented JSON."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str, sort_keys=True)


def step_evidence(step: Step) -> StepEvidence:
    failed = step.status == "failed"
    text = (step.error or "no error message") if failed else output_text(step.result)
    lines = tuple(text.rstrip("\n").splitlines())
    return StepEvidence(
        number=step.number,
        tool=step.tool,
        params=chips(step.params),
        status="failed" if failed else "done",
        first_lines=lines if failed or len(lines) <= FIRST_LINES + 2 else lines[:FIRST_LINES],
        total_lines=len(lines),
        text=text,
        error=step.error if failed else None,
    )


def all_steps(state: RunState) -> dict[int, Step]:
    """Every step of the run by number, earlier plans' included (numbers are unique within a run)."""
    return {s.number: s for s in (*state.history, *state.plan)}


def review_evidence(state: RunState, review: Review) -> tuple[StepEvidence, ...]:
    """The outcomes ``review`` shows: the steps that finished since the review before it."""
    if review.anchor not in EVIDENCE_ANCHORS:
        return ()
    steps = all_steps(state)
    return tuple(step_evidence(steps[n]) for n in review.evidence if n in steps and _finished(steps[n]))


def steps_evidence(state: RunState, numbers: Sequence[int]) -> tuple[StepEvidence, ...]:
    """The outcomes of the named steps that have finished (what *Show details* opens)."""
    steps = all_steps(state)
    return tuple(step_evidence(steps[n]) for n in numbers if n in steps and _finished(steps[n]))


def _finished(step: Step) -> bool:
    return step.status in ("done", "failed")


def note_asked(state: RunState, anchor: Anchor, step: int | None) -> list[int]:
    """The steps whose outcomes a review asked now shows, and remember them on ``state``.

    Those are the steps that finished (an attempt not shown before) since the last review. A review
    asked again about the same thing with nothing new in between (a correction that changed nothing,
    revised parameters at the same gate) shows what the one before it showed: the person still needs it.
    """
    last = state.asked
    seen = dict(last.seen) if last is not None else {}
    steps = all_steps(state)
    fresh = [
        s.number
        for s in steps.values()
        if s.status in ("done", "failed") and s.finished_at is not None and seen.get(s.number) != s.attempts
    ]
    seen.update({number: steps[number].attempts for number in fresh})
    again = last is not None and (last.anchor, last.step) == (anchor, step)
    evidence = sorted(fresh) if fresh or not again or last is None else list(last.evidence)
    state.asked = LastAsked(anchor=anchor, step=step, evidence=evidence, seen=seen)
    return evidence


def details_text(state: RunState, numbers: Sequence[int]) -> str:
    """Everything behind *Show details*: each named step's exact parameters and its whole output or error."""
    steps = all_steps(state)
    parts = []
    for number in numbers:
        step = steps.get(number)
        if step is None:
            continue
        params = json.dumps(step.params, indent=2, ensure_ascii=False, default=str, sort_keys=True)
        head = f"Step {step.number} · {step.tool} · {step.risk.label}"
        if not _finished(step):
            parts.append(f"{head} · not run yet\nparams: {params}")
            continue
        item = step_evidence(step)
        said = "error" if item.status == "failed" else "output"
        parts.append(f"{head} · {item.status}\nparams: {params}\n{said} ({item.total_lines} lines):\n{item.text}")
    return "\n\n".join(parts) or "Nothing to show: those steps are no longer part of this run."
