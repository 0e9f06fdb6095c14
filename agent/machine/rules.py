"""Standing rules in the machine: the rule an "approve and always allow" makes, and the rules a correction suspends.

A rule covers its tool for the target values of the call it was given on (``call_scope``):
approved with always allow on ``restart_service(service=payments)``, it lets later
``restart_service`` calls for payments run unasked, and nothing else.
"""

from __future__ import annotations

from agent import messages
from agent.models import (
    AddRule,
    Approve,
    Cancel,
    Correct,
    Decided,
    Effect,
    Notify,
    Review,
    Rule,
    RuleSuspension,
    RunState,
    Step,
    SuspendRule,
    call_scope,
    param_shape,
    scope_label,
)
from agent.models.rules import POLICY_RULE
from agent.policy import rule_scope


def remembered(s: RunState, event: Decided, review: Review, step: Step) -> list[Effect]:
    """The rule an approval with always allow makes (stored with the approval), and the line that says so;
    none for any other decision. The machine refused the remembering already where the policy forbids it."""
    decision = event.decision
    channel = rule_scope(s)
    if review.anchor != "before_risky_step" or not isinstance(decision, Approve) or not decision.remember:
        return []
    if channel is None:
        return []
    target = call_scope(step.params)
    rule = Rule(
        id=event.nonce[:8] or review.id[:8],
        channel=channel,
        tool=step.tool,
        created_by=event.by,
        created_at=event.at,
        target=target,
    )
    return [AddRule(rule=rule), Notify(text=messages.rule_set(step.tool, scope_label(target), event.by))]


def suspensions(s: RunState, review: Review, event: Decided) -> list[Effect]:
    """A correction or a cancel of a step a standing rule let run suspends that rule (it is kept, marked
    suspended, and no longer applies), and the run's thread is told which rule (its scope), in the
    decision's own transaction."""
    decision = event.decision
    if not isinstance(decision, Correct | Cancel) or review.anchor in ("handoff", "takeover", "takeover_step"):
        return []
    numbers = {review.step}
    if isinstance(decision, Correct):
        numbers.add(decision.target_step)
    effects: list[Effect] = []
    seen: set[str] = set()
    for step in s.plan:
        by = step.approved_by or ""
        if step.number not in numbers or not by.startswith("rule:") or by in seen:
            continue
        seen.add(by)
        verb = "corrected" if isinstance(decision, Correct) else "rejected"
        reason = f"step {step.number} (`{step.tool}`), which it let run, was {verb}"
        label = scope_label(step.approved_scope)
        if by.startswith(f"rule:{POLICY_RULE}"):  # the policy file's: kept, and the thread told so
            effects.append(Notify(text=messages.rule_kept(step.tool, label, event.by, verb, step.number)))
            continue
        scoped = step.approved_scope is not None
        suspension = RuleSuspension(
            rule_id=by.removeprefix("rule:"),
            tool=step.tool,
            by=event.by,
            at=event.at,
            reason=reason,
            shape=param_shape(step.tool, step.params) if scoped else None,
        )
        text = messages.rule_suspended(step.tool, label, event.by, verb, step.number)
        effects += [SuspendRule(suspension=suspension), Notify(text=text)]
    return effects
