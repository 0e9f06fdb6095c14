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
import os
import sys
import time
from collections.abc import Callable, Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any

import cli.platforms  # noqa: F401  (registers the installed chat platforms before any policy or run loads)
from agent.commands import Commands, NoSuchRun
from agent.config import parse_duration
from agent.errors import InvalidDecision, PolicyError, TandemError
from agent.logs import configure
from agent.messages import plural
from agent.models import RunState
from agent.policy import SafetyPolicy
from agent.settings import CoreSettings, LogSettings, read_settings
from agent.usecases import Answered, NotApplied
from agent.views import run_json
from cli import names
from cli.answer import answer
from cli.lessons import lessons_command
from cli.mcp_server import mcp_command
from cli.mrkdwn import use_color
from cli.options import UsageError
from cli.parser import build_parser
from cli.policy import checked_policy
from cli.render import plain, show_text
from cli.report import report_command
from cli.runs import no_such_run, run_named, runs_command
from cli.terminal import interact
from cli.tokens import tokens_command
from cli.tools import tools_command
from cli.wiring import Services, database_exists, open_services, open_store

__all__ = ["build_parser", "main"]

log = logging.getLogger("tandem.cli")

BOT_COMMANDS = ("serve", "socket", "feishu-ws", "dev")
"""Long-running: they log at INFO unless TANDEM_LOG_LEVEL says otherwise; the rest at WARNING (a clean terminal)."""
TOOL_COMMANDS = ("run", "answer", "resume", "tick")
"""The terminal commands that may run tools (and say so when those are the demo's)."""
ANNOUNCE_POLICY = ("run", "resume", "serve", "socket", "feishu-ws", "dev")
"""Commands that start acting under the policy: they say on stderr which policy file is in force."""
CREATE_DB = ("run", "serve", "socket", "feishu-ws", "dev")
"""The only commands that may create the database; the rest need one to exist and never make one."""
EXIT_FAILED, EXIT_CONFIG, EXIT_BROKEN_PIPE, EXIT_INTERRUPTED = 1, 2, 141, 130
"""1: it did not work; 2: bad configuration (like a bad option); 141 and 130 as for SIGPIPE and Ctrl-C."""


class NoDatabase(TandemError):
    """A command that only reads or answers runs was pointed at a database that does not exist."""

    def __init__(self, db: str) -> None:
        super().__init__(
            f"No database at {db}: no runs here yet, and nothing was created. Run Tandem where its database is, "
            'point TANDEM_DB at it, or start a run with: tandem run "restart payments and check errors after"'
        )


def _require_database(db: str) -> None:
    if not database_exists(db):
        raise NoDatabase(db)


async def _print_json(services: Services, state: RunState) -> None:
    events = await services.store.events(state.id)
    print(json.dumps(run_json(state, events), indent=2, ensure_ascii=False, default=str))


async def _main(args: argparse.Namespace, settings: CoreSettings) -> int:
    since = time.time()  # a review's note from before this is not news (``resume``)
    checked_policy(settings.config, announce=args.command in ANNOUNCE_POLICY)
    if args.command not in CREATE_DB:
        _require_database(settings.db)
    names.learn(settings.db)  # people and channels by name, where this machine knows them
    if args.command in ("runs", "show"):
        return await _read_only(args, settings)
    if settings.tools is None and args.command in TOOL_COMMANDS:
        log.warning("TANDEM_TOOLS is not set: using the demo toolset (simulated; nothing real happens)")
    async with open_services(settings) as services:
        match args.command:
            case "run":
                started = await services.usecases.start(args.task, args.user)
                if isinstance(started, NotApplied):
                    raise InvalidDecision(started.message)
                state = started.state
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await interact(services, state, args.user, since=since)
            case "answer":
                result = await answer(services, args)
                if isinstance(result, Answered):  # a question: the answer, and nothing changed
                    print(plain(result.answer))
                    return 0
                await _print_json(services, result)
                return 0
            case "resume":
                run_id = await run_named(services.usecases, args.run_id)
                state = await services.runtime.recover(run_id)
                if args.detach:
                    await _print_json(services, state)
                    return 0
                return await interact(services, state, args.user, since=since)
            case "tick":
                handled = await services.runtime.tick()
                print(json.dumps({"handled": handled}) if args.json else f"Handled {plural(handled, 'due review')}.")
                return 0
            case "lessons":
                return await lessons_command(args, services.usecases)
            case "redeliver":
                run_id = await run_named(services.usecases, args.run_id)
                count = await services.store.redeliver(run_id, time.time())
                print(f"{plural(count, 'message')} of run {run_id} will be delivered again by the running bot.")
                return 0
    raise AssertionError(args.command)


async def _read_only(args: argparse.Namespace, settings: CoreSettings) -> int:
    """``runs`` and ``show``: only the run store is opened (no model, tools or demo world)."""
    async with open_store(settings.db) as store:
        safety = SafetyPolicy(checked_policy(settings.config, announce=False))
        commands = Commands(store, safety)
        if args.command == "runs":
            return await runs_command(args, commands)
        shown = await commands.status(args.run_id, None)  # the terminal sees every run
        if isinstance(shown, NoSuchRun):
            raise no_such_run(shown)
        state, events = shown.state, list(shown.events)
        if args.json:
            print(json.dumps(run_json(state, events), indent=2, ensure_ascii=False, default=str))
            return 0
        print(show_text(state, await store.undelivered(state.id), events, safety, color=use_color(sys.stdout)))
        return 0


async def _prune(args: argparse.Namespace, settings: CoreSettings) -> int:
    try:
        age = parse_duration(args.older_than)
    except ValueError as exc:
        print(f"error: --older-than: {exc}", file=sys.stderr)
        return 1
    _require_database(settings.db)
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
    from cli.serve import feishu_ws_forever, serve_forever, socket_forever
    from feishu.settings import FeishuSettings

    if args.command == "feishu-ws":
        alone = read_settings(FeishuSettings)
        checked_policy(alone.config, announce=True)
        await feishu_ws_forever(alone, demo=args.demo)
        return 0
    settings = read_settings(SlackSettings)
    checked_policy(settings.config, announce=True)
    feishu = read_settings(FeishuSettings)
    given = feishu if feishu.configured else None
    if args.command == "serve":
        await serve_forever(settings, args.host, args.port, demo=args.demo, feishu=given)
    else:
        await socket_forever(settings, demo=args.demo, feishu=given)
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
        if args.command in ("serve", "socket", "feishu-ws"):
            coro = _slack(args)
        elif args.command == "prune":
            coro = _prune(args, settings_factory())
        elif args.command == "tools":
            coro = tools_command(args, read_settings(settings_factory))
        elif args.command == "tokens":
            coro = tokens_command(args, read_settings(settings_factory))
        elif args.command == "mcp":
            coro = mcp_command(args, read_settings(settings_factory))
        else:
            coro = _main(args, read_settings(settings_factory))
        code = asyncio.run(coro)
        sys.stdout.flush()  # here, where a reader that went away is caught below, not at interpreter exit
        return code
    except (PolicyError, UsageError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_CONFIG
    except TandemError as exc:
        print(f"error: {plain(str(exc))}", file=sys.stderr)
        return EXIT_FAILED
    except KeyboardInterrupt:
        print("\nInterrupted. Runs are saved; `tandem runs` lists them.", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # The reader went away (`tandem runs | head`): stop quietly, as Unix tools do. What is still
        # buffered for stdout goes nowhere, so Python's exit does not complain about it either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE


if __name__ == "__main__":
    raise SystemExit(main())
