"""Standing "always allow" rules: a channel's rule can answer a risky step's gate at once."""

from __future__ import annotations

from agent.models import Review, Risk, Rule, RunState
from agent.ports import Store


async def _standing_rule(store: Store, state: RunState, review: Review) -> Rule | None:
    """An "always allow" rule of the run's channel that covers this step (never for deploys)."""
    channel = state.channel.get("channel")
    if channel is None or review.step is None:
        return None
    step = state.step(review.step)
    if step.risk >= Risk.DEPLOY:
        return None
    return next((r for r in await store.rules(channel) if r.tool == step.tool), None)
