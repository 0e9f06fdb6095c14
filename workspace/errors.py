"""One base exception for the workspace package.

:class:`SlackFailure` is how a Web API method says no: the API layer turns it
into Slack's ``{"ok": false, "error": ...}`` body. :class:`ScenarioError` is a
test asking a person to do something they could not do in Slack (click a
button that is not on the message, submit someone else's modal).
"""

from __future__ import annotations

from typing import Any


class WorkspaceError(Exception):
    """Base of every failure raised by the local workspace."""


class SlackFailure(WorkspaceError):
    """A Web API call failed the way Slack would fail it."""

    def __init__(self, error: str, *, status: int = 200, **extra: Any) -> None:
        super().__init__(error)
        self.error = error
        self.status = status
        self.extra = extra

    def body(self) -> dict[str, Any]:
        return {"ok": False, "error": self.error, **self.extra}


class ScenarioError(WorkspaceError):
    """A person action that Slack's own client would not allow."""
