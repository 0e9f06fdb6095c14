"""The ``tandem`` command's arguments: :func:`build_parser`."""

from __future__ import annotations

import argparse
import getpass

from cli.options import period
from cli.suggest import SuggestingParser

INTENTS = ("replan", "retry_step", "refine_output")
DEMO_HELP = "run on the demo toolset (simulated; nothing real happens) instead of TANDEM_TOOLS"


def _default_user() -> str:
    try:
        return getpass.getuser()
    except Exception:
        return "cli"


def build_parser() -> argparse.ArgumentParser:
    parser = SuggestingParser(prog="tandem", description="Run ops tasks with an agent that people steer.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = sub.add_parser("run", help="start a run in the terminal")
    run.add_argument("task", help='what to do, e.g. "restart payments and check errors after"')
    run.add_argument("--detach", action="store_true", help="stop at the first review and print the run as JSON")
    run.add_argument("--as", dest="user", default=_default_user(), help="who is asking (default: you)")

    answer = sub.add_parser("answer", help="answer a run's pending review")
    answer.add_argument("run_id")
    what = answer.add_mutually_exclusive_group(required=True)
    what.add_argument("--approve", action="store_true")
    what.add_argument(
        "--approve-always",
        action="store_true",
        help="approve a risky step and always allow its tool for the same targets (e.g. service=payments) in the "
        "run's channel (where the policy lets; `/tandem rules` widens a rule to every target)",
    )
    what.add_argument("--reject", metavar="TEXT", help="request changes with this feedback")
    what.add_argument("--say", metavar="TEXT", help="free text, classified like a thread reply")
    what.add_argument("--cancel", action="store_true")
    what.add_argument("--instruct", metavar="TEXT", help="(takeover) the next instruction: one proposed step")
    what.add_argument("--finish", action="store_true", help="(takeover) wrap up the run")
    what.add_argument("--hand-back", action="store_true", help="(takeover) let the agent continue on its own")
    what.add_argument("--answer", metavar="VALUE", help="answer a tool's question (a choice, text, or yes/no)")
    what.add_argument(
        "--decline", action="store_true", help="decline an MCP server's question (the server gets decline)"
    )
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
    serve.add_argument("--demo", action="store_true", help=DEMO_HELP)

    socket = sub.add_parser(
        "socket", help="run the Slack bot in Socket Mode (needs SLACK_APP_TOKEN), and Feishu's long connection too"
    )
    socket.add_argument("--demo", action="store_true", help=DEMO_HELP)

    feishu_ws = sub.add_parser("feishu-ws", help="run the Feishu/Lark bot over the long connection (no public URL)")
    feishu_ws.add_argument("--demo", action="store_true", help=DEMO_HELP)

    tick = sub.add_parser("tick", help="handle due reminders and deadlines once (the bot does this by itself)")
    tick.add_argument("--json", action="store_true")

    dev = sub.add_parser("dev", help="the bot and a local Slack-like workspace in your browser (no Slack, no LLM key)")
    dev.add_argument("--host", default="127.0.0.1")
    dev.add_argument("--port", type=int, default=3000, help="the page's port (the bot takes a free one)")
    dev.add_argument("--db", default="./tandem.db", help="SQLite file, fresh or existing (default: ./tandem.db)")
    dev.add_argument("--config", help="policy TOML: approvers, quorum, timeouts (default: ./tandem.toml if present)")

    prune = sub.add_parser("prune", help="delete finished runs older than a cutoff (unfinished runs are kept)")
    prune.add_argument(
        "--older-than", required=True, metavar="AGE", help="runs that finished longer ago than this: 90d, 12h, 30m"
    )
    prune.add_argument("--dry-run", action="store_true", help="count what would be deleted; delete nothing")
    prune.add_argument("--json", action="store_true")

    show = sub.add_parser("show", help="show one run with its history")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")

    report = sub.add_parser("report", help="collaboration metrics and warnings for a period (reads only)")
    report.add_argument(
        "--since",
        default="7d",
        type=period,
        metavar="PERIOD|DATE",
        help="7d, 30d, 12h, or a UTC date like 2026-11-20 (default 7d)",
    )
    report.add_argument("--channel", help="only runs started in this channel")
    report.add_argument("--requester", help="only runs this person started")
    report.add_argument("--tool", help="only runs in which a step of this tool was reviewed or ran")
    report.add_argument("--json", action="store_true")
    report.add_argument("--html", metavar="FILE", help="also write a self-contained page with a chart")
    report.add_argument(
        "--post",
        action="store_true",
        help="also post it, with its chart, to the policy's [report] channel (the running bot delivers it)",
    )

    lessons = sub.add_parser("lessons", help="what corrections taught later plans; 'lessons forget ID' stops one")
    lessons.add_argument("action", nargs="?", choices=["forget"], help="forget: stop using the lesson ID")
    lessons.add_argument("lesson_id", nargs="?", help="with forget: the lesson's id")
    lessons.add_argument("--json", action="store_true")
    lessons.add_argument("--as", dest="user", default=_default_user(), help="who forgets it (default: you)")

    tools = sub.add_parser("tools", help="list every tool: its source (module or MCP server), its risk and why")
    tools.add_argument("--json", action="store_true")
    tokens = sub.add_parser("tokens", help="API tokens for other software: create NAME, list, revoke NAME")
    tokens.add_argument("action", choices=["create", "list", "revoke"])
    tokens.add_argument("name", nargs="?", help="the token's name (create, revoke)")
    tokens.add_argument("--scopes", default="handoffs:write,handoffs:read", help="comma-separated (create)")
    tokens.add_argument("--expires-in", help="like 90d or 12h (create; default: never)")
    tokens.add_argument("--json", action="store_true")
    tokens.add_argument("--as", dest="user", default=_default_user(), help="who creates or revokes it (default: you)")

    mcp = sub.add_parser("mcp", help="serve ask_human and request_approval to MCP clients over stdio")
    mcp.add_argument("--as", dest="name", help="the client's name, audited as mcp:NAME (default: $TANDEM_MCP_NAME)")
    mcp.add_argument("--progress-every", type=float, default=15.0, help=argparse.SUPPRESS)

    redeliver = sub.add_parser("redeliver", help="try again to deliver a run's messages that could not be delivered")
    redeliver.add_argument("run_id")
    return parser
