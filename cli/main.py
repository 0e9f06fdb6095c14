"""The ``tandem`` command: :func:`main` parses the arguments (:mod:`cli.parser`) and dispatches.

``run`` and ``resume`` continue in the terminal loop (:mod:`cli.terminal`), ``answer``
decides once (:mod:`cli.answer`), ``serve``/``socket`` run the Slack bot (:mod:`cli.serve`)
and ``dev`` the bot beside a local workspace (:mod:`cli.dev`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any

from agent.config import parse_duration
from agent.errors import TandemError
from agent.logs import configure
from agent.models import RunState
from agent.settings import CoreSettings, LogSettings, read_settings
from agent.views import run_json
from cli.answer import answer, resolve
from cli.parser import build_parser
from cli.render import outcome_text, plain, review_text
from cli.report import report_command
from cli.terminal import interact
from cli.wiring import Services, open_services, open_store

__all__ = ["build_parser", "main"]

log = logging.getLogger("tandem.cli")

BOT_COMMANDS = ("serve", "socket", "dev")
"""Long-running: they log at INFO unless TANDEM_LOG_LEVEL says otherwise; the rest at WARNING (a clean terminal)."""
TOOL_COMMANDS = ("run", "answer", "resume", "tick")
"""The terminal commands that may run tools (and say so when those are the demo's)."""


async def _print_json(services: Services, state: RunState) -> None:
    events = await services.store.events(state.id)
    print(json.dumps(run_json(state, events), indent=2, ensure_ascii=False, default=str))


async def _main(args: argparse.Namespace, settings: CoreSettings) -> int:
    if settings.tools is None and args.command in TOOL_COMMANDS:
        log.warning("TANDEM_TOOLS is not set: using the demo toolset (simulated; nothing real happens)")
    async with open_services(settings) as services:
        match args.command:
            case "run":
                state = await services.runtime.start(args.task, args.user)
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await interact(services, state, args.user)
            case "answer":
                state = await answer(services, args)
                await _print_json(services, state)
                return 0
            case "resume":
                run_id = await resolve(services, args.run_id)
                state = await services.runtime.recover(run_id)
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await interact(services, state, args.user)
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
                    failed = await services.store.undelivered_runs([s.id for s in summaries])
                    for s in summaries:
                        note = f"  ⚠ {failed[s.id]} not delivered" if s.id in failed else ""
                        print(f"{s.id}  {s.status:<16} {s.requester:<10} {s.task}{note}")
                return 0
            case "show":
                state, _ = await services.store.load(await resolve(services, args.run_id))
                if args.json:
                    await _print_json(services, state)
                else:
                    print(outcome_text(state))
                    if state.pending is not None:
                        print()
                        print(review_text(state, state.pending, services.runtime.safety))
                    for d in await services.store.undelivered(state.id):
                        what = f"{d.message.kind} {d.message.review_id or ''}".strip()
                        print(f"  ⚠ {what} not delivered: {d.error} ({d.attempts} tries, {d.status})")
                    for e in await services.store.events(state.id):
                        print(
                            f"  {e.at:.3f}  {e.actor:<10} {e.kind:<16} "
                            + json.dumps(e.payload, ensure_ascii=False)[:160]
                        )
                return 0
            case "redeliver":
                run_id = await resolve(services, args.run_id)
                await services.store.load(run_id)  # a clear error for an unknown run
                count = await services.store.redeliver(run_id, time.time())
                plural = "s" if count != 1 else ""
                print(f"{count} message{plural} of run {run_id} will be delivered again by the running bot.")
                return 0
    raise AssertionError(args.command)


async def _prune(args: argparse.Namespace, settings: CoreSettings) -> int:
    try:
        age = parse_duration(args.older_than)
    except ValueError as exc:
        print(f"error: --older-than: {exc}", file=sys.stderr)
        return 1
    async with open_store(settings.db) as store:  # only the run store: no model, tools or demo world
        counts = await store.prune(time.time() - age, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(counts.model_dump(mode="json"), indent=2))
        return 0
    when = datetime.fromtimestamp(counts.before, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    verb = "Dry run, nothing deleted. Would delete" if counts.dry_run else "Deleted"
    print(f"{verb} what finished before {when}:")
    for table, n in counts.rows.items():
        print(f"  {table:<14} {n}")
    return 0


async def _slack(args: argparse.Namespace) -> int:
    from bot.settings import SlackSettings
    from cli.serve import serve_forever, socket_forever
    from feishu.settings import FeishuSettings

    settings = read_settings(SlackSettings)
    if args.command == "serve":
        feishu = read_settings(FeishuSettings)
        given = feishu if feishu.configured else None
        await serve_forever(settings, args.host, args.port, demo=args.demo, feishu=given)
    else:
        await socket_forever(settings, demo=args.demo)
    return 0


def main(argv: Sequence[str] | None = None, *, settings_factory: Callable[[], CoreSettings] = CoreSettings) -> int:
    args = build_parser().parse_args(argv)
    try:
        logs = read_settings(LogSettings)
        configure(logs.log_level or ("INFO" if args.command in BOT_COMMANDS else "WARNING"), logs.log_format)
        if args.command == "dev":
            from cli.dev import main as dev_main

            return dev_main(args)
        if args.command == "report":
            return report_command(args, read_settings(settings_factory))
        coro: Coroutine[Any, Any, int]
        if args.command in ("serve", "socket"):
            coro = _slack(args)
        elif args.command == "prune":
            coro = _prune(args, settings_factory())
        else:
            coro = _main(args, read_settings(settings_factory))
        return asyncio.run(coro)
    except TandemError as exc:
        print(f"error: {plain(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\nInterrupted. Runs are saved; `tandem runs` lists them.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
