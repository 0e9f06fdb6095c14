"""Rows to models and back, for the PostgreSQL store (the same encodings as the SQLite one).

Where a run lives is read in :func:`place` only, so a change of how runs carry their
origin is one edit here.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter

from agent.errors import StaleDecision
from agent.messages import decided_verb
from agent.models import Delivery, ReviewRecord, RunState, RunSummary, decode_outgoing, mention

STATE = TypeAdapter(RunState)

REVIEW_COLUMNS = ("id", "run_id", "anchor", "step", "status", "created_at", "answered_at", "answered_by", "answer")
DELIVERY_COLUMNS = (
    "id",
    "run_id",
    "channel",
    "message",
    "status",
    "attempts",
    "created_at",
    "next_at",
    "sent_at",
    "error",
)
SUMMARY_COLUMNS = ("id", "task", "requester", "status", "created_at", "updated_at", "channel", "pending_review")


def place(state: RunState) -> tuple[str | None, str | None]:
    """Where a run lives: (the scope it is listed under, the key of its thread), from its origin."""
    return state.origin.scope, state.origin.thread


def dump_state(state: RunState) -> str:
    return state.model_dump_json(exclude_defaults=True)


def to_json(value: dict[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), default=str)


def review(row: Sequence[Any]) -> ReviewRecord:
    data = dict(zip(REVIEW_COLUMNS, row, strict=True))
    data["answer"] = json.loads(data["answer"]) if data["answer"] else None
    return ReviewRecord.model_validate(data)


def delivery(row: Sequence[Any]) -> Delivery:
    data = dict(zip(DELIVERY_COLUMNS, row, strict=True))
    data["message"] = decode_outgoing(data["message"])
    if data["status"] == "sending":  # being sent by a worker whose claim may have died: still to deliver
        data["status"] = "pending"
    return Delivery.model_validate(data)


def summary(row: Sequence[Any]) -> RunSummary:
    data = dict(zip(SUMMARY_COLUMNS, row, strict=True))
    data["scope"] = data.pop("channel")
    return RunSummary.model_validate(data)


def stale(review_id: str, record: ReviewRecord | None) -> StaleDecision:
    """Why an answer to ``review_id`` came too late (who answered first, when someone did)."""
    if record is None:
        return StaleDecision(f"Unknown review '{review_id}'.")
    if record.status == "answered":
        return StaleDecision(
            f"Already {decided_verb(record.answer)} by {mention(record.answered_by or '?')}.",
            decided_by=record.answered_by,
            decided_at=record.answered_at,
        )
    return StaleDecision("This request is no longer open: the run has moved on.")
