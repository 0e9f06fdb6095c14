"""The interactive terminal loop of ``tandem run`` and ``tandem resume``: show each review, read the answer."""

from __future__ import annotations

import sys

from agent.errors import TandemError
from agent.models import Answer, Approve, Cancel, Finish, HandBack, Review, RunState
from cli.changes import read_as, request_changes
from cli.mrkdwn import use_color
from cli.render import outcome_text, plain, review_text
from cli.session import Session, ask
from cli.wiring import Services

PAUSED = "\nPaused. Nothing is lost: `tandem resume {run}` continues here."


def _sure_to_cancel(state: RunState) -> bool:
    """Ask before cancelling, as the browser does; anything but yes (or end of input) keeps the run."""
    answer = (ask(f"Cancel run {state.id}? [y/N] > ") or "").strip().lower()
    if answer in ("y", "yes"):
        return True
    print("Not cancelled; nothing changed.")
    return False


async def interact(services: Services, state: RunState, user: str, *, since: float | None = None) -> int:
    """Show each review and apply what the person types until the run ends.

    ``since``: when this command started; the note of a review made before then is shown as said earlier.
    Returns the exit code: 0 when the run is done, when the person here cancelled it, or when input ends
    (paused); 1 when it failed or was stopped otherwise.
    """
    session = Session(services, user, since)
    runtime = services.runtime
    color = use_color(sys.stdout)
    shown: str | None = None  # the review on screen: Enter alone asks again without drawing it again
    while not state.finished:
        review = state.pending
        if review is None:
            state = await runtime.recover(state.id)
            if state.pending is None and not state.finished:
                print(f"Run {state.id} is {state.status} in another process; try `tandem resume {state.id}` later.")
                return 1
            continue
        if shown != review.id:
            print()
            print(review_text(state, review, runtime.safety, color=color, note=session.note_shown(review)))
        shown = review.id
        if review.anchor == "handoff" and review.handoff is not None:
            line = ask(
                "answer (or 'decline' / 'cancel') > " if review.handoff.declinable else "answer (or 'cancel') > "
            )
            if line is None:
                print(PAUSED.format(run=state.id))
                return 0
            shown = None
            if line.strip().lower() in ("c", "cancel"):
                if _sure_to_cancel(state):
                    state = await session.decide(state, Cancel(), review.id)
                continue
            options = review.handoff.options
            value = line.strip()
            if review.handoff.input_type == "choice" and value.isdigit() and 1 <= int(value) <= len(options):
                value = options[int(value) - 1]
            declined = review.handoff.declines(value)  # an MCP server's question: the server gets decline
            answer = Answer(value=None, declined=True) if declined else Answer(value=value)
            state = await session.decide(state, answer, review.id)
            continue
        if state.takeover:
            line = ask("instruction / finish / hand back / cancel > ")
        else:
            line = ask("[a]pprove  [r]equest changes  [c]ancel  — or type feedback > ")
        if line is None:
            print(PAUSED.format(run=state.id))
            return 0
        if not line.strip():
            continue
        shown = None
        try:
            state = await _act(session, state, review, line.strip())
        except TandemError as exc:
            print(f"error: {plain(str(exc))}", file=sys.stderr)
            state, _ = await services.store.load(state.id)
    print()
    print(outcome_text(state, color=color))
    return 0 if state.status == "done" or (state.status == "cancelled" and session.cancelled) else 1


async def _act(session: Session, state: RunState, review: Review, text: str) -> RunState:
    """What the person typed at a review (not a question of a tool's), applied; the run as it is then."""
    runtime = session.services.runtime
    low = text.lower()
    if low in ("c", "cancel"):
        return await session.decide(state, Cancel(), review.id) if _sure_to_cancel(state) else state
    if state.takeover and low in ("finish", "done"):
        return await session.decide(state, Finish(), review.id)
    if state.takeover and low in ("hand back", "handback"):
        return await session.decide(state, HandBack(), review.id)
    if not state.takeover and low in ("a", "approve", "y", "yes"):
        return await session.decide(state, Approve(), review.id)
    if not state.takeover and low in ("r", "request changes"):
        return await request_changes(session, state)
    reading, decision, review_id = await runtime.read(state.id, text, review_id=review.id)
    if decision is None:  # a question: answered, nothing changes
        assert reading is not None
        asked = await session.services.usecases.reply_to_question(state.id, review_id, reading, text, session.user)
        return await session.shown(state, asked)
    if reading is not None:
        if reading.fallback:
            print("Tandem could not read that; nothing changed. Say it in other words, or use a/r/c.")
            return state
        print(read_as(reading))
        if runtime.unsure(reading):
            sure = (ask(f"Not sure ({reading.confidence:.0%}). Apply it like that? [y/N] > ") or "").strip()
            if sure.lower() not in ("y", "yes"):
                print("Nothing changed. Say it in other words, or use a/r/c.")
                return state
            reading = None  # the person chose this reading themselves, as with a button
    return await session.decide(state, decision, review_id, reading=reading)
