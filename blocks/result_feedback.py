"""Under a done run's result: 👍/👎 (Slack's ``feedback_buttons`` in a ``context_actions`` block), and the
full result behind "Show details" (a run delivered without a result review has no review to open it from)."""

from __future__ import annotations

import json

from blocks import ids
from blocks.text import Block, actions, details_button

RUN_DETAILS = "run:"
"""A "Show details" value that names a run (its result), not a review."""


def vote_value(run_id: str, vote: str) -> str:
    return json.dumps({"run": run_id, "vote": vote})


def result_feedback(run_id: str) -> Block:
    """Was the result useful? Each vote is recorded once per person (the latest counts)."""
    return {
        "type": "context_actions",
        "elements": [
            {
                "type": "feedback_buttons",
                "action_id": ids.RESULT_FEEDBACK,
                "positive_button": {
                    "text": {"type": "plain_text", "text": "👍"},
                    "accessibility_label": "The result was useful",
                    "value": vote_value(run_id, "up"),
                },
                "negative_button": {
                    "text": {"type": "plain_text", "text": "👎"},
                    "accessibility_label": "The result was not useful",
                    "value": vote_value(run_id, "down"),
                },
            }
        ],
    }


def result_details_button(run_id: str) -> Block:
    """Opens the run's full result and its steps' full outputs (see ``blocks.modals.result_details``)."""
    return actions(details_button(RUN_DETAILS + run_id))
