"""Where a run pauses for a person (its anchors) and how far it may go on its own."""

from __future__ import annotations

from typing import Literal

from agent.models.base import Model
from agent.models.risk import Risk

Anchor = Literal[
    "handoff",
    "after_plan",
    "before_risky_step",
    "after_risky_step",
    "before_result",
    "step_failed",
    "recovery",
    "takeover",
    "takeover_step",
]
CONFIGURABLE_ANCHORS: tuple[Anchor, ...] = ("after_plan", "after_risky_step", "before_result")
# When a risky step's outcome stops the run: only when another risky step follows it (the default),
# or whenever any step follows it (how Tandem stopped before).
AfterRisky = Literal["risky_follows", "any_follows"]
# A plan that only reads: ``done``, delivered without a review (its thread stays open); ``review``, as
# Tandem first did: a short one stops at its result, a longer one at its plan too.
ReadOnly = Literal["done", "review"]


class Policy(Model):
    """Where a run pauses and how far it may go. Snapshotted into each run, so a run keeps the rules it
    started under. Data only: :class:`agent.policy.SafetyPolicy` reads it to answer what may run."""

    anchors: frozenset[Anchor] = frozenset(CONFIGURABLE_ANCHORS)
    confirm_threshold: Risk = Risk.WRITE
    dynamic_anchors: bool = True
    max_retries: int = 3
    max_steps: int = 10
    step_timeout: float = 30.0
    after_risky_step: AfterRisky = "risky_follows"
    # Approving a plan may also approve the risky steps it shows exactly (see agent.merge). Off unless
    # the policy file's [anchors] turns it on (its default does): a run stored before this existed
    # keeps the promise its plan card made, that each risky step asks again.
    merge_gate: bool = False
    read_only: ReadOnly = "done"
