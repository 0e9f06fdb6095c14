"""The ``tandem`` command."""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import logging
import sys
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from agent.errors import TandemError
from agent.models import Answer, Approve, Cancel, Correct, Decision, Finish, HandBack, Intent, RunState
from agent.settings import CoreSettings
from agent.views import run_json
from cli.render import outcome_text, review_text
from cli.wiring import Services, open_services

INTENTS = ("replan", "retry_step", "refine_output")


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "cli"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tandem", description="Run ops tasks with an agent that people steer.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="start a run in the terminal")
    run.add_argument("task", help='what to do, e.g. "restart payments and check errors after"')
    run.add_argument("--detach", action="store_true", help="stop at the first review and print the run as JSON")
    run.add_argument("--as", dest="user", default=_default_user(), help="who is asking (default: you)")

    answer = sub.add_parser("answer", help="answer a run's pending review")
    answer.add_argument("run_id")
    what = answer.add_mutually_exclusive_group(required=True)
    what.add_argument("--approve", action="store_true")
    what.add_argument("--reject", metavar="TEXT", help="request changes with this feedback")
    what.add_argument("--say", metavar="TEXT", help="free text, classified like a thread reply")
    what.add_argument("--cancel", action="store_true")
    what.add_argument("--finish", action="store_true", help="(takeover) wrap up the run")
    what.add_argument("--hand-back", action="store_true", help="(takeover) let the agent continue on its own")
    what.add_argument("--answer", metavar="VALUE", help="answer a tool's question (a choice, text, or yes/no)")
    answer.add_argument("--intent", choices=INTENTS, help="with --reject: what is wrong (default: classified)")
    answer.add_argument("--step", type=int, help="with --reject --intent retry_step: which step")
    answer.add_argument("--review", help="the review id (default: the pending one)")
    answer.add_argument("--as", dest="user", default=_default_user())

    resume = sub.add_parser("resume", help="re-attach to a run (recovers it if its process died)")
    resume.add_argument("run_id")
    resume.add_argument("--detach", action="store_true", help="recover, stop at the next review, print JSON")
    resume.add_argument("--as", dest="user", default=_default_user())

    runs = sub.add_parser("runs", help="list runs")
    runs.add_argument(
        "--status",
        choices=("planning", "awaiting_review", "executing", "done", "human_takeover", "cancelled", "failed"),
    )
    runs.add_argument("--json", action="store_true")
    runs.add_argument("--limit", type=int, default=50)

    serve = sub.add_parser("serve", help="run the Slack bot in HTTP mode (POST /slack/events)")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=3000)

    sub.add_parser("socket", help="run the Slack bot in Socket Mode (needs SLACK_APP_TOKEN)")

    tick = sub.add_parser("tick", help="handle due reminders and deadlines once (the bot does this by itself)")
    tick.add_argument("--json", action="store_true")

    dev = sub.add_parser("dev", help="the bot and a local Slack-like workspace in your browser (no Slack, no LLM key)")
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--port", type=int, default=3000, help="the page's port (the bot takes a free one)")
    dev.add_argument("--db", default="./tandem.db", help="SQLite file, fresh or existing (default: ./tandem.db)")
    dev.add_argument("--config", help="policy TOML: approvers, quorum, timeouts (default: ./tandem.toml if present)")

    show = sub.add_parser("show", help="show one run with its history")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    return parser


async def _print_json(services: Services, state: RunState) -> None:
    events = await services.store.events(state.id)
    print(json.dumps(run_json(state, events), indent=2, ensure_ascii=False, default=str))


async def _resolve(services: Services, run_id: str) -> str:
    matches = await services.store.find(run_id)
    if run_id in matches or len(matches) != 1:
        return run_id
    return matches[0]


def _ask(prompt: str) -> str | None:
    try:
        return input(prompt)
    except EOFError:
        return None


