"""Planning and execution: take a plan, run its steps in order, gate the risky ones."""

from __future__ import annotations

from agent.correction_messages import step_changed, value_changes
from agent.errors import InvalidDecision
from agent.machine import lessons
from agent.machine.helpers import Result, ask_person, finish_run, start_work, take_over
from agent.models import (
    Decided,
    Effect,
    Event,
    MakePlan,
    MatchRule,
    Notify,
    OutputReady,
    PlannedStep,
    PlanProposed,
    ProposedStep,
    RefineOutput,
    ReviseFailed,
    ReviseStep,
    RuleChecked,
    RunState,
    RunStep,
    Step,
    StepFinished,
    StepRevised,
    Summarize,
)
from agent.models.elicitation import not_replies
from agent.policy import SafetyPolicy, rule_scope

# --- planning --------------------------------------------------------------


def on_plan(s: RunState, event: PlanProposed, policy: SafetyPolicy) -> Result:
    work = s.inflight
    if isinstance(work, MakePlan) and work.anchor is not None and _same_plan(s.plan, event.steps):
        s.rejected_plans.pop()
        why = event.unknown or (
            "the new plan is the same as this one. Approve it as it is, or say what to change, "
            "e.g. 'use checkout', 'skip the restart' or 'check the logs first'."
        )
        return revision_refused(s, event, work, f"The plan was not changed: {why}")
    s.inflight = None
    if not event.steps:
        return take_over(s, event, "The planner found nothing to do for this task.")
    if len(event.steps) > s.policy.max_steps:
        return take_over(s, event, f"The plan has {len(event.steps)} steps; the limit is {s.policy.max_steps}.")
    # the lessons that shaped this plan, and only those (one forgotten meanwhile stays shown as forgotten)
    was = {u.id: u for u in s.lessons_applied}
    s.lessons_applied = [was.get(use.id, use) for use in event.lessons]
    old = s.rejected_plans[-1] if s.rejected_plans else []
    learned = lessons.replanned(s, old, event.steps) if s.learning is not None else []
    state, effects = _planned(s, event, policy)
    return state, learned + effects


def _planned(s: RunState, event: PlanProposed, policy: SafetyPolicy) -> Result:
    s.history.extend(step for step in s.plan if step.status in ("done", "failed"))
    first = max((step.number for step in s.history), default=0) + 1  # numbered once per run: a new plan goes on
    s.plan = [
        Step(number=i, tool=p.tool, params=p.params, reason=p.reason, risk=p.risk)
        for i, p in enumerate(event.steps, start=first)
    ]
    s.anchors = policy.anchors(s, s.plan)
    s.output = None
    if policy.stops_at(s, "after_plan"):
        return ask_person(s, event, "after_plan")
    return advance(s, event, policy)


def _same_plan(plan: list[Step], steps: list[ProposedStep]) -> bool:
    """Whether a new plan does what the steps of ``plan`` still to run do, the same tools with the same values."""
    left = [(x.tool, x.params) for x in plan if x.status not in ("done", "failed")]
    return bool(steps) and left == [(p.tool, p.params) for p in steps]


def replan(s: RunState, event: Decided | StepFinished, reason: str, asked: MakePlan | None = None) -> Result:
    """A new plan; ``asked``: the correction behind it (where it was made), so one that changes nothing goes back."""
    s.rejected_plans.append([PlannedStep(tool=x.tool, params=x.params, reason=x.reason) for x in s.plan])
    s.retry_step = None
    s.retry_failures = 0
    s.return_anchor = None
    effects: list[Effect] = [Notify(text=reason)] if reason else []
    state, more = start_work(s, asked or MakePlan(), "replanning")
    return state, effects + more


# --- execution -------------------------------------------------------------


def advance(s: RunState, event: Event, policy: SafetyPolicy) -> Result:
    """Run the next pending step, or gate it (unless the policy says it may run), or produce the result."""
    step = next((x for x in s.plan if x.status == "pending"), None)
    if step is None:
        return start_work(s, Summarize(), "summarizing")
    if not policy.may_run(s, step):
        if rule_scope(s) is not None and not s.takeover:
            return start_work(s, MatchRule(number=step.number), "executing")  # a standing rule may answer it
        return _gate(s, event, step)
    return run_step(s, step, policy)


def _gate(s: RunState, event: Event, step: Step) -> Result:
    return ask_person(s, event, "before_risky_step", step.number, digest=step.digest)


def on_rule_checked(s: RunState, event: RuleChecked, policy: SafetyPolicy) -> Result:
    if not isinstance(s.inflight, MatchRule) or s.inflight.number != event.number:
        raise InvalidDecision(f"Run {s.id} was not looking up a rule for step {event.number}.")
    s.inflight = None
    step = s.step(event.number)
    rule = event.rule
    if rule is None or not policy.rule_applies(s, step, rule):
        s, effects = _gate(s, event, step)
        if s.pending is not None:
            s.pending.offer = policy.always_offer(s, s.pending, event.history)
        return s, effects
    # Nobody is asked; the approval is the rule's, and the audit says so.
    step.approved_digest = step.digest
    step.approved_by = f"rule:{rule.id}"
    step.approved_scope = rule.target
    return run_step(s, step, policy)


