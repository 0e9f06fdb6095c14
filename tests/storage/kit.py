"""Runs and audit lines for the storage tests."""

from __future__ import annotations

from agent.models import AuditEvent, RunState
from bot.origin import SlackThread

T0 = 1_000_000.0


def run(run_id: str = "r1", *, at: float = T0, channel: str = "C1", **fields: object) -> RunState:
    data: dict[str, object] = {
        "id": run_id,
        "task": "restart payments",
        "requester": "U1",
        "created_at": at,
        "updated_at": at,
        "origin": SlackThread(channel_id=channel, thread_ts=f"{at}.{run_id}"),
    }
    data.update(fields)
    return RunState.model_validate(data)


def event(kind: str, at: float = T0) -> AuditEvent:
    return AuditEvent(at=at, actor="U1", kind=kind, payload={"n": 1})
