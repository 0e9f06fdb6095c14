"""A request as the inbox keeps it (see :mod:`agent.inbox`)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel


class Inbound(BaseModel):
    """One request as it was received: ``source`` names who replays it, ``body`` is what it carried (JSON)."""

    key: str
    source: str
    body: str
    received_at: float
    status: Literal["pending", "done", "failed"] = "pending"
    attempts: int = 0
