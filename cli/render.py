"""Plain-text rendering of runs and reviews for the terminal channel."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from agent.messages import timeout_note
from agent.models import Review, RunState, Step, mention, plain_mention, render_mentions
from agent.policy import SafetyPolicy
from agent.review_view import review_view

_ICONS = {"pending": "·", "running": "…", "waiting": "?", "done": "✓", "failed": "✗", "skipped": "-"}


def local_time(at: float) -> str:
    """``14:02`` in this machine's time zone (a terminal's reader is here)."""
    return datetime.fromtimestamp(at).strftime("%H:%M")


def plain(text: str) -> str:
    """Prose the core wrote, for a terminal: people as ``@id``, times local."""
    return render_mentions(text, plain_mention, local_time)


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in params.items())


def step_line(step: Step) -> str:
    risk = step.risk.label.upper() if step.risk else "read"
    return f"  {_ICONS[step.status]} {step.number}. {step.tool}({_params(step.params)})  [{risk}]  {step.reason}"


def _indent(text: str, limit: int = 1500) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n… ({len(text) - limit} more characters; `tandem show RUN --json` has all)"
    return "\n".join("      " + line for line in text.splitlines())


def review_text(state: RunState, review: Review, safety: SafetyPolicy | None = None) -> str:
    """The terminal's rendering of the channel-neutral :class:`ReviewView` of ``review``."""
    view = review_view(state, review, safety or SafetyPolicy())
    lines = [f"── {view.title} · run {view.run_id} ──", f"Task: {view.task}"]
    if view.note:
        lines.append(f"Note: {view.note}")
    step = view.step
    if view.anchor == "after_plan":
        lines.append("Plan:")
        lines += [step_line(s) for s in view.steps]
    elif view.anchor in ("before_risky_step", "takeover_step", "recovery") and step is not None:
        lines.append(f"Step {step.number}: {step.tool}  risk: {step.risk.label}")
        lines.append(f"  params: {json.dumps(step.params, sort_keys=True)}")
        lines.append(f"  why: {step.reason}")
        if view.warning:
            lines.append(f"  {view.warning}")
            lines.append("  Approve re-runs it; request changes or cancel otherwise.")
    elif view.anchor in ("after_risky_step", "step_failed") and step is not None:
        lines.append(step_line(step))
        lines.append(_indent(str(step.error if step.error else step.result)))
        if step.timed_out is not None:
            lines.append(f"  {timeout_note(step.timed_out)}")
    elif view.anchor == "before_result":
        lines += [step_line(s) for s in view.steps]
        lines.append("Result:")
        lines.append(_indent(view.output or ""))
    elif view.handoff is not None:
        h = view.handoff
        lines.append(f"Question from {view.asker}: {h.prompt}")
        if h.reason:
            lines.append(f"  why: {h.reason}")
        if h.context:
            lines.append(f"  context: {json.dumps(h.context, ensure_ascii=False, default=str)}")
        if h.input_type == "choice":
            lines += [f"  {i}) {option}" for i, option in enumerate(h.options, start=1)]
        elif h.input_type == "confirm":
            lines.append("  yes / no")
    elif view.anchor == "takeover":
        lines.append(f"Tandem stopped acting on its own: {view.takeover_reason}")
        if view.steps:
            lines.append("Done so far:")
            lines += [step_line(s) for s in view.steps]
            last = view.steps[-1]
            lines.append(_indent(str(last.error or last.result)))
        lines.append("Type an instruction (one step at a time), 'finish', or 'hand back'.")
    if view.waiting_on:
        lines.append("Waiting on: " + ", ".join(mention(p) for p in view.waiting_on))
    if view.quorum > 1:
        lines.append(f"Approvals: {len(view.approvals)} of {view.quorum}")
    lines.append(f"Retries used: {view.retries}/{view.max_retries}")
    return plain("\n".join(lines))


def outcome_text(state: RunState) -> str:
    lines = [f"── Run {state.id}: {state.status} ──"]
    lines += [step_line(s) for s in state.plan]
    if state.output:
        lines.append(state.output)
    if state.error:
        lines.append(f"Error: {state.error}")
    return plain("\n".join(lines))
