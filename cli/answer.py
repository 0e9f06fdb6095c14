"""``tandem answer``: one decision on a run's pending review, from the arguments."""

from __future__ import annotations

import argparse
import sys

from agent.errors import TandemError
from agent.models import Answer, Approve, Cancel, Correct, Finish, HandBack, RunState
from cli.wiring import Services


async def resolve(services: Services, run_id: str) -> str:
    """The full id of the one run ``run_id`` starts; ``run_id`` itself when it is exact or ambiguous."""
    matches = await services.store.find(run_id)
    if run_id in matches or len(matches) != 1:
        return run_id
    return matches[0]


async def answer(services: Services, args: argparse.Namespace) -> RunState:
    """Apply the one decision ``args`` asks for; free text (``--say``, ``--reject`` alone) is read first."""
    if args.intent and args.reject is None:
        raise TandemError("--intent goes with --reject TEXT.")
    run_id = await resolve(services, args.run_id)
    runtime, user, review = services.runtime, args.user, args.review
    if args.approve:
        return await runtime.decide(run_id, Approve(), user, review_id=review)
    if args.cancel:
        state, _ = await services.store.load(run_id)
        if state.pending is None and not state.finished:
            return await runtime.cancel(run_id, user)
        return await runtime.decide(run_id, Cancel(), user, review_id=review)
    if args.finish:
        return await runtime.decide(run_id, Finish(), user, review_id=review)
    if args.hand_back:
        return await runtime.decide(run_id, HandBack(), user, review_id=review)
    if args.answer is not None:
        return await runtime.decide(run_id, Answer(value=args.answer), user, review_id=review)
    if args.reject is not None and args.intent:
        decision = Correct(intent=args.intent, target_step=args.step, feedback=args.reject)
        return await runtime.decide(run_id, decision, user, review_id=review)
    text = args.reject if args.reject is not None else args.say
    reading, said, review_id = await runtime.read(run_id, text, review_id=review)
    if reading is not None:
        print(f"Read as: {reading.intent} ({reading.reason})", file=sys.stderr)
        if runtime.unsure(reading):
            raise TandemError(
                f"Not sure what you meant (best guess {reading.intent}, {reading.confidence:.0%} sure); "
                "nothing changed. Say it in other words, or use --approve, --cancel or "
                "--reject TEXT --intent replan|retry_step|refine_output."
            )
    return await runtime.decide(run_id, said, user, review_id=review_id)
