"""Which risky steps a plan's approval also approves: the plan review and the gate, merged.

A plan review shows every step. Where it shows a risky step's exact parameters (on one line, in
full), the person approving the plan may approve that step's own gate, and one approval is all that
gate needs, approving the plan approves the step too: its digest is bound to the parameters shown,
and it runs without asking again unless they change. Every other risky step keeps its own gate: a
step under a quorum, one whose parameters cannot be shown in full, one the approver may not approve,
any step of a plan approved by its deadline, and any above write level when the plan was approved in
free text. A replanned step is a new step, and a corrected one has a new digest: both ask again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from agent import authz
from agent.models import Decided, Review, RunState, Step
from agent.plan_gate import PlanGate
from agent.policy import TIMEOUT, SafetyPolicy

_BARE = re.compile(r"[\w.:/@+-]+")
PARAMS_SHOWN_MAX = 200
"""Longest one-line rendering of a step's parameters that a plan review shows in full (and may merge)."""


def shown_params(params: dict[str, Any]) -> str | None:
    """``service=payments, replicas=4``: a step's parameters on one line, in full and unambiguous (a string
    with anything but word characters and ``.:/@+-`` is quoted as JSON); None when they do not fit."""
    parts = [f"{k}={v if isinstance(v, str) and _BARE.fullmatch(v) else _json(v)}" for k, v in params.items()]
    text = ", ".join(parts) or "no parameters"
    if len(text) > PARAMS_SHOWN_MAX or any(c in text for c in "`\n\r"):
        return None
    return text


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def gate_of(step: Step) -> Review:
    """The review a step's own gate would be (who may approve it, how many approvals it needs)."""
    return Review(id="", anchor="before_risky_step", step=step.number, digest=step.digest, created_at=0.0)


def plan_gates(safety: SafetyPolicy, state: RunState, review: Review) -> tuple[PlanGate, ...]:
    """The risky steps still to be approved in the plan ``review`` shows, each with its merge."""
    if review.anchor != "after_plan":
        return ()
    plan_people = authz.approvers(safety.config, state, review)
    gates = []
    for step in state.plan:
        if step.status != "pending" or safety.may_run(state, step):
            continue
        gate = gate_of(step)
        params = shown_params(step.params)
        people = authz.approvers(safety.config, state, gate)
        needed = safety.quorum(state, gate)
        held = None
        if needed > 1:
            held = f"it needs {needed} approvals"
        elif params is None:
            held = "its parameters are too long to show in full here"
        everyone = plan_people.users <= people.users and plan_people.groups <= people.groups
        apart = not safety.plan_approves_gates(state)
        gates.append(
            PlanGate(
                step=step,
                params=params or "",
                approvers=safety.waiting_on(state, gate),
                merges=held is None and not apart,
                everyone=held is None and not apart and everyone,
                held=held,
                apart=apart,
            )
        )
    return tuple(gates)


def merged(safety: SafetyPolicy, state: RunState, review: Review, event: Decided) -> Sequence[Step]:
    """The steps ``event``, an approval of the plan ``review``, approves too (see the module's rule)."""
    if event.by == TIMEOUT:
        return ()
    steps = []
    for gate in plan_gates(safety, state, review):
        step = gate.step
        if not gate.merges or (event.reading is not None and not safety.text_approves(step.risk)):
            continue
        if authz.approvers(safety.config, state, gate_of(step)).has(event.by, event.groups):
            steps.append(step)
    return steps
