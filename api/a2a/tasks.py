"""A run as an A2A task: its state, the question it waits on (text, and the choices as data), its result.

Pure functions of the stored run: a task's state is never kept anywhere else, so it is the same after a
restart, on every replica, and whichever channel (A2A, a Slack button, a Feishu card) moved the run.
"""

from __future__ import annotations

import json
from typing import Any

from a2a.helpers.proto_helpers import new_data_part, new_text_part
from a2a.types import Artifact, Message, Part, Role, Task, TaskState, TaskStatus
from google.protobuf.timestamp_pb2 import Timestamp

from agent.messages import ANCHOR_TITLES
from agent.models import RunState, Step, plain_mention, render_mentions, utc_time
from agent.policy import SafetyPolicy
from agent.review_view import Choice, ReviewView, review_view

LABELS: dict[Choice, str] = {
    "approve": "Approve",
    "approve_always": "Approve, and always allow this tool here",
    "request_changes": "Request changes (say what, in 'feedback')",
    "cancel": "Cancel the run",
    "answer": "Answer the question (in 'answer')",
    "instruct": "Say the next step (in 'text')",
    "finish": "Finish the run",
    "hand_back": "Hand the run back to Tandem",
}
DECLINE = {"choice": "decline", "label": "Decline to answer (the MCP server that asked gets decline)"}
ENDED = {"done": TaskState.TASK_STATE_COMPLETED, "cancelled": TaskState.TASK_STATE_CANCELED}


def plain(text: str) -> str:
    """Prose the core wrote, with people as ``@id`` and times in UTC."""
    return render_mentions(text, plain_mention, utc_time)


def _step(step: Step) -> str:
    params = ", ".join(f"{k}={v}" for k, v in step.params.items())
    return f"{step.number}. {step.tool}({params}) [{step.risk.label}] {step.reason}".rstrip()


def question(view: ReviewView) -> str:
    """What the review asks, as plain text."""
    lines = [f"{view.title} (run {view.run_id})", f"Task: {view.task}"]
    if view.note:
        lines.append(f"Note: {view.note}")
    if view.anchor in ("after_plan", "before_result") and view.steps:
        lines.append("Plan:" if view.anchor == "after_plan" else "Steps:")
        lines += [f"  {_step(s)} ({s.status})" for s in view.steps]
        lines += view.gate_lines
    if view.step is not None and view.anchor not in ("after_plan", "before_result"):
        lines.append(f"Step {_step(view.step)}")
        if view.step.result is not None or view.step.error:
            lines.append(f"  returned: {view.step.error or view.step.result}")
    if view.warning:
        lines.append(view.warning)
    if view.output:
        lines += ["Result:", view.output]
    lines += list(view.outcomes)
    if view.handoff is not None:
        lines.append(f"Question from {view.asker}: {view.handoff.prompt}")
        if view.handoff.options:
            lines.append("Options: " + " | ".join(view.handoff.options))
    if view.takeover_reason:
        lines.append(f"Tandem stopped acting on its own: {view.takeover_reason}")
    if view.waiting_on:
        lines.append("Waiting on: " + ", ".join(f"⟦@{p}⟧" for p in view.waiting_on))
    if view.quorum > 1:
        lines.append(f"Approvals: {len(view.approvals)} of {view.quorum}")
    return plain("\n".join(lines))


def choices(view: ReviewView) -> dict[str, Any]:
    """The review's choices as data: what an answer names (``review_id`` and one ``choice``)."""
    data: dict[str, Any] = {
        "review_id": view.review_id,
        "anchor": view.anchor,
        "title": ANCHOR_TITLES.get(view.anchor, view.title),
        "choices": [{"choice": c, "label": LABELS[c]} for c in view.choices],
        "waiting_on": list(view.waiting_on),
    }
    if view.step is not None:
        data["step"] = {"number": view.step.number, "tool": view.step.tool, "risk": view.step.risk.label}
    if view.handoff is not None:
        data["input_type"] = view.handoff.input_type
        data["options"] = list(view.handoff.options)
        if view.handoff.offers_decline:
            data["choices"].insert(1, DECLINE)
    plain_json: dict[str, Any] = json.loads(json.dumps(data, default=str))  # what a proto Value can hold
    return plain_json


def _stamp(at: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(at * 1e9))
    return stamp


def status(state: RunState, safety: SafetyPolicy, context: str) -> TaskStatus:
    """The task's status (in the caller's ``context``): the question it waits on, its working, or how it ended."""

    def _message(run_id: str, parts: list[Part], key: str) -> Message:
        return Message(
            role=Role.ROLE_AGENT, parts=parts, message_id=f"{run_id}-{key}", task_id=run_id, context_id=context
        )

    at = _stamp(state.updated_at)
    if state.phase == "failed":
        text = f"Run {state.id} failed: {state.error or 'no reason given'}"
        message = _message(state.id, [new_text_part(plain(text))], "failed")
        return TaskStatus(state=TaskState.TASK_STATE_FAILED, message=message, timestamp=at)
    if state.phase in ENDED:
        said = f"Run {state.id} is done; its result is the artifact 'result'." if state.phase == "done" else ""
        message = _message(state.id, [new_text_part(plain(said or _cancelled(state)))], state.phase)
        return TaskStatus(state=ENDED[state.phase], message=message, timestamp=at)
    if state.pending is not None:
        view = review_view(state, state.pending, safety)
        parts = [new_text_part(question(view)), new_data_part(choices(view), media_type="application/json")]
        message = _message(state.id, parts, f"review-{view.review_id}")
        return TaskStatus(state=TaskState.TASK_STATE_INPUT_REQUIRED, message=message, timestamp=at)
    return TaskStatus(state=TaskState.TASK_STATE_WORKING, timestamp=at)


def _cancelled(state: RunState) -> str:
    by = f" by ⟦@{state.cancelled_by}⟧" if state.cancelled_by else ""
    why = f": {state.cancel_reason}" if state.cancel_reason else ""
    return f"Run {state.id} was cancelled{by}{why}"


def result(state: RunState) -> Artifact | None:
    """The run's result (its text, and what each step did), once it is done."""
    if state.phase != "done":
        return None
    steps = [
        {"number": s.number, "tool": s.tool, "status": s.status, "result": s.result, "error": s.error}
        for s in state.history + state.plan
    ]
    parts = [new_text_part(plain(state.output or "")), new_data_part(json.loads(json.dumps(steps, default=str)))]
    return Artifact(artifact_id=f"{state.id}-result", name="result", parts=parts)


def task(state: RunState, safety: SafetyPolicy, context: str) -> Task:
    """The run ``state`` as an A2A task (its id is the run's) in the caller's ``context``."""
    asked = Message(
        role=Role.ROLE_USER,
        parts=[new_text_part(state.task)],
        message_id=f"{state.id}-task",
        task_id=state.id,
        context_id=context,
    )
    found = result(state)
    return Task(
        id=state.id,
        context_id=context,
        status=status(state, safety, context),
        artifacts=[found] if found is not None else [],
        history=[asked],
    )
