"""What a reply may mean where it was typed, and how a model's reading is combined with the offline one.

One table, :data:`POSSIBLE`, says which readings make sense at each anchor: there is no result to
rework before the result, nothing to go back to before a plan, no step to run again where none is
under review or named. The offline reader keeps to it, the model is told it (and held to it by the
answer's schema), and :func:`combine` never takes a model's reading that breaks it.

How the two readers combine (:func:`combine`); the offline reader has read the reply first:

1. a model's reading impossible where the reply was typed is never taken: the offline reading stands;
2. an offline reading at :data:`CERTAIN` or above stands (the model is not even asked,
   unless a bench asks it every time);
3. the model agrees (same intent and step): taken, as sure as :data:`AGREED`;
4. the offline reader read an approval the model does not: the approval is kept but asked about first,
   so a correction or a cancel is never applied as an approval;
5. the offline reader stands by another reading (confidence :data:`STANDS` or more): it stands. A
   model's disagreement is no evidence (a small model reads most value corrections as replan, sure of it);
6. the offline reader leans another way without standing by it (confidence :data:`LEANS` or more):
   the two disagree, so the person is asked first (a model's guess never overrides a weak but real reading);
7. the offline reader found nothing to go on: the model's reading is taken as :data:`UNOPPOSED`, except
   an approval or a cancel, which is never taken from a model alone (asked about first, :data:`DISPUTED`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal, get_args

from agent.models import Reading

ReadingKind = Literal["approve", "cancel", "replan", "retry_step", "refine_output", "question"]
KINDS: tuple[ReadingKind, ...] = get_args(ReadingKind)
_AT_A_STEP: frozenset[ReadingKind] = frozenset({"approve", "cancel", "replan", "retry_step", "question"})
POSSIBLE: dict[str, frozenset[ReadingKind]] = {
    # nothing has run: no output to rework; a step is changed only where the reply names one
    "after_plan": _AT_A_STEP,
    # a step waits for approval (or, in recovery, to be run again): still no output to rework
    "before_risky_step": _AT_A_STEP,
    "recovery": _AT_A_STEP,
    # a failed step left nothing to present
    "step_failed": _AT_A_STEP,
    # a step has run: a note on how its output is shown is kept for the result
    "after_risky_step": _AT_A_STEP | {"refine_output"},
    "before_result": frozenset(KINDS),
}
"""The readings that make sense at each anchor where a reply is read. A tool's question (``handoff``)
and takeover read no reply this way: what is typed there is an answer or an instruction."""

CERTAIN = 0.9
"""An offline reading at least this confident rests on unambiguous words; asking a model cannot improve it."""
AGREED = 0.9
"""The model and the offline reader read the reply the same way."""
UNOPPOSED = 0.6
"""The offline reader found nothing to go on; the model's reading is possible where it was typed."""
STANDS = 0.5
"""An offline reading this sure is not overridden by a model."""
LEANS = 0.4
"""An offline reading at least this confident rests on some words of the reply (its vague default is 0.3)."""
DISPUTED = 0.3
"""Asked about first: an approval the model does not share, or a model's stop or go against nothing."""


def impossible(intent: str, target: int | None, anchor: str, step: int | None, steps: Iterable[int]) -> str | None:
    """Why reading ``intent`` (on step ``target``) makes no sense at ``anchor``; None when it does."""
    numbers = set(steps)
    if intent not in POSSIBLE.get(anchor, frozenset()):
        return f"{intent} makes no sense at {anchor.replace('_', ' ')}"
    if target is not None and target not in numbers:
        return f"the plan has no step {target}"
    if intent == "retry_step" and target is None and step is None:
        return "no step is under review and none is named"
    return None


def nearest(intent: ReadingKind, anchor: str, step: int | None) -> ReadingKind:
    """The reading the runtime would apply in place of one that makes no sense at ``anchor``: a rework
    asked for before there is a result changes the plan, or the step under review."""
    if intent in POSSIBLE.get(anchor, frozenset(KINDS)):
        return intent
    if intent == "refine_output" and step is not None:
        return "retry_step"
    return "replan"


def combine(model: Reading, local: Reading, *, anchor: str, step: int | None, steps: Iterable[int]) -> Reading:
    """The reading to act on, given the model's and the offline reader's (see the module's rules)."""
    numbers = set(steps)
    why_not = impossible(model.intent, model.target_step, anchor, step, numbers)
    if why_not is not None:
        return _stands(local, f"the model read {model.intent}, but {why_not}")
    if local.confidence >= CERTAIN:
        return _stands(local, f"the model read {model.intent}")
    same_step = model.target_step is None or local.target_step is None or model.target_step == local.target_step
    if model.intent == local.intent and same_step:
        merged = model.model_copy(
            update={
                "target_step": model.target_step or local.target_step,
                "suggested_fix": model.suggested_fix or local.suggested_fix,
            }
        )
        return _sure(merged, AGREED, "the offline reader agrees")
    if local.intent == "approve":
        why = f"the model read {model.intent}, so the approval is asked about first"
        return local.model_copy(update={"confidence": min(local.confidence, DISPUTED), "reason": _why(local, why)})
    if local.confidence >= STANDS:
        return _stands(local, f"the model read {model.intent}")
    if model.intent in ("approve", "cancel"):
        return _sure(model, DISPUTED, f"the offline reader read {local.intent}, so it is not taken as {model.intent}")
    if not local.fallback and local.confidence >= LEANS:
        why = f"the model read {model.intent}: the two readers disagree, so it is asked about first"
        return local.model_copy(update={"confidence": min(local.confidence, DISPUTED), "reason": _why(local, why)})
    return _sure(model, UNOPPOSED, "the offline reader found nothing to go on")


def _stands(local: Reading, why: str) -> Reading:
    return local.model_copy(update={"reason": _why(local, f"{why}; the offline reading stands")})


def _sure(reading: Reading, confidence: float, why: str) -> Reading:
    return reading.model_copy(update={"confidence": confidence, "reason": _why(reading, why)})


def _why(reading: Reading, why: str) -> str:
    return f"{reading.reason} ({why})" if reading.reason else why
