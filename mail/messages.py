"""What Tandem's mail and its link pages say (user-facing words in one place)."""

from __future__ import annotations

from typing import Literal

About = Literal["asked", "remind", "escalate"]

SUBJECTS: dict[About, str] = {
    "asked": "Tandem: {what}",
    "remind": "Reminder: {what}",
    "escalate": "Nobody decided in time: {what}",
}
OPENERS: dict[About, str] = {
    "asked": "You are asked to decide.",
    "remind": "This still waits for a decision.",
    "escalate": "Nobody decided this in time; it now waits on you.",
}
CHOICE_LABELS = {
    "approve": "Approve",
    "approve_always": "Approve and always allow",
    "request_changes": "Request changes",
    "cancel": "Cancel the run",
    "answer": "Answer",
    "instruct": "Say the next step",
    "finish": "Finish",
    "hand_back": "Hand back",
}
INPUT_LABELS = {"text": "a written answer", "confirm": "yes or no"}

OPEN_LINK = "Open it in the Tandem inbox (sign-in needed to decide):"
NOT_BY_REPLY = (
    "Replying to this mail does not answer it and reaches nobody: open the link above, sign in, and decide there."
)
LINK_LASTS = "The link works until {until}."


def asked_by(requester: str) -> str:
    """Who asks: a person's id, or the software that asked through an API token (``token:ci``)."""
    return (
        f"{requester.removeprefix('token:')} (software, with an API token)"
        if requester.startswith("token:")
        else requester
    )


UNSERVED = (
    "this server sends no mail (TANDEM_SMTP_URL is not set), so nothing was asked; "
    "ask in a chat channel, or set up mail (README: Email)"
)

LINK_PAGES: dict[str, tuple[int, str, str]] = {
    "expired": (
        410,
        "This link has expired",
        "Links in Tandem's mail work for a limited time, and this one's time is up. Nothing was decided by opening "
        "it. Open the Tandem inbox and sign in to see what still waits for you: {inbox}",
    ),
    "forged": (
        400,
        "This link is not one Tandem made",
        "The link was changed or cut short on its way (some mail programs break long links), so Tandem cannot tell "
        "which item it is for. Nothing was decided. Copy the whole link from the mail, or open the Tandem inbox and "
        "sign in: {inbox}",
    ),
    "off": (
        404,
        "Mail links are not set up here",
        "This Tandem server has no mail secret (TANDEM_MAIL_SECRET), so it cannot check mailed links. Open the Tandem "
        "inbox and sign in: {inbox}",
    ),
}
