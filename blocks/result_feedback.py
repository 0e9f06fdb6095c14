"""👍/👎 under a finished run's result: Slack's ``feedback_buttons`` in a ``context_actions`` block."""

from __future__ import annotations

import json

from blocks import ids
from blocks.text import Block


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
