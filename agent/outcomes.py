"""What a use case answers: each outcome a person should hear about, as a value every channel renders its own way
(``match`` + ``assert_never``); :class:`~agent.usecases.UseCases` returns them instead of raising."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.models import Lesson, Reading, Rule, RunState
from agent.refusal import Refusal


@dataclass(frozen=True)
class Applied:
    """The decision took effect; ``state`` is the run as the call left it."""

    state: RunState
    reading: Reading | None = None


@dataclass(frozen=True)
class Asked:
    """Free text was not read surely enough to act on: the person is asked what they meant (nothing changed)."""

    reading: Reading
    text: str


@dataclass(frozen=True)
class Answered:
    """Free text only asked something: the answer (from the run's plan, reasons and outputs) was posted in
    the run's thread, and nothing changed; the review is still pending."""

    reading: Reading
    text: str
    answer: str


@dataclass(frozen=True)
class Refused:
    """The policy does not let this person do this; nothing changed (the refusal is audited)."""

    refusal: Refusal


@dataclass(frozen=True)
class AlreadyDecided:
    """The review was decided before (by ``by``, at ``at``), or the run moved on."""

    message: str
    by: str | None = None
    at: float | None = None
    verb: str = "decided"


@dataclass(frozen=True)
class NeedsButton:
    """Free text may not approve this review (an exec or deploy gate): its own button or ``--approve`` does."""

    message: str
    review_id: str


@dataclass(frozen=True)
class NotApplied:
    """Anything else that stopped the call (an unknown run or review, an unreadable reply…); nothing changed."""

    message: str
    why: Literal["unknown_review", "unknown_rule", "unknown_lesson", "failed"] = "failed"


@dataclass(frozen=True)
class RuleRevoked:
    rule: Rule


@dataclass(frozen=True)
class RuleWidened:
    """The rule covers every target of its tool from now on (who widened it, and when, is kept on it)."""

    rule: Rule


@dataclass(frozen=True)
class LessonForgotten:
    """The lesson is no longer used: the next plan starts without it. ``run``: the run whose thread was told."""

    lesson: Lesson
    run: str | None = None


Outcome = Applied | Asked | Answered | Refused | AlreadyDecided | NeedsButton | NotApplied
