"""*Request changes* at the terminal: what is wrong (1-4), the feedback, and for a step's parameters which step.

Nothing typed is lost: words typed where a number is asked are the feedback (Tandem reads what kind of
change they ask for), and a number typed where feedback is asked is never applied as a correction: it is
asked again, since "4" alone says nothing about what should change.
"""

from __future__ import annotations

import re

from agent.correction_messages import reading_detail
from agent.models import Correct, Intent, Reading, RunState
from agent.usecases import Applied, Asked
from cli import messages
from cli.session import Session, ask

INTENTS: dict[str, Intent] = {"1": "replan", "2": "retry_step", "3": "refine_output"}
LET_TANDEM_DECIDE = "4"
_NUMBER = re.compile(r"\d+")


def read_as(reading: Reading) -> str:
    """``Read as: retry step 2``, with why where that helps (a step's new values are shown once it has them)."""
    detail = reading_detail(reading)
    return f"Read as: {reading_text(reading)}" + (f" — {detail}" if detail else "")


def reading_text(reading: Reading) -> str:
    """``retry step 2``, ``replan``, ``approve``…"""
    if reading.intent == "retry_step" and reading.target_step:
        return f"retry step {reading.target_step}"
    return reading.intent.replace("_", " ")


def _choice() -> tuple[str, str | None]:
    """The option chosen (Enter or the end of input: let Tandem decide), and the feedback if it was typed here."""
    while True:
        text = (ask(messages.CHOICE_PROMPT) or "").strip()
        if not text:
            return LET_TANDEM_DECIDE, None
        if text in (*INTENTS, LET_TANDEM_DECIDE):
            return text, None
        if _NUMBER.fullmatch(text):
            print(messages.NO_SUCH_CHOICE.format(choice=text))
            continue
        print(messages.TAKEN_AS_FEEDBACK)
        return LET_TANDEM_DECIDE, text


def _feedback() -> str:
    """What should change, in words; empty when the person gave none (Enter, or the end of input)."""
    while True:
        text = (ask(messages.FEEDBACK_PROMPT) or "").strip()
        if not _NUMBER.fullmatch(text):
            return text
        print(messages.NUMBER_IS_NOT_FEEDBACK.format(number=text))


def _step(state: RunState, default: int | None) -> int | None:
    """The step whose parameters are wrong: a number of the run's steps, or Enter for ``default``."""
    last = max((s.number for s in (*state.history, *state.plan)), default=0)
    while True:
        raw = (ask(messages.STEP_PROMPT.format(default=default or "")) or "").strip()
        if not raw:
            return default
        if raw.isdigit() and 1 <= int(raw) <= last:
            return int(raw)
        print(messages.NO_SUCH_STEP.format(step=raw, last=last))


async def request_changes(session: Session, state: RunState) -> RunState:
    """Ask what is wrong and apply it at the pending review; nothing changes without feedback in words."""
    pending = state.pending
    assert pending is not None
    print(messages.WHAT_IS_WRONG)
    choice, feedback = _choice()
    feedback = feedback or _feedback()
    if not feedback:
        print(messages.FEEDBACK_REQUIRED)
        return state
    if choice in INTENTS:
        step = _step(state, pending.step) if choice == "2" else None
        decision = Correct(intent=INTENTS[choice], target_step=step, feedback=feedback)
        return await session.decide(state, decision, pending.id)
    usecases = session.services.usecases
    outcome = await usecases.say(state.id, feedback, session.user, review_id=pending.id, rejecting=True)
    if isinstance(outcome, Applied) and outcome.reading is not None:
        print(read_as(outcome.reading))
    elif isinstance(outcome, Asked):
        print(
            f"Not sure what should change (best guess: {reading_text(outcome.reading)}); nothing changed. "
            "Pick 1, 2 or 3 next time, or say it in other words."
        )
    return await session.shown(state, outcome)  # says what did not take effect
