"""Slack listeners. Each one parses its payload first, acks at once, and hands
slow work (database, model, tools) to the app's background tasks.

This module only composes the surfaces; each surface module registers its own:
:mod:`bot.commands` (``/tandem``), :mod:`bot.reviews` (review buttons),
:mod:`bot.handoffs` (answers and clarify buttons), :mod:`bot.rules`
(always-allow rules), :mod:`bot.lessons` (forgetting a lesson), :mod:`bot.feedback` (the feedback modal) and
:mod:`bot.threads` (thread replies and mentions), :mod:`bot.home` (the App Home tab) and
:mod:`bot.result_feedback` (👍/👎 on results).
"""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from bot import commands, feedback, handoffs, home, lessons, result_feedback, reviews, rules, threads
from bot.commands import COMMAND, SUBCOMMANDS
from bot.deps import Deps
from bot.handoffs import ANSWER_BUTTONS, CLARIFY_BUTTONS
from bot.threads import EVENTS as THREAD_EVENTS

EVENTS = (*THREAD_EVENTS, home.EVENT)

__all__ = ["ANSWER_BUTTONS", "CLARIFY_BUTTONS", "COMMAND", "EVENTS", "SUBCOMMANDS", "Deps", "register"]


def register(app: AsyncApp, deps: Deps) -> None:
    """Attach every Tandem listener to ``app``."""
    commands.register(app, deps)
    reviews.register(app, deps)
    handoffs.register(app, deps)
    rules.register(app, deps)
    lessons.register(app, deps)
    feedback.register(app, deps)
    threads.register(app, deps)
    home.register(app, deps)
    result_feedback.register(app, deps)