def run_step(s: RunState, step: Step, policy: SafetyPolicy) -> Result:
    """Start ``step``: the one way any step runs, so none gets past the gate its policy puts before it."""
    if not policy.may_run(s, step):
        raise InvalidDecision(f"Step {step.number} needs an approval of its exact parameters first; nothing changed.")
    if s.executed >= s.policy.max_steps:
        s.error = f"Step limit reached: a run may execute at most {s.policy.max_steps} steps."
        return finish_run(s, "failed")
    step.status = "running"
    step.attempts += 1
    step.started_at = s.updated_at
    step.result = None
    step.error = None
    s.executed += 1
    return start_work(s, RunStep(number=step.number), "retrying" if s.retry_step == step.number else "executing")


def on_step_finished(s: RunState, event: StepFinished, policy: SafetyPolicy) -> Result:
    step = s.step(event.number)
    if step.status != "running":
        raise InvalidDecision(f"Step {event.number} of run {s.id} is not running.")
    s.inflight = None
    step.finished_at = event.at
    step.status = "done" if event.ok else "failed"
    step.result = event.result
    step.error = event.error
    step.timed_out = event.timed_out
    if s.takeover:
        return ask_person(s, event, "takeover", step.number)
    retried = s.retry_step == step.number
    if not event.ok:
        step.answers = not_replies(step.answers)
        if retried:
            s.retry_failures += 1
            if s.retry_failures >= 2:
                return replan(s, event, f"Step {step.number} failed again after two corrections; replanning.")
        return ask_person(s, event, "step_failed", step.number)
    if retried and s.return_anchor == "after_risky_step":
        s.return_anchor = None
        return ask_person(s, event, "after_risky_step", step.number)
    if policy.stops_after(s, step):
        return ask_person(s, event, "after_risky_step", step.number)
    return advance(s, event, policy)


def on_step_revised(s: RunState, event: StepRevised, policy: SafetyPolicy) -> Result:
    step = s.step(event.number)
    work = s.inflight
    # at a review where the step has not run, the same values again change nothing (elsewhere they run it again)
    unchanged = event.params == step.params and step.status == "pending"
    if isinstance(work, ReviseStep) and work.anchor is not None and unchanged:
        values = ", ".join(f"{k}={v}" for k, v in step.params.items()) or "no parameters"
        reason = (
            f"That changes nothing in step {step.number} (`{step.tool}` keeps {values}). "
            "Say the value to use, e.g. 'use 5 replicas' or '改成 checkout'."
        )
        return revision_refused(s, event, work, reason)
    s.inflight = None
    learned = lessons.revised(s, step, event.params)
    changes = value_changes(step.params, event.params)
    said = step_changed(step, event.params)  # in words, old → new, before the step takes its new values
    if changes:  # the reason follows the change: the old one argued for the old values
        heard = next((f.text for f in reversed(s.feedback) if f.step in (None, step.number)), "")
        step.reason = f"Changed {changes} from your feedback" + (f": “{heard[:200]}”" if heard else ".")
    step.params = event.params
    step.approved_digest = None
    step.approved_by = None
    anchor = s.return_anchor
    if anchor == "after_plan":
        s.return_anchor = None
        note = said or f"Step {step.number} revised from your feedback."
        state, effects = ask_person(s, event, "after_plan", note=note)
        return state, learned + effects
    step.status = "pending"
    step.result = None
    step.error = None
    state, effects = advance(s, event, policy)
    told: list[Effect] = [Notify(text=said)] if said else []
    return state, learned + told + effects


def revision_refused(
    s: RunState,
    event: StepRevised | ReviseFailed | PlanProposed | OutputReady,
    work: ReviseStep | MakePlan | RefineOutput,
    reason: str,
) -> Result:
    """A correction that cannot be applied: back to the review it was made at, saying why, with
    nothing counted (the correction is not kept as feedback and uses up no retry)."""
    s.inflight = None
    lessons.dropped(s)
    s.retries = max(0, s.retries - 1)
    if s.feedback:
        s.feedback.pop()
    if isinstance(work, RefineOutput):  # a result is refined only at its own review
        return ask_person(s, event, "before_result", note=reason)
    assert work.anchor is not None
    s.retry_step, s.retry_failures = work.was_retrying, work.was_failures
    s.return_anchor = None
    step = s.step(work.review_step) if work.review_step is not None else None
    digest = step.digest if step is not None and work.anchor == "before_risky_step" else None
    return ask_person(s, event, work.anchor, work.review_step, digest=digest, note=reason)
