"""Who may decide what: a pure function of the policy, the run, the review and the person.

* No approvers configured: the requester decides everything (others may not).
* Approvers configured for a level: at that level and above only they approve;
  the requester approves their own run there only if ``allow_self_approval``.
  Below every configured level, the requester and any approver decide.
* Stopping and correcting (request changes, cancel, takeover instructions) is
  open to the requester and everyone who may approve: it never runs anything.
* A handoff with assignees is answered by them only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from agent.config import PolicyConfig
from agent.models import Approve, Decision, Review, Risk, RunState, is_group, reachable
from agent.refusal import Refusal


@dataclass(frozen=True)
class Eligible:
    users: frozenset[str]
    groups: frozenset[str]
    config: PolicyConfig = field(repr=False)

    def has(self, actor: str, actor_groups: Iterable[str] = ()) -> bool:
        if actor in self.users:
            return True
        mine = set(actor_groups)
        return any(g in mine or actor in self.config.groups.get(g, ()) for g in self.groups)

    def count(self) -> int:
        """How many people that is, as far as the policy knows (for quorum 'all')."""
        people = set(self.users)
        for g in self.groups:
            people |= set(self.config.groups.get(g, ()))
        return max(len(people), 1)


def review_risk(state: RunState, review: Review) -> Risk:
    """What approving this review lets run.

    The gate, a recovery re-run, a proposed takeover step and a tool's question
    let that step run: its risk. Approving a plan, an outcome, a failure or a
    result lets only steps below the confirm threshold run (risky ones stop at
    their own gate), so those are read-level decisions.
    """
    if review.anchor in ("before_risky_step", "recovery", "takeover_step", "handoff") and review.step is not None:
        try:
            return state.step(review.step).risk
        except KeyError:
            pass
    return Risk.READ


def split(entries: Iterable[str]) -> tuple[frozenset[str], frozenset[str]]:
    entries = list(entries)
    return (
        frozenset(e for e in entries if not is_group(e)),
        frozenset(e for e in entries if is_group(e)),
    )


def any_approver(config: PolicyConfig) -> Eligible:
    """Everyone the policy names as an approver, at any level."""
    users, groups = split(p for people in config.approvers.values() for p in people)
    return Eligible(users, groups, config)


def approvers(config: PolicyConfig, state: RunState, review: Review) -> Eligible:
    """Who may approve this review."""
    if review.assignees:
        users, groups = split(review.assignees)
        return Eligible(users, groups, config)
    risk = review_risk(state, review)
    level = config.level_for(risk)
    if level is None:
        everyone = any_approver(config)
        return Eligible(everyone.users | {state.requester}, everyone.groups, config)
    users, groups = split(config.approvers[level.label])  # type: ignore[index]
    if config.allow_self_approval:
        users = users | {state.requester}
    elif state.requester in users:
        users = users - {state.requester}
    return Eligible(users, groups, config)


def check(
    config: PolicyConfig,
    state: RunState,
    review: Review,
    actor: str,
    decision: Decision,
    actor_groups: Iterable[str] = (),
) -> Refusal | None:
    """None when ``actor`` may make ``decision`` on ``review``; else why not."""
    actor_groups = list(actor_groups)
    can_approve = approvers(config, state, review)
    if isinstance(decision, Approve) or review.assignees:
        if can_approve.has(actor, actor_groups):
            return None
        note = " (the policy does not let requesters approve their own run here)" if actor == state.requester else ""
        users, groups = _reachable(state, can_approve.users, can_approve.groups)
        return Refusal(actor, _action(state, review), users, groups, note)
    if actor == state.requester or can_approve.has(actor, actor_groups):
        return None
    users, groups = _reachable(state, can_approve.users | {state.requester}, can_approve.groups)
    return Refusal(actor, "steer or stop this run", users, groups)


def _reachable(state: RunState, users: Iterable[str], groups: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Who a refusal names: the people and groups of the run's own platform (see :func:`reachable`)."""
    users, groups = sorted(users), sorted(groups)
    who = set(reachable((*users, *groups), state.origin))
    return tuple(u for u in users if u in who), tuple(g for g in groups if g in who)


def _action(state: RunState, review: Review) -> str:
    if review.anchor == "handoff":
        return "answer this question"
    risk = review_risk(state, review)
    if review.anchor in ("after_plan", "takeover"):
        return "approve this plan"
    if review.anchor == "before_result":
        return "approve this result"
    if risk == Risk.READ:
        return "decide here"
    return f"approve {risk.label} steps"
