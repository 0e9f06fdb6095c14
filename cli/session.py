"""One person at the terminal, attached to one run: the decisions they make through the use cases, what
did not take effect, and what this session already showed them."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import assert_never

from agent.models import Decision, Reading, Review, RunState
from agent.usecases import AlreadyDecided, Answered, Applied, Asked, NeedsButton, NotApplied, Outcome, Refused
from cli.render import NoteShown, plain
from cli.wiring import Services


def ask(prompt: str) -> str | None:
    """A line the person typed; None at the end of input (Ctrl-D)."""
    try:
        return input(prompt)
    except EOFError:
        return None


@dataclass
class Session:
    services: Services
    user: str
    since: float | None = None
    """When this command started: a note of a review made before then is not news (``tandem resume``)."""
    cancelled: bool = False
    """The person here cancelled the run (a success: what they asked for was done)."""
    noted: set[str] = field(default_factory=set)
    """The reviews whose note this session showed: a note is news, told once."""

    def note_shown(self, review: Review) -> NoteShown:
        """How the review's note is shown now: as news, as from before this session, or not again."""
        if review.id in self.noted:
            return "hidden"
        self.noted.add(review.id)
        return "earlier" if self.since is not None and review.created_at < self.since else "new"

    async def decide(
        self, state: RunState, decision: Decision, review_id: str, *, reading: Reading | None = None
    ) -> RunState:
        """Apply a decision through the use cases; say what did not take effect, and go on from the run as it is."""
        outcome = await self.services.usecases.decide(review_id, decision, self.user, reading=reading)
        return await self.shown(state, outcome)

    async def shown(self, state: RunState, outcome: Outcome) -> RunState:
        """Say what did not take effect (or the answer to a question), and go on from the run as it is."""
        match outcome:
            case Applied(state=applied):
                self.cancelled = self.cancelled or applied.status == "cancelled"
                return applied
            case Refused(refusal=refusal):
                print(f"error: {plain(refusal.describe())}", file=sys.stderr)
            case NeedsButton(message=message):
                print(f"{message} Type a to approve it.")
            case AlreadyDecided(message=message) | NotApplied(message=message):
                print(f"error: {plain(message)}", file=sys.stderr)
            case Asked():
                pass
            case Answered(answer=answer):
                print(plain(answer))
            case _:
                assert_never(outcome)
        fresh, _ = await self.services.store.load(state.id)
        return fresh
