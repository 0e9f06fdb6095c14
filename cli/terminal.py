"""The interactive terminal loop of ``tandem run`` and ``tandem resume``: show each review, read the answer."""

from __future__ import annotations

import sys
from typing import assert_never

from agent.correction_messages import reading_detail
from agent.errors import TandemError
from agent.models import (
    Answer,
    Approve,
    Cancel,
    Correct,
    Decision,
    Finish,
    HandBack,
    Intent,
    Reading,
    RunState,
)
from agent.usecases import AlreadyDecided, Answered, Applied, Asked, NeedsButton, NotApplied, Outcome, Refused
from cli.mrkdwn import use_color
from cli.render import outcome_text, plain, review_text
from cli.wiring import Services


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


def _sure_to_cancel(state: RunState) -> bool:
    """Ask before cancelling, as the browser does; anything but yes (or end of input) keeps the run."""
    answer = (_ask(f"Cancel run {state.id}? [y/N] > ") or "").strip().lower()
    if answer in ("y", "yes"):
        return True
    print("Not cancelled; nothing changed.")
    return False


async def interact(services: Services, state: RunState, user: str) -> int:
    """Show each review and apply what the person types until the run ends.

    Returns the exit code: 0 when the run is done or input ends (paused), 1 otherwise.
    """
    runtime = services.runtime
    color = use_color(sys.stdout)
    while not state.finished:
        review = state.pending
        if review is None:
            state = await runtime.recover(state.id)
            if state.pending is None and not state.finished:
                print(f"Run {state.id} is {state.status} in another process; try `tandem resume {state.id}` later.")
                return 1
            continue
        print()
        print(review_text(state, review, runtime.safety, color=color))
        if review.anchor == "handoff" and review.handoff is not None:
            line = _ask("answer (or 'cancel') > ")
            if line is None:
                print(f"\nPaused. Nothing is lost: `tandem resume {state.id}` continues here.")
                return 0
            if line.strip().lower() in ("c", "cancel"):
                if _sure_to_cancel(state):
                    state = await _decide_or_say(services, state, Cancel(), user, review.id)
                continue
            options = review.handoff.options
            value = line.strip()
            if review.handoff.input_type == "choice" and value.isdigit() and 1 <= int(value) <= len(options):
                value = options[int(value) - 1]
            state = await _decide_or_say(services, state, Answer(value=value), user, review.id)
            continue
        if state.takeover:
            line = _ask("instruction / finish / hand back / cancel > ")
        else:
            line = _ask("[a]pprove  [r]equest changes  [c]ancel  — or type feedback > ")
        if line is None:
            print(f"\nPaused. Nothing is lost: `tandem resume {state.id}` continues here.")
            return 0
        text = line.strip()
        low = text.lower()
        try:
            if not text:
                continue
            if low in ("c", "cancel"):
                if _sure_to_cancel(state):
                    state = await _decide_or_say(services, state, Cancel(), user, review.id)
            elif state.takeover and low in ("finish", "done"):
                state = await _decide_or_say(services, state, Finish(), user, review.id)
            elif state.takeover and low in ("hand back", "handback"):
                state = await _decide_or_say(services, state, HandBack(), user, review.id)
            elif not state.takeover and low in ("a", "approve", "y", "yes"):
                state = await _decide_or_say(services, state, Approve(), user, review.id)
            elif not state.takeover and low in ("r", "request changes"):
                state = await _request_changes(services, state, user)
            else:
                reading, decision, review_id = await runtime.read(state.id, text, review_id=review.id)
                if decision is None:  # a question: answered, nothing changes
                    assert reading is not None
                    asked = await services.usecases.reply_to_question(state.id, review_id, reading, text, user)
                    state = await _shown(services, state, asked)
                    continue
                if reading is not None:
                    if reading.fallback:
                        print("Tandem could not read that; nothing changed. Say it in other words, or use a/r/c.")
                        continue
                    print(read_as(reading))
                    if runtime.unsure(reading):
                        sure = (
                            _ask(f"Not sure ({reading.confidence:.0%}). Apply it like that? [y/N] > ") or ""
                        ).strip()
                        if sure.lower() not in ("y", "yes"):
                            print("Nothing changed. Say it in other words, or use a/r/c.")
                            continue
                        reading = None  # the person chose this reading themselves, as with a button
                state = await _decide_or_say(services, state, decision, user, review_id, reading=reading)
        except TandemError as exc:
            print(f"error: {plain(str(exc))}", file=sys.stderr)
            state, _ = await services.store.load(state.id)
    print()
    print(outcome_text(state, color=color))
    return 0 if state.status == "done" else 1


async def _decide_or_say(
    services: Services,
    state: RunState,
    decision: Decision,
    user: str,
    review_id: str,
    *,
    reading: Reading | None = None,
) -> RunState:
    """Apply a decision through the use cases; say what did not take effect, and go on from the run as it is."""
    return await _shown(services, state, await services.usecases.decide(review_id, decision, user, reading=reading))


async def _shown(services: Services, state: RunState, outcome: Outcome) -> RunState:
    """Say what did not take effect (or the answer to a question), and go on from the run as it is."""
    match outcome:
        case Applied(state=applied):
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
    fresh, _ = await services.store.load(state.id)
    return fresh


async def _request_changes(services: Services, state: RunState, user: str) -> RunState:
    assert state.pending is not None
    print(
        "What is wrong?  1) the plan's direction  2) one step's parameters"
        "  3) only the output's format  4) let Tandem decide"
    )
    choice = (_ask("1-4 > ") or "4").strip()
    feedback = (_ask("Feedback > ") or "").strip()
    if not feedback:
        print("Feedback is required to request changes; nothing changed.")
        return state
    intents: dict[str, Intent] = {"1": "replan", "2": "retry_step", "3": "refine_output"}
    if choice in intents:
        step = None
        if choice == "2":
            raw = (_ask(f"Which step? [{state.pending.step or ''}] > ") or "").strip()
            step = int(raw) if raw.isdigit() else state.pending.step
        decision = Correct(intent=intents[choice], target_step=step, feedback=feedback)
        return await _decide_or_say(services, state, decision, user, state.pending.id)
    outcome = await services.usecases.say(state.id, feedback, user, review_id=state.pending.id, rejecting=True)
    match outcome:
        case Applied(state=new, reading=reading):
            if reading is not None:
                print(read_as(reading))
            return new
        case Asked(reading=reading):
            print(
                f"Not sure what should change (best guess: {reading_text(reading)}); nothing changed. "
                "Pick 1, 2 or 3 next time, or say it in other words."
            )
        case Answered(answer=answer):
            print(plain(answer))
        case Refused(refusal=refusal):
            print(f"error: {plain(refusal.describe())}", file=sys.stderr)
        case AlreadyDecided(message=message) | NeedsButton(message=message) | NotApplied(message=message):
            print(f"error: {plain(message)}", file=sys.stderr)
        case _:
            assert_never(outcome)
    fresh, _ = await services.store.load(state.id)
    return fresh


def read_as(reading: Reading) -> str:
    """``Read as: retry step 2``, with why where that helps (a step's new values are shown once it has them)."""
    detail = reading_detail(reading)
    return f"Read as: {reading_text(reading)}" + (f" — {detail}" if detail else "")


def reading_text(reading: Reading) -> str:
    """``retry step 2``, ``replan``, ``approve``…"""
    if reading.intent == "retry_step" and reading.target_step:
        return f"retry step {reading.target_step}"
    return reading.intent.replace("_", " ")