async def _interact(services: Services, state: RunState, user: str) -> int:
    runtime = services.runtime
    while not state.finished:
        review = state.pending
        if review is None:
            state = await runtime.recover(state.id)
            if state.pending is None and not state.finished:
                print(f"Run {state.id} is {state.status} in another process; try `tandem resume {state.id}` later.")
                return 1
            continue
        print()
        print(review_text(state, review))
        if review.anchor == "handoff" and review.handoff is not None:
            line = _ask("answer (or 'cancel') > ")
            if line is None:
                print(f"\nPaused. Nothing is lost: `tandem resume {state.id}` continues here.")
                return 0
            if line.strip().lower() in ("c", "cancel"):
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
                state = await runtime.decide(state.id, Cancel(), user, review_id=review.id)
            elif state.takeover and low in ("finish", "done"):
                state = await runtime.decide(state.id, Finish(), user, review_id=review.id)
            elif state.takeover and low in ("hand back", "handback"):
                state = await runtime.decide(state.id, HandBack(), user, review_id=review.id)
            elif not state.takeover and low in ("a", "approve", "y", "yes"):
                state = await runtime.decide(state.id, Approve(), user, review_id=review.id)
            elif not state.takeover and low in ("r", "request changes"):
                state = await _request_changes(services, state, user)
            else:
                reading, decision, review_id = await runtime.read(state.id, text, review_id=review.id)
                if reading is not None:
                    target = f" step {reading.target_step}" if reading.target_step else ""
                    print(f"Read as: {reading.intent.replace('_', ' ')}{target} — {reading.reason}")
                    if runtime.unsure(reading):
                        sure = (
                            _ask(f"Not sure ({reading.confidence:.0%}). Apply it like that? [y/N] > ") or ""
                        ).strip()
                        if sure.lower() not in ("y", "yes"):
                            print("Nothing changed. Say it in other words, or use a/r/c.")
                            continue
                state = await runtime.decide(state.id, decision, user, review_id=review_id)
        except TandemError as exc:
            print(f"error: {exc}", file=sys.stderr)
            state, _ = await services.store.load(state.id)
    print()
    print(outcome_text(state))
    return 0 if state.status == "done" else 1


async def _decide_or_say(
    services: Services, state: RunState, decision: Decision, user: str, review_id: str
) -> RunState:
    try:
        return await services.runtime.decide(state.id, decision, user, review_id=review_id)
    except TandemError as exc:
        print(f"error: {exc}", file=sys.stderr)
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
        return await services.runtime.decide(state.id, decision, user, review_id=state.pending.id)
    reading, new = await services.runtime.say(state.id, feedback, user, review_id=state.pending.id)
    if reading is not None:
        print(f"Read as: {reading.intent.replace('_', ' ')} — {reading.reason}")
    return new


async def _answer(services: Services, args: argparse.Namespace) -> RunState:
    run_id = await _resolve(services, args.run_id)
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


async def _main(args: argparse.Namespace, settings: CoreSettings) -> int:
    async with open_services(settings) as services:
        match args.command:
            case "run":
                state = await services.runtime.start(args.task, args.user)
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await _interact(services, state, args.user)
            case "answer":
                if args.intent and args.reject is None:
                    raise TandemError("--intent goes with --reject TEXT.")
                state = await _answer(services, args)
                await _print_json(services, state)
                return 0
            case "resume":
                run_id = await _resolve(services, args.run_id)
                state = await services.runtime.recover(run_id)
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await _interact(services, state, args.user)
            case "tick":
                handled = await services.runtime.tick()
                print(json.dumps({"handled": handled}) if args.json else f"Handled {handled} due review(s).")
                return 0
            case "runs":
                summaries = await services.store.list_runs(status=args.status, limit=args.limit)
                if args.json:
                    print(json.dumps([s.model_dump(mode="json") for s in summaries], indent=2, ensure_ascii=False))
                else:
                    if not summaries:
                        print('No runs yet. Start one with: tandem run "restart payments and check errors after"')
                    for s in summaries:
                        print(f"{s.id}  {s.status:<16} {s.requester:<10} {s.task}")
                return 0
            case "show":
                state, _ = await services.store.load(await _resolve(services, args.run_id))
                if args.json:
                    await _print_json(services, state)
                else:
                    print(outcome_text(state))
                    if state.pending is not None:
                        print()
                        print(review_text(state, state.pending))
                    for e in await services.store.events(state.id):
                        print(
                            f"  {e.at:.3f}  {e.actor:<10} {e.kind:<16} "
                            + json.dumps(e.payload, ensure_ascii=False)[:160]
                        )
                return 0
    raise AssertionError(args.command)


async def _slack(args: argparse.Namespace) -> int:
    from bot.settings import SlackSettings
    from cli.serve import serve_forever, socket_forever

    settings = SlackSettings()
    if args.command == "serve":
        await serve_forever(settings, args.host, args.port)
    else:
        await socket_forever(settings)
    return 0


def main(argv: Sequence[str] | None = None, *, settings_factory: Callable[[], CoreSettings] = CoreSettings) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.command == "dev":
        from cli.dev import main as dev_main

        return dev_main(args)
    try:
        coro: Coroutine[Any, Any, int]
        if args.command in ("serve", "socket"):
            coro = _slack(args)
        else:
            coro = _main(args, settings_factory())
        return asyncio.run(coro)
    except TandemError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted. Runs are saved; `tandem runs` lists them.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
