"""Plain-text rendering of runs and reviews for the terminal channel."""

from __future__ import annotations

import json
from typing import Any

from agent.messages import ANCHOR_TITLES, timeout_note
from agent.models import Review, RunState, Step

_ICONS = {"pending": "·", "running": "…", "waiting": "?", "done": "✓", "failed": "✗", "skipped": "-"}


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in params.items())


def step_line(step: Step) -> str:
    risk = step.risk.label.upper() if step.risk else "read"
    return f"  {_ICONS[step.status]} {step.number}. {step.tool}({_params(step.params)})  [{risk}]  {step.reason}"


def _indent(text: str, limit: int = 1500) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters; `tandem show RUN --json` has all)"
    return "\n".join("      " + line for line in text.splitlines())


def review_text(state: RunState, review: Review) -> str:
    lines = [f"── {ANCHOR_TITLES[review.anchor]} · run {state.id} ──", f"Task: {state.task}"]
    if review.note:
        lines.append(f"Note: {review.note}")
    if review.anchor in ("after_plan",):
        lines.append("Plan:")
        lines += [step_line(s) for s in state.plan]
    elif review.anchor in ("before_risky_step", "takeover_step", "recovery") and review.step:
        step = state.step(review.step)
        lines.append(f"Step {step.number}: {step.tool}  risk: {step.risk.label}")
        lines.append(f"  params: {json.dumps(step.params, sort_keys=True)}")
        lines.append(f"  why: {step.reason}")
        if review.anchor == "recovery":
            lines.append("  Tandem stopped while this step was running: it may or may not have taken effect.")
            lines.append("  Approve re-runs it; request changes or cancel otherwise.")
    elif review.anchor in ("after_risky_step", "step_failed") and review.step:
        step = state.step(review.step)
        lines.append(step_line(step))
        lines.append(_indent(str(step.error if step.error else step.result)))
        if step.timed_out is not None:
            lines.append(f"  {timeout_note(step.timed_out)}")
    elif review.anchor == "before_result":
        lines += [step_line(s) for s in state.plan]
        lines.append("Result:")
        lines.append(_indent(state.output or ""))
    elif review.anchor == "handoff" and review.handoff is not None:
        h = review.handoff
        asker = f"step {review.step}" if review.step is not None else "the planner"
        lines.append(f"Question from {asker}: {h.prompt}")
        if h.reason:
            lines.append(f"  why: {h.reason}")
        if h.context:
            lines.append(f"  context: {json.dumps(h.context, ensure_ascii=False, default=str)}")
        if h.input_type == "choice":
            lines += [f"  {i}) {option}" for i, option in enumerate(h.options, start=1)]
        elif h.input_type == "confirm":
            lines.append("  yes / no")
        if review.assignees:
            lines.append(f"  asked: {', '.join(review.current_assignees)}")
    elif review.anchor == "takeover":
        lines.append(f"Tandem stopped acting on its own: {state.takeover_reason}")
        done = [s for s in state.history + state.plan if s.status in ("done", "failed")]
        if done:
            lines.append("Done so far:")
            lines += [step_line(s) for s in done]
            last = done[-1]
            lines.append(_indent(str(last.error or last.result)))
        lines.append("Type an instruction (one step at a time), 'finish', or 'hand back'.")
    lines.append(f"Retries used: {state.retries}/{state.policy.max_retries}")
    return "\n".join(lines)


def outcome_text(state: RunState) -> str:
    lines = [f"── Run {state.id}: {state.status} ──"]
    lines += [step_line(s) for s in state.plan]
    if state.output:
        lines.append(state.output)
    if state.error:
        lines.append(f"Error: {state.error}")
    return "\n".join(lines)
