"""Every action id, callback id and input id Tandem's Slack surfaces use.

This module is the contract between :mod:`blocks` (which puts the ids on
buttons and views) and ``bot/`` (which registers handlers for them). Buttons
that act on a pending review carry the review id as their ``value``.
"""

from __future__ import annotations

from typing import Final, Literal, get_args

# --- buttons on review messages (value = review id) -------------------------

APPROVE: Final = "tandem.approve"
REJECT: Final = "tandem.reject"
CANCEL: Final = "tandem.cancel"
REQUEST_CHANGES: Final = "tandem.request_changes"
"""Older "Request changes" buttons (still handled); new ones use :data:`REJECT`, the contract id.
Both open the feedback modal (:data:`FEEDBACK_MODAL`)."""
DETAILS: Final = "tandem.details"
"""Opens the details modal (:data:`DETAILS_MODAL`) for the review in ``value``."""
EVIDENCE: Final = "tandem.evidence"
"""Show details of a review's evidence: ``value`` is JSON ``{"run": id, "steps": [numbers]}``; opens
:data:`DETAILS_MODAL` with those steps' exact parameters and whole outputs."""
OVERRIDE: Final = "tandem.override"
""""Not what I meant" under a classified thread reply; reopens the feedback modal."""

ANSWER: Final = "tandem.answer"
"""A choice or yes/no answer to a handoff; ``value`` is JSON ``{"review": id, "answer": value}``."""
ANSWER_SELECT: Final = "tandem.answer_select"
"""A choice from a select menu (more than five options); the option value carries the same JSON."""
ANSWER_TEXT: Final = "tandem.answer_text"
"""Opens :data:`ANSWER_MODAL` for a text answer; ``value`` = review id."""
OPEN_LINK: Final = "tandem.open_link"
"""A link button (an MCP server's URL-mode question): Slack opens the URL; the click is only acknowledged."""
APPROVE_ALWAYS: Final = "tandem.approve_always"
"""Approve and always allow this tool for this step's targets in this channel; ``value`` = review id."""
CLARIFY: Final = "tandem.clarify"
"""What a person meant, when Tandem was unsure: ``value`` is JSON {review, intent, text}."""
REVOKE_RULE: Final = "tandem.revoke_rule"
"""Revoke an "always allow" rule; ``value`` = rule id."""
WIDEN_RULE: Final = "tandem.widen_rule"
"""Widen a scoped "always allow" rule to every target of its tool (behind a confirm dialog); ``value`` = rule id."""
FORGET_LESSON: Final = "tandem.forget_lesson"
"""Stop using a lesson from an earlier correction; ``value`` is JSON ``{"lesson": id, "run": id}`` (run: optional)."""
RESULT_FEEDBACK: Final = "tandem.result_feedback"
"""👍/👎 on a finished run's result (``feedback_buttons``); ``value`` is JSON ``{"run": id, "vote": "up"|"down"}``."""

ACTIONS: Final[frozenset[str]] = frozenset(
    {
        APPROVE,
        REJECT,
        CANCEL,
        REQUEST_CHANGES,
        DETAILS,
        EVIDENCE,
        OVERRIDE,
        ANSWER,
        ANSWER_SELECT,
        ANSWER_TEXT,
        OPEN_LINK,
        APPROVE_ALWAYS,
        REVOKE_RULE,
        WIDEN_RULE,
        FORGET_LESSON,
        CLARIFY,
        RESULT_FEEDBACK,
    }
)

# --- views ------------------------------------------------------------------

FEEDBACK_MODAL: Final = "tandem.feedback"
DETAILS_MODAL: Final = "tandem.details_modal"

ANSWER_MODAL: Final = "tandem.answer_modal"
ANSWER_BLOCK: Final = "answer"
ANSWER_ACTION: Final = "answer"

CALLBACKS: Final[frozenset[str]] = frozenset({FEEDBACK_MODAL, DETAILS_MODAL, ANSWER_MODAL})

# Inputs of the feedback modal: ``view.state.values[BLOCK][ACTION]``.
INTENT_BLOCK: Final = "intent"
INTENT_ACTION: Final = "intent"
FEEDBACK_BLOCK: Final = "feedback"
FEEDBACK_ACTION: Final = "feedback"

# --- intent choices in the feedback modal ------------------------------------

IntentChoice = Literal["replan", "retry_step", "refine_output", "auto"]
"""An :data:`agent.models.Intent`, or ``auto``: let Tandem read the feedback and decide."""

INTENT_CHOICES: Final[tuple[IntentChoice, ...]] = get_args(IntentChoice)
