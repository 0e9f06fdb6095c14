"""Reviews of outcomes: the final result, a risky step's outcome, a failed step, an interrupted step."""

from __future__ import annotations

from typing import assert_never

from slack_sdk.models.blocks import ButtonElement

from agent.messages import timeout_note
from agent.models import Review, RunState, Step
from agent.policy import SafetyPolicy
from agent.review_view import ReviewView, review_view
from blocks import ids
from blocks.evidence import evidence_blocks
from blocks.lessons import applied_lessons
from blocks.markdown import Output, output_blocks
from blocks.step_approval import details_for, missing_step, step_body, with_evidence
from blocks.text import (
    Block,
    Blocks,
    actions,
    as_text,
    button,
    cancel_button,
    clip,
    code_block,
    context,
    details_button,
    params_inline,
    section,
    step_of,
    step_title,
)

OUTPUT_LIMIT = 2900
RESULT_LIMIT = 2000
ERROR_LIMIT = 1500


def _note(review: Review) -> Blocks:
    return [context(clip(review.note, 1000).text)] if review.note else []


def _ran_with(step: Step) -> Blocks:
    return [context(f"Ran with {params_inline(step.params, 400).text}")] if step.params else []


def _changes(review: Review) -> ButtonElement:
    return button("Request changes", ids.REJECT, review.id)


def _actions(review: Review, first: ButtonElement, *, details: ButtonElement | None, cancel: bool = True) -> Block:
    buttons = [first, _changes(review)]
    if details is not None:
        buttons.append(details)
    if cancel:
        buttons.append(cancel_button(review.id))
    return actions(*buttons)


def _cut_short(output: str, written: str, quoted_lines: int = 8) -> bool:
    """Whether the written result quotes a long step output only in part ("… (9 more lines)"):
    its last line is missing, so the full output is offered in details."""
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return len(lines) > quoted_lines and lines[-1] not in written


def _view(state: RunState, review: Review, view: ReviewView | None) -> ReviewView:
    return view or review_view(state, review, SafetyPolicy())


def _covers(view: ReviewView, step: Step) -> bool:
    """Whether the review's evidence shows ``step``'s own outcome (then it is not shown twice)."""
    return any(e.number == step.number for e in view.evidence)


def result_review(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """``before_result``: the written result, what ran since the last review; Approve / Request changes."""
    shown = _view(state, review, view)
    evidence, cut = evidence_blocks(shown.evidence)
    output = (
        output_blocks(state.output, OUTPUT_LIMIT) if state.output else Output([section("_No written result._")], False)
    )
    approve = button("Approve", ids.APPROVE, review.id, style="primary")
    # The written result may quote only part of a long step output: offer the full outputs too.
    written = state.output or ""
    long_step = any(
        len(text) > RESULT_LIMIT or _cut_short(text, written)
        for text in (as_text(s.result or s.error or "") for s in state.plan)
    )
    details = details_button(review.id) if output.truncated or long_step or cut else None
    return [
        section("📄 *Result ready for review*"),
        *output.blocks,
        *applied_lessons(shown.lessons, state.id),
        *[context(clip(line, 1000).text) for line in shown.outcomes],
        *evidence,
        *_note(review),
        _actions(review, approve, details=details, cancel=False),
    ]


def after_risky_step(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """``after_risky_step``: what a risky step did (and what ran before it); Approve / Request changes / Cancel."""
    view = _view(state, review, view)
    step = step_of(state, review)
    if step is None:
        return missing_step(review)
    head = [section(f"🔍 *Check the outcome of step {step.number}*\n{step_title(step)}")]
    if _covers(view, step):
        blocks, cut = with_evidence(head, view, False)
    else:
        result = code_block(as_text(step.result), RESULT_LIMIT) if step.result is not None else None
        body = section(result.text if result else "_The step returned no output._")
        blocks, cut = with_evidence([*head, body, *_ran_with(step)], view, result is not None and result.truncated)
    approve = button("Approve", ids.APPROVE, review.id, style="primary")
    return [*blocks, *_note(review), _actions(review, approve, details=details_for(view, step) if cut else None)]


def step_failed(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """``step_failed``: the error (and what ran before it); Continue anyway / Request changes / Cancel run."""
    view = _view(state, review, view)
    step = step_of(state, review)
    if step is None:
        return missing_step(review)
    headline = f"❌ *Step {step.number} failed*"
    if step.attempts > 1:
        headline += f" after {step.attempts} attempts"
    headline += f"\n{step_title(step)}"
    if _covers(view, step):
        blocks, cut = with_evidence([section(headline)], view, False)
    else:
        error = code_block(step.error or "no error message", ERROR_LIMIT, tail=True)
        blocks, cut = with_evidence([section(headline), section(error.text), *_ran_with(step)], view, error.truncated)
    details = details_for(view, step) if cut else None
    return [
        *blocks,
        *_timeout_note(step),
        *_note(review),
        _actions(review, button("Continue anyway", ids.APPROVE, review.id), details=details),
    ]


def _timeout_note(step: Step) -> Blocks:
    match step.timed_out:
        case None:
            return []
        case "cancelled":
            return [context(timeout_note("cancelled"))]
        case "abandoned":
            return [section(f"⚠️ *{timeout_note('abandoned')}*")]
        case _ as never:
            assert_never(never)


def recovery(state: RunState, review: Review, view: ReviewView | None = None) -> Blocks:
    """``recovery``: a step was running when Tandem stopped; Re-run / Request changes / Cancel run."""
    view = _view(state, review, view)
    step = step_of(state, review)
    if step is None:
        return missing_step(review)
    blocks, truncated = step_body(
        step, f"⚠️ *Step {step.number} was in flight when Tandem stopped; it may or may not have run.*"
    )
    blocks.append(context("Check whether it took effect before you re-run it."))
    blocks, truncated = with_evidence(blocks, view, truncated)
    details = details_for(view, step) if truncated else None
    return [*blocks, *_note(review), _actions(review, button("Re-run", ids.APPROVE, review.id), details=details)]
