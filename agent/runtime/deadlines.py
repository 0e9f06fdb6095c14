"""Reminder times and deadlines a newly opened review gets from the policy's time-out rules."""

from __future__ import annotations

from agent.config import PolicyConfig, TimeoutRule
from agent.models import Review


def _timeout_rule(config: PolicyConfig, review: Review) -> TimeoutRule | None:
    kind = review.anchor if review.anchor in config.timeouts else None
    return config.timeouts.get(kind) if kind else None


def _schedule(config: PolicyConfig, review: Review) -> None:
    """Give a newly opened review its reminder and deadline from the policy."""
    if review.deadline is not None:
        return
    rule = _timeout_rule(config, review)
    if rule is None:
        return
    review.deadline = review.created_at + rule.after
    review.remind_at = review.deadline - rule.reminder_lead
    review.strategy = rule.strategy
    review.default = rule.default
