"""What a shortened review says, channel-neutral: the parts of its view that fit in a few lines.

A channel whose platform refused a review's full message renders this instead (each channel
package has its own ``shorter`` renderer); what was left out stays one click or command away.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.models import Step
from agent.review_view import ReviewView

GATE_LINES = 5  # what approving does to the plan's risky steps: the first few lines


@dataclass(frozen=True)
class ReviewSummary:
    title: str
    task: str  # on one line
    question: str | None  # a handoff's question
    step: Step | None  # the step a gate is about, when the review shows no plan
    warning: str | None
    steps: tuple[Step, ...]  # the plan, or what ran so far
    gate_lines: tuple[str, ...]  # prose with ``mention`` markers


def review_summary(view: ReviewView) -> ReviewSummary:
    return ReviewSummary(
        title=view.title,
        task=" ".join(view.task.split()),
        question=view.handoff.prompt if view.handoff is not None else None,
        step=view.step if not view.steps else None,
        warning=view.warning,
        steps=view.steps,
        gate_lines=tuple(view.gate_lines[:GATE_LINES]),
    )
