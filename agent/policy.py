"""The one place that answers every safety question.

The machine asks it, the runtime asks it, channels ask it to show the right
buttons; nothing else hard-codes a threshold. Each answer is a pure function of
the configuration (:class:`~agent.config.PolicyConfig`), the run and its review:

* **may this step run now**, where does the run stop, what is safe to repeat after a crash, and every
  risk threshold (:class:`~agent.gates.GateRules`, answered from the run's stored policy snapshot alone:
  :meth:`~agent.gates.GateRules.may_run`, :meth:`~agent.gates.GateRules.anchors`,
  :meth:`~agent.gates.GateRules.stops_after`, :meth:`~agent.gates.GateRules.still_needed`);
* **what a review gets when it opens**: quorum, reminder, deadline, strategy (:meth:`SafetyPolicy.open`);
* **what its deadline does** (:meth:`SafetyPolicy.on_deadline`): a gate's deadline never approves it;
* **may this approval become a standing rule**, and does a rule cover this step
  (:meth:`SafetyPolicy.may_remember`, :meth:`SafetyPolicy.rule_applies`, :meth:`SafetyPolicy.may_widen`):
  never under a quorum, never a deploy;
* **has a gate earned the "always allow" offer** from its history (:meth:`SafetyPolicy.always_offer`);
* **does a re-run need a person** (:meth:`~agent.gates.GateRules.rerun_needs_person`: the same "safe to
  repeat" rule that lets a commit skip the disk, :meth:`~agent.gates.GateRules.replayable`);
* **may free text decide this** (:meth:`SafetyPolicy.text_sure`, :meth:`SafetyPolicy.text_may_approve`);
* **who may approve, steer, stop or see this run** (:meth:`SafetyPolicy.check`, :meth:`SafetyPolicy.may_stop`);
* **may a reply reopen this finished run**, and who may (:meth:`SafetyPolicy.reopen_refusal`,
  :meth:`SafetyPolicy.may_reopen`): a done run, for a day after it finished, by whoever may correct it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agent import authz
from agent.config import PolicyConfig, Strategy, TimeoutRule
from agent.config_rules import configured_rules
from agent.gates import GateRules
from agent.messages import RULE_IN_POLICY
from agent.models import (
    ASK_TOOL,
    AlwaysOffer,
    Cancel,
    Correct,
    Decision,
    GateDecision,
    Lesson,
    Reading,
    Review,
    Risk,
    Rule,
    RunState,
    Step,
    call_scope,
    param_shape,
    reachable,
    scope_label,
)
from agent.refusal import Refusal

TIMEOUT = "tandem (timeout)"
REOPEN_WITHIN = 24 * 3600.0
"""How long after it is done a correction in its thread reopens a run (later: start a new run)."""


def rule_scope(state: RunState) -> str | None:
    """Where a standing rule of this run lives (its channel), or None where rules do not apply."""
    return state.origin.scope


class SafetyPolicy(GateRules):
    """Every safety question: what may run from the run's own policy snapshot (:class:`GateRules`), the
    rest from the policy configuration."""

    def __init__(self, config: PolicyConfig | None = None) -> None:
        self.config = config or PolicyConfig()

    def review_risk(self, state: RunState, review: Review) -> Risk:
        return authz.review_risk(state, review)

    # --- opening a review --------------------------------------------------------

    def open(self, state: RunState, review: Review) -> None:
        """Give a newly opened review its quorum, reminder, deadline and strategy."""
        if review.anchor != "handoff":
            review.quorum = self.quorum(state, review)
        if review.deadline is not None:
            return  # a tool's question brings its own deadline
        rule = self.timeout_rule(review)
        if rule is None:
            return
        review.deadline = review.created_at + rule.after
        review.remind_at = review.deadline - rule.reminder_lead
        review.strategy = rule.strategy
        review.default = rule.default

    def quorum(self, state: RunState, review: Review) -> int:
        """How many distinct approvals ``review`` needs."""
        if review.anchor == "handoff":
            return review.quorum
        wanted = self.config.quorum_for(self.review_risk(state, review))
        if wanted == "any" or not self.config.has_approvers:
            return 1
        if wanted == "all":
            return authz.approvers(self.config, state, review).count()
        return int(wanted)

    def timeout_rule(self, review: Review) -> TimeoutRule | None:
        return self.config.timeouts.get(review.anchor)  # type: ignore[arg-type]

    # --- deadlines -------------------------------------------------------------------

    def on_deadline(self, state: RunState, review: Review) -> Strategy:
        """What a review's passed deadline does. A gate is never approved by its deadline, and a
        review that needs several approvals is never decided by one default."""
        strategy: Strategy = review.strategy or "pause"
        if strategy == "use_default" and review.anchor != "handoff":
            if self.is_gate(review) or review.quorum > 1 or self.risky(state, self.review_risk(state, review)):
                return "pause"
        if strategy == "degrade" and not self.is_gate(review):
            return "pause"
        return strategy

    def escalation_answerers(self) -> list[str]:
        """Who may answer an escalated question besides its assignees: everyone the policy names as an approver."""
        everyone = authz.any_approver(self.config)
        return [*sorted(everyone.users), *sorted(everyone.groups)]

    def fresh_deadline(self, review: Review, now: float) -> float:
        """The next deadline after a reassignment: the rule's span again, else as long as it waited."""
        rule = self.timeout_rule(review)
        return now + (rule.after if rule is not None else max(now - review.created_at, 60.0))

    # --- standing rules ------------------------------------------------------------

    def may_remember(self, state: RunState, review: Review) -> str | None:
        """None when approving ``review`` may also create an "always allow" rule; else why not."""
        if review.anchor != "before_risky_step" or review.step is None:
            return "Only a risky step's approval can become an always-allow rule."
        step = state.step(review.step)
        if self.always_asks(step.risk):
            return f"`{step.tool}` deploys: it always asks, and cannot be always-allowed."
        needed = self.quorum(state, review)
        if needed > 1:
            return f"`{step.tool}` needs {needed} approvals here, so it cannot be always-allowed."
        if rule_scope(state) is None:
            return "Always-allow rules belong to a channel; this run has none."
        return None

    def always_offer(self, state: RunState, review: Review, history: Sequence[GateDecision]) -> AlwaysOffer | None:
        """The "always allow" offer a gate earns from its history (newest first): the policy's
        ``[rules] offer_after`` approvals in a row of the same call shape in the channel, none of them
        changed, and only where a rule may be made at all (never a deploy, never under a quorum)."""
        wanted = self.config.rules.offer_after
        if wanted == 0 or review.step is None or self.may_remember(state, review) is not None:
            return None
        recent = list(history[:wanted])
        if len(recent) < wanted or not all(d.approved for d in recent):
            return None
        step = state.step(review.step)
        shape = param_shape(step.tool, step.params)
        return AlwaysOffer(shape=shape, approvals=recent, tool=step.tool, scope=scope_label(call_scope(step.params)))

    def rule_applies(self, state: RunState, step: Step, rule: Rule) -> bool:
        """True when a standing rule may approve ``step`` with nobody asked (re-checked on every use): the
        step is in the rule's scope (its tool, and its target values unless the rule is tool-wide), in the
        rule's channel, no deploy, and one approval would do."""
        if not rule.covers(step.tool, step.params) or rule.channel != rule_scope(state) or self.always_asks(step.risk):
            return False
        gate = Review(id="", anchor="before_risky_step", step=step.number, created_at=0.0)
        return self.quorum(state, gate) == 1

    def configured_rules(self, channel: str | None) -> list[Rule]:
        """The always-allow rules the policy file sets for ``channel`` (``[rules] always_allow``)."""
        return configured_rules(self.config.rules.always_allow, channel) if channel is not None else []

    def may_widen(self, rule: Rule, risk: Risk) -> str | None:
        """None when ``rule`` may be widened to every target of its tool (of ``risk``); else why not: the
        same limits as making a rule (never a deploy, never a tool that needs several approvals)."""
        if rule.from_policy:
            return RULE_IN_POLICY
        if rule.tool_wide:
            return f"The rule for `{rule.tool}` already covers every target; nothing changed."
        if self.always_asks(risk):
            return f"`{rule.tool}` deploys: it always asks, and cannot be always-allowed. Nothing changed."
        wanted = self.config.quorum_for(risk)
        if self.config.has_approvers and wanted != "any" and wanted != 1:
            return f"`{rule.tool}` needs several approvals here, so it cannot be always-allowed. Nothing changed."
        return None

    # --- free text ---------------------------------------------------------------------

    def text_sure(self, reading: Reading) -> bool:
        """True when a reading of free text may be applied as it is (an unreadable one never is)."""
        return not reading.fallback and reading.confidence >= self.config.confidence_threshold

    def text_may_approve(self, state: RunState, review: Review) -> bool:
        return self.text_approves(self.review_risk(state, review))

    # --- who -------------------------------------------------------------------------------

    def check(
        self, state: RunState, review: Review, actor: str, decision: Decision, groups: Iterable[str] = ()
    ) -> Refusal | None:
        """None when ``actor`` may make ``decision`` on ``review``; else why not."""
        return authz.check(self.config, state, review, actor, decision, groups)

    def may_stop(self, state: RunState, actor: str, groups: Iterable[str] = ()) -> Refusal | None:
        """Stopping a run (also while it works) is open to its requester and whoever may approve it."""
        groups = list(groups)
        if actor == state.requester and state.plan and state.plan[0].tool == ASK_TOOL:
            return None  # the software that asked a question through the API may withdraw it
        if state.pending is not None:
            return authz.check(self.config, state, state.pending, actor, Cancel(), groups)
        everyone = authz.any_approver(self.config)
        if actor == state.requester or everyone.has(actor, groups):
            return None
        users = tuple(sorted(everyone.users | {state.requester}))
        return Refusal(actor, "steer or stop this run", users, tuple(sorted(everyone.groups)))

    def may_reopen(self, state: RunState, actor: str, groups: Iterable[str] = ()) -> Refusal | None:
        """Reopening a done run with a correction is open to whoever may correct its result: the requester
        and the approvers (it runs nothing a gate would not stop)."""
        result = Review(id="", anchor="before_result", created_at=state.updated_at)
        return authz.check(self.config, state, result, actor, Correct(intent="replan", feedback=""), groups)

    def reopen_refusal(self, state: RunState, at: float) -> str | None:
        """None when a correction may reopen ``state``; else why not. Only a run that is done reopens (a
        cancelled or failed one was stopped for a reason: start a new run), not one a person finished in
        takeover, and only within :data:`REOPEN_WITHIN` of finishing."""
        if state.status in ("cancelled", "failed"):
            return f"Run {state.id} is {state.status}, so a reply does not reopen it; start a new run."
        if state.status != "done":  # e.g. someone else's reply reopened it a moment ago
            return f"Run {state.id} is open again ({state.status.replace('_', ' ')}); reply when it asks or is done."
        if state.takeover:
            return (
                f"Run {state.id} was finished by a person in takeover, so a reply does not reopen it; start a new run."
            )
        if at - state.updated_at > REOPEN_WITHIN:
            return f"Run {state.id} finished more than a day ago, so a reply does not reopen it; start a new run."
        return None

    def waits_on(self, state: RunState, actor: str, groups: Iterable[str] = ()) -> bool:
        """True when ``actor`` is one of the people the run's pending review waits for."""
        if state.pending is None or state.finished:
            return False
        if authz.approvers(self.config, state, state.pending).has(actor, groups):
            return True
        return not self.config.has_approvers and state.requester == actor

    def waiting_on(self, state: RunState, review: Review) -> tuple[str, ...]:
        """Who ``review`` waits for: its assignees, else whoever may approve it (users, then groups)."""
        if review.assignees:
            return tuple(review.current_assignees)
        eligible = authz.approvers(self.config, state, review)
        return reachable((*sorted(eligible.users), *sorted(eligible.groups)), state.origin)

    def may_revoke(self, rule: Rule, actor: str, groups: Iterable[str] = ()) -> bool:
        """Who set a rule or any approver may revoke it (anyone, while no approvers are configured):
        revoking only makes Tandem ask again. The same people may widen it (see :meth:`may_widen`)."""
        if not self.config.has_approvers or actor == rule.created_by:
            return True
        return authz.any_approver(self.config).has(actor, groups)

    def may_forget(self, lesson: Lesson, actor: str, groups: Iterable[str] = (), run: RunState | None = None) -> bool:
        """Who taught a lesson, the requester of a run it was used in (``run``), or any approver may make
        Tandem forget it (anyone, while no approvers are configured): forgetting only makes the next plan
        start without it."""
        if not self.config.has_approvers or actor == lesson.by:
            return True
        if run is not None and run.requester == actor and any(u.id == lesson.id for u in run.lessons_applied):
            return True
        return authz.any_approver(self.config).has(actor, groups)

    def may_see(self, state: RunState, where: str | None) -> bool:
        """A run is shown where it lives (its channel); the terminal sees every run on its own machine."""
        return where is None or rule_scope(state) == where
