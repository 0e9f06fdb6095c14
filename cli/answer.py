"""``tandem answer``: one decision on a run's pending review, from the arguments."""

from __future__ import annotations

import argparse
import sys
from typing import assert_never

from agent.errors import TandemError, UseTheButton
from agent.follow_up import Unchanged, follow_up, reopen
from agent.models import Answer, Approve, Cancel, Correct, Finish, HandBack, Instruct, RunState, mention, moment
from agent.usecases import AlreadyDecided, Answered, Applied, Asked, NeedsButton, NotApplied, Outcome, Refused
from cli.render import plain
from cli.runs import run_named
from cli.wiring import Services


async def answer(services: Services, args: argparse.Namespace) -> RunState | Answered:
    """Apply the one decision ``args`` asks for; free text (``--say``, ``--reject`` alone) is read first.
    Free text that only asks something is answered (:class:`Answered`) and changes nothing."""
    if args.intent and args.reject is None:
        raise TandemError("--intent goes with --reject TEXT.")
    run_id = await run_named(services.usecases, args.run_id)
    runtime, user = services.runtime, args.user
    # Every decision applies to the review pending now (or the one named), never to whatever comes next.
    state, _ = await services.store.load(run_id)
    if state.finished and args.review is None and (args.say is not None or args.reject is not None):
        return await _follow_up(services, args, run_id)  # its thread stays open: a correction reopens it
    review = args.review or (state.pending.id if state.pending is not None else None)
    if args.approve:
        pending = state.pending
        # A blind --approve goes only as far as a typed "yes" would: never an exec or deploy gate (the policy's call).
        if args.review is None and pending is not None and not runtime.safety.text_may_approve(state, pending):
            what = f"step {pending.step}" if pending.step is not None else pending.anchor
            raise TandemError(
                f"Run {run_id} waits for approval of {what}, a {runtime.safety.review_risk(state, pending).label} "
                f"step; nothing changed. Look at it with `tandem show {run_id}`, then approve it by its id: "
                f"`tandem answer {run_id} --approve --review {pending.id}`."
            )
        return await runtime.decide(run_id, Approve(), user, review_id=review)
    if args.approve_always:
        return await _approve_always(services, state, review, user)
    if args.cancel:
        if state.pending is None and not state.finished:  # working: stop it (retried if another process races it)
            return _applied(await services.usecases.cancel(run_id, user))
        return await runtime.decide(run_id, Cancel(), user, review_id=review)
    if args.instruct is not None:
        return await runtime.decide(run_id, Instruct(text=args.instruct), user, review_id=review)
    if args.finish:
        return await runtime.decide(run_id, Finish(), user, review_id=review)
    if args.hand_back:
        return await runtime.decide(run_id, HandBack(), user, review_id=review)
    if args.answer is not None:
        return await runtime.decide(run_id, Answer(value=args.answer), user, review_id=review)
    if args.decline:
        return await runtime.decide(run_id, Answer(value=None, declined=True), user, review_id=review)
    if args.reject is not None and args.intent:
        decision = Correct(intent=args.intent, target_step=args.step, feedback=args.reject)
        return await runtime.decide(run_id, decision, user, review_id=review)
    text = args.reject if args.reject is not None else args.say
    reading, said, review_id = await runtime.read(run_id, text, review_id=review)
    if said is None:  # a question: answered (also in the run's thread), nothing changes
        assert reading is not None
        replied = await services.usecases.reply_to_question(run_id, review_id, reading, text, user)
        return replied if isinstance(replied, Answered) else _applied(replied)
    if reading is not None:
        print(f"Read as: {reading.intent} ({reading.reason})", file=sys.stderr)
        if args.reject is not None and reading.intent == "approve":
            raise TandemError(
                "--reject was read as an approval, so nothing changed: a request for changes never approves. "
                "Say what should change, or add --intent replan|retry_step|refine_output."
            )
        if reading.fallback:
            raise TandemError(
                "Tandem could not read that, so nothing changed. Say it in other words, or use --approve, "
                "--cancel or --reject TEXT --intent replan|retry_step|refine_output."
            )
        if runtime.unsure(reading):
            raise TandemError(
                f"Not sure what you meant (best guess {reading.intent}, {reading.confidence:.0%} sure); "
                "nothing changed. Say it in other words, or use --approve, --cancel or "
                "--reject TEXT --intent replan|retry_step|refine_output."
            )
    try:
        return await runtime.decide(run_id, said, user, review_id=review_id, reading=reading)
    except UseTheButton as exc:
        raise TandemError(
            f"{exc} Approve it with `tandem answer {run_id} --approve --review {exc.review_id}`."
        ) from None


async def _follow_up(services: Services, args: argparse.Namespace, run_id: str) -> RunState:
    """``--say`` / ``--reject`` on a finished run: the same use case as a reply in its Slack or Feishu thread."""
    if args.reject is not None and args.intent:
        decision = Correct(intent=args.intent, target_step=args.step, feedback=args.reject)
        outcome = await reopen(services.usecases, run_id, decision, args.user)
    else:
        text = args.reject if args.reject is not None else args.say
        outcome = await follow_up(services.usecases, run_id, text, args.user, rejecting=args.reject is not None)
    match outcome:
        case Applied(state=state, reading=reading):
            if reading is not None:
                print(f"Read as: {reading.intent} ({reading.reason})", file=sys.stderr)
            print(f"Run {run_id} reopened; it is {state.status.replace('_', ' ')} now.", file=sys.stderr)
            return state
        case Unchanged(message=message):
            raise TandemError(plain(message))
        case Refused() | NotApplied():
            return _applied(outcome)
        case _:
            assert_never(outcome)


async def _approve_always(services: Services, state: RunState, review: str | None, user: str) -> RunState:
    """``--approve-always``: the same use case as the Slack and Feishu button, so the same rules hold."""
    if review is None:
        raise TandemError(f"Run {state.id} waits for nothing; nothing changed.")
    return _applied(await services.usecases.approve_always(review, user))


def _applied(outcome: Outcome) -> RunState:
    """The run a use case left, or what did not take effect as the error ``tandem answer`` exits with."""
    match outcome:
        case Applied(state=applied):
            return applied
        case Refused(refusal=refusal):
            raise TandemError(plain(refusal.describe()))
        case AlreadyDecided(by=str(by), at=float(at), verb=verb):
            raise TandemError(plain(f"Already {verb} by {mention(by)} at {moment(at)}; nothing changed."))
        case AlreadyDecided(message=message) | NotApplied(message=message) | NeedsButton(message=message):
            raise TandemError(plain(message))
        case Asked() | Answered():
            raise TandemError("Nothing changed.")
        case _:
            assert_never(outcome)
