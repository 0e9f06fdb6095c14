"""Where a tool's function runs: a thread of its own for sync tools, or a child process.

A sync tool cannot be stopped from outside, so it runs on a daemon thread of its own
rather than in the event loop's shared executor: if its step runs out of time the
thread is left to finish (its result goes nowhere), and a hung one never holds up
the process when it exits.

A tool marked ``@tool(isolate="process")`` runs in a fresh interpreter instead, in a
process group of its own, so a cancelled call kills it and whatever it started (and the
group goes down by itself if Tandem dies mid-call). The child gets the validated
parameters and the answers already given to its ``human.ask`` questions; it does not get
the runtime's tool context (it is another process). Its result comes back as JSON.
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import queue
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from pydantic_core import to_jsonable_python

from agent import human
from agent.errors import ToolError
from agent.models import Handoff

__all__ = ["in_process", "in_thread"]


async def in_thread(fn: Callable[..., Any], args: dict[str, Any], *, name: str) -> Any:
    """Run ``fn(**args)`` on a daemon thread, in a copy of the caller's context."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()
    context = contextvars.copy_context()

    def settle(value: Any, error: BaseException | None) -> None:
        if future.done():  # nobody waits any more (the caller was cancelled)
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)

    def work() -> tuple[Any, BaseException | None]:
        threading.current_thread().name = f"tandem-tool-{name}"
        try:
            return context.run(fn, **args), None
        except BaseException as exc:  # handed to the awaiting side, like an executor does
            return None, exc

    def hand_back(value: Any, error: BaseException | None) -> None:
        try:
            loop.call_soon_threadsafe(settle, value, error)
        except RuntimeError:  # the event loop has closed: nobody is left to tell
            pass

    _POOL.submit(work, hand_back)
    return await future


_HandBack = Callable[[Any, BaseException | None], None]
_Job = tuple[Callable[[], tuple[Any, BaseException | None]], _HandBack]


class _DaemonThreads:
    """Daemon threads for sync tools, reused while idle (starting one per call costs more than the call).

    A call always gets a thread of its own: an idle one if there is one, else a new one, so a
    hung tool never delays another. Threads idle for ``idle_timeout`` seconds end.
    """

    def __init__(self, idle_timeout: float = 60.0) -> None:
        self.idle_timeout = idle_timeout
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = 0
        self._lock = threading.Lock()

    def submit(self, work: Callable[[], tuple[Any, BaseException | None]], hand_back: _HandBack) -> None:
        """Run ``work`` on a daemon thread, then ``hand_back`` its outcome (once the thread counts as idle,
        so whatever the hand-back wakes finds it free)."""
        job = (work, hand_back)
        with self._lock:
            if self._idle:
                self._idle -= 1  # that idle thread takes this job
                self._jobs.put(job)
                return
        threading.Thread(target=self._serve, args=(job,), name="tandem-tool", daemon=True).start()

    def _serve(self, job: _Job) -> None:
        while True:
            work, hand_back = job
            value, error = work()
            with self._lock:
                self._idle += 1
            hand_back(value, error)
            threading.current_thread().name = "tandem-tool"  # idle again
            try:
                job = self._jobs.get(timeout=self.idle_timeout)
                continue
            except queue.Empty:
                pass
            with self._lock:  # a job handed to this thread just now is in the queue already
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    self._idle -= 1
                    return


_POOL = _DaemonThreads()


# The child reads one JSON line (the request) on stdin, then imports agent.tool_child from the
# parent's sys.path; stdin stays open, so the child can tell when its parent is gone.
_BOOT = (
    "import json, sys; request = json.loads(sys.stdin.readline()); sys.path[:] = request['path']; "
    "from agent.tool_child import child; child(request)"
)


async def in_process(module: str, name: str, args: dict[str, Any], answers: Sequence[Any]) -> Any:
    """Run the tool ``name`` of ``module`` in a child process; kill it (and its group) if cancelled."""
    request = {"path": sys.path, "module": module, "name": name, "args": args, "answers": list(answers)}
    line = json.dumps(to_jsonable_python(request, fallback=str)).encode() + b"\n"
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        _BOOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        start_new_session=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        proc.stdin.write(line)
        await proc.stdin.drain()
        reply = await proc.stdout.read()
        code = await proc.wait()
    finally:
        if proc.returncode is None:  # cancelled (the step ran out of time) or failed mid-call
            _kill_group(proc.pid)
            await proc.wait()
        proc.stdin.close()
    return _answer(name, reply, code)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:  # already gone
        pass


def _answer(name: str, reply: bytes, code: int) -> Any:
    try:
        data = json.loads(reply)
    except ValueError:
        how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
        raise ToolError(
            f"Tool '{name}' ran in a process of its own, which {how} before returning a result; "
            "its error output is in Tandem's log."
        ) from None
    if "needs_human" in data:
        ask = data["needs_human"]
        raise human.NeedsHuman(
            Handoff.model_validate(ask["handoff"]),
            assignees=ask["assignees"],
            quorum=ask["quorum"],
            timeout=ask["timeout"],
            on_timeout=ask["on_timeout"],
        )
    if "error" in data:
        raise ToolError(data["error"])
    return data["result"]
