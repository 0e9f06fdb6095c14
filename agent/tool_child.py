"""The child process's side of an isolated tool call (see :mod:`agent.tool_runs`): load the tool, run it,
write one JSON reply to the original stdout, and die with the parent."""

from __future__ import annotations

import asyncio
import inspect
import json
import os
import signal
import threading
from typing import Any

from pydantic_core import to_jsonable_python

from agent import human
from agent.errors import TandemError
from agent.tools import load_tools

__all__ = ["child"]


def child(request: dict[str, Any]) -> None:
    """The child's side: run the tool, write one JSON reply to the original stdout."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)  # what the tool prints goes to stderr; the reply stays alone on stdout
    threading.Thread(target=_exit_with_parent, daemon=True).start()
    reply: dict[str, Any]
    try:
        spec = load_tools([request["module"]]).get(request["name"])
        with human.replay(request["answers"]):
            if inspect.iscoroutinefunction(spec.fn):
                value = asyncio.run(spec.fn(**request["args"]))
            else:
                value = spec.fn(**request["args"])
        reply = {"result": to_jsonable_python(value, fallback=str)}
    except human.NeedsHuman as ask:
        reply = {
            "needs_human": {
                "handoff": ask.handoff.model_dump(mode="json"),
                "assignees": ask.assignees,
                "quorum": ask.quorum,
                "timeout": ask.timeout,
                "on_timeout": ask.on_timeout,
            }
        }
    except TandemError as exc:
        reply = {"error": str(exc)}
    except Exception as exc:  # reported the way the runtime reports an in-process tool's failure
        reply = {"error": f"{type(exc).__name__}: {exc}"}
    out.write(json.dumps(reply))
    out.flush()


def _exit_with_parent() -> None:
    # The raw descriptor, not sys.stdin: a daemon thread blocked inside a buffered reader's
    # lock makes the interpreter abort when it shuts down.
    while os.read(0, 4096):
        pass
    # End of file: the parent died (it keeps the pipe open until the call is over). Take the
    # tool and whatever it started down too: this process leads the group they are in.
    os.killpg(os.getpgid(0), signal.SIGKILL)
