"""Plain-text rendering of runs and reviews for the terminal channel.

Text written for Slack (the run's output, a review's note) goes through
:func:`cli.mrkdwn.terminal_text`; ``color`` turns on its ANSI styles (a terminal only).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent.messages import ANCHOR_TITLES, plural, timeout_note
from agent.models import AuditEvent, Delivery, Review, RunState, Step
from cli.mrkdwn import terminal_text

_ICONS = {"pending": "·", "running": "…", "waiting": "?", "done": "✓", "failed": "✗", "skipped": "-"}


def _params(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in params.items())


def step_line(step: Step) -> str:
    risk = step.risk.label.upper() if step.risk else "read"
    return f"  {_ICONS[step.status]} {step.number}. {step.tool}({_params(step.params)})  [{risk}]  {step.reason}"


def _indent(text: str, limit: int = 1500) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n… ({plural(len(text) - limit, 'more character')}; `tandem show RUN --json` has all)"
    return "\n".join("      " + line for line in text.splitlines())


def review_text(state: RunState, review: Review, *, color: bool = False) -> str:
    lines = [f"── {ANCHOR_TITLES[review.anchor]} · run {state.id} ──", f"Task: {state.task}"]
    if review.note:
        lines.append(f"Note: {terminal_text(review.note, color=color)}")
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
        lines.append(_indent(terminal_text(state.output or "", color=color)))
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


def outcome_text(state: RunState, *, color: bool = False) -> str:
    lines = [f"── Run {state.id}: {state.status} ──"]
    lines += [step_line(s) for s in state.plan]
    if state.output:
        lines.append(terminal_text(state.output, color=color))
    if state.error:
        lines.append(f"Error: {state.error}")
    return "\n".join(lines)


def local_datetime(at: float) -> str:
    """``2026-12-02 03:14:07`` in this machine's time zone."""
    return datetime.fromtimestamp(at).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def show_text(
    state: RunState, undelivered: Sequence[Delivery], events: Sequence[AuditEvent], *, color: bool = False
) -> str:
    """``tandem show RUN``: the outcome, what is pending, what was not delivered, and the history in local time."""
    lines = [outcome_text(state, color=color)]
    if state.pending is not None:
        lines += ["", review_text(state, state.pending, color=color)]
    for d in undelivered:
        what = f"{d.message.kind} {d.message.review_id or ''}".strip()
        lines.append(f"  ⚠ {what} not delivered: {d.error} ({plural(d.attempts, 'try', 'tries')}, {d.status})")
    if events:
        first = datetime.fromtimestamp(events[0].at).astimezone()
        zone = f"{first:%Z} (UTC{first:%z})" if first.tzname() else f"UTC{first:%z}"
        lines += ["", f"History (local time, {zone}):"]
    lines += [
        f"  {local_datetime(e.at)}  {e.actor:<10} {e.kind:<16} " + json.dumps(e.payload, ensure_ascii=False)[:160]
        for e in events
    ]
    return "\n".join(lines)
