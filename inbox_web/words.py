"""What the inbox says to people (the words, in one place)."""

from __future__ import annotations

from datetime import UTC, datetime

from agent.models import render_mentions

DONE = {
    "approve": "Approved. The run goes on.",
    "approve_always": "Approved, and this tool runs here without asking from now on.",
    "request_changes": "Changes requested. The run takes them up.",
    "cancel": "Cancelled. Nothing more of this run will happen.",
    "answer": "Answered. Whoever asked has your answer.",
    "decline": "Declined. The server that asked was told you decline to answer.",
}
EMPTY_ANSWER = "The answer is empty; type or pick an answer. Nothing changed."
EMPTY_FEEDBACK = "Say what should change. Nothing changed."
PICK_INTENT = "Pick what should change: the plan, the step again, or the result. Nothing changed."
NOT_FOUND = "Nothing here for you: this request is unknown, or it is not yours to see."
SIGN_IN = "Sign in to see what waits for you."
BAD_FORM = "That form could not be read: {error}. Nothing changed."
SIGNIN_EXPIRED = "This sign-in was started in another browser, or long ago, or already used; nothing was signed in."
SIGNIN_DENIED = "The sign-in was not allowed ({error}); nothing was signed in."
GONE = "This request was decided or withdrawn elsewhere; nothing waits for you here now."


def asked(intent: str) -> str:
    return f"Tandem was not sure what you meant (it read it as {intent}); its thread asks. Nothing changed yet."


def already(message: str, by: str | None) -> str:
    return message if by is None or by in message else f"{message} (by {by})"


def when(at: float | None) -> str:
    """``2026-12-04 14:02 UTC``, or '' for no time."""
    return "" if at is None else datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M UTC")


def prose(text: str) -> str:
    """Core prose with its mention and time markers written out for a web page (escaped by the template)."""
    return render_mentions(text, lambda p: f"@{p.id}", when)
