"""Reaching an MCP server's question in Slack: the run's reviews approved until the question shows."""

from __future__ import annotations

from blocks import ids
from tests.scenario.harness import Env, text_of
from workspace.models import Message


async def question_of(env: Env, card: Message, after: Message | None = None) -> Message:
    """The run's next review, approving what comes before its next question."""
    review = await env.next_review(card, after=after, within=30)
    while "needs an answer" not in text_of(review):
        await env.click("alice", review, ids.APPROVE)
        review = await env.next_review(card, after=review, within=30)
    return review
