"""The answer to a question asked at a review ("why restart it?", "what did the logs say?"), from the run.

Built only from what the run holds: the step(s) the question is about (the one it names, else the one
under review, else every step of the plan), their values and reasons, how they went, and what the
steps that ran returned. Nothing is made up and nothing changes: the review stays pending.
"""

from __future__ import annotations

from typing import Any

from agent.models import RunState, Step

RESULT_LIMIT = 600
"""How much of one step's output an answer quotes, in characters."""


def answer_text(state: RunState, target: int | None) -> str:
    """What the run can say about step ``target`` (None: the step under review, else the whole plan)."""
    pending = state.pending
    number = target if target is not None else (pending.step if pending is not None else None)
    about = [s for s in state.plan if s.number == number] or list(state.plan)
    lines = [_about(step, state.task) for step in about]
    ran = [s for s in state.plan if s not in about and s.status in ("done", "failed") and _said(s)]
    lines += [_returned(s) for s in ran]
    if state.output and (pending is None or pending.anchor == "before_result") and not any(_said(s) for s in about):
        lines.append(f"The result so far:\n{_clip(state.output)}")
    lines.append("Nothing changed; the review is still waiting for your decision.")
    return "\n".join(lines)


def _about(step: Step, task: str) -> str:
    why = step.reason.strip() or f"From the task: {task}"
    head = f"Step {step.number} `{step.tool}`{_values(step.params)}: {why.rstrip('.')}."
    if step.status == "done":
        return f"{head} It ran and returned: {_clip(_said(step) or 'nothing')}"
    if step.status == "failed":
        return f"{head} It failed: {_clip(step.error or _said(step) or 'no error was given')}"
    if step.status == "running":
        return f"{head} It is running now."
    return f"{head} It has not run yet."


def _returned(step: Step) -> str:
    if step.status == "failed":
        return f"Step {step.number} `{step.tool}` failed: {_clip(step.error or _said(step))}"
    return f"Step {step.number} `{step.tool}` returned: {_clip(_said(step))}"


def _values(params: dict[str, Any]) -> str:
    shown = " ".join(f"{k}={v}" for k, v in params.items() if v not in (None, ""))
    return f" {shown}" if shown else ""


def _said(step: Step) -> str:
    result = step.result
    if result is None:
        return ""
    return result if isinstance(result, str) else str(result)


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= RESULT_LIMIT else text[: RESULT_LIMIT - 1] + "…"
