"""An API token as storage keeps it (see :mod:`agent.tokens`): never the token itself, only its hash."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

Scope = Literal["handoffs:write", "handoffs:read", "runs:write"]
"""``runs:write`` starts runs over A2A and steers and reads them (see :mod:`api.a2a`)."""
SCOPES: tuple[Scope, ...] = ("handoffs:write", "handoffs:read", "runs:write")


class ApiToken(BaseModel):
    """A named token for software calling Tandem's API. ``token_hash`` is the SHA-256 of the token (hex);
    ``webhook_secret`` signs the webhooks sent to this token's callbacks (Tandem must hold it to sign)."""

    name: str
    scopes: list[Scope]
    token_hash: str
    webhook_secret: str
    created_by: str
    created_at: float
    expires_at: float | None = None
    revoked_by: str | None = None
    revoked_at: float | None = None

    @property
    def principal(self) -> str:
        """Who the token acts as in the audit trail."""
        return f"token:{self.name}"

    def state(self, now: float) -> Literal["active", "expired", "revoked"]:
        if self.revoked_at is not None:
            return "revoked"
        if self.expires_at is not None and now >= self.expires_at:
            return "expired"
        return "active"


class TaskRecord(BaseModel):
    """A run started by a token over A2A (see :mod:`api.a2a`): the task is the run (``id``), in the caller's
    ``context_id``, started by the message ``message_id`` (sent again, it finds this run instead of starting one)."""

    id: str
    token: str
    context_id: str
    message_id: str
    created_at: float


class AskedRecord(BaseModel):
    """A handoff asked through the API: the run that asks it (``id``, the run's id), the token that asked,
    its idempotency key, and where to send the answer."""

    id: str
    token: str
    idempotency_key: str | None = None
    callback_url: str | None = None
    created_at: float
