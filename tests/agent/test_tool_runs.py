"""Where tools run: sync tools on a daemon thread of their own, isolated tools in a child process."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from agent import human
from agent.errors import ToolError
from agent.tools import ToolRegistry, ToolSpec, load_tools, tool
from tests.agent.waiting import eventually

ISOLATED = load_tools(["tests.agent.isolated_tools"])
ROOT = Path(__file__).resolve().parents[2]


def spec_of(fn: Callable[..., Any]) -> ToolSpec:
    registry = ToolRegistry()
    registry.add_function(fn)
    return registry.specs()[0]


def gone(pid: int) -> bool:
    """The process has exited (a zombie nobody has reaped yet counts as exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


# --- where each kind of tool runs ------------------------------------------------


def test_runs_in_names_where_each_kind_of_tool_runs() -> None:
    @tool
    def plain(x: int) -> int:
        return x

    @tool
    async def coroutine(x: int) -> int:
        return x

    assert spec_of(plain).runs_in == "thread"
    assert spec_of(coroutine).runs_in == "loop"
    assert ISOLATED.get("child_pid").runs_in == "process"


def test_isolated_tool_nested_in_a_function_is_refused() -> None:
    def nested(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="module-level function of an importable module"):
        tool(isolate="process")(nested)


def test_isolate_with_an_unknown_value_is_refused() -> None:
    def anywhere(x: int) -> int:
        return x

    with pytest.raises(TypeError, match="isolate must be 'process'"):
        tool(isolate="container")(anywhere)  # type: ignore[call-overload]


# --- threads ---------------------------------------------------------------------


async def test_in_thread_sync_tool_runs_on_a_daemon_thread_of_its_own() -> None:
    @tool
    def which_thread() -> tuple[str, bool]:
        thread = threading.current_thread()
        return thread.name, thread.daemon

    name, daemon = await spec_of(which_thread).call({})
    assert name == "tandem-tool-which_thread" and daemon


async def test_in_thread_sync_tool_can_ask_a_person() -> None:
    @tool
    def asks() -> str:
        return str(human.ask_now("Which region?", input_type="text"))

    with human.replay(["eu-west-1"]):
        assert await spec_of(asks).call({}) == "eu-west-1"
    with human.replay([]), pytest.raises(human.NeedsHuman):
        await spec_of(asks).call({})


async def test_in_thread_result_after_the_caller_gave_up_is_dropped_quietly(caplog: pytest.LogCaptureFixture) -> None:
    release = threading.Event()
    started: list[threading.Thread] = []

    @tool
    def held() -> str:
        started.append(threading.current_thread())
        release.wait(30)
        return "late"

    call = asyncio.ensure_future(spec_of(held).call({}))
    await eventually(lambda: started, "the tool to start")
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    release.set()
    # The thread hands its result to the loop before it goes idle (named plain "tandem-tool"
    # again), so once it has, the hand-back has run: it must find nobody waiting and say nothing.
    await eventually(lambda: started[0].name == "tandem-tool", "the thread to go idle")
    await asyncio.sleep(0)
    assert not [r for r in caplog.records if r.levelname == "ERROR"]


def test_process_exit_is_not_held_up_by_an_abandoned_sync_tool() -> None:
    script = textwrap.dedent(
        """
        import asyncio, threading
        from agent.tools import ToolRegistry, tool
        from agent.runtime.stopping import OutOfTime, within

        forever = threading.Event()

        @tool
        def hangs() -> str:
            forever.wait()
            return "never"

        async def main() -> None:
            registry = ToolRegistry()
            registry.add_function(hangs)
            call = asyncio.ensure_future(registry.get("hangs").call({}))
            try:
                await within(call, timeout=0.05, stoppable=False)
            except OutOfTime as late:
                print(late.outcome, flush=True)

        asyncio.run(main())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert (done.returncode, done.stdout.strip()) == (0, "abandoned"), done.stderr


# --- child processes -------------------------------------------------------------


async def test_in_process_tool_runs_in_another_process_and_its_prints_stay_out_of_the_result() -> None:
    result = await ISOLATED.get("child_pid").call({"service": "db"})
    assert result["service"] == "db" and result["pid"] != os.getpid()


async def test_in_process_async_tool_is_awaited_in_the_child() -> None:
    assert await ISOLATED.get("doubled_in_child").call({"number": 21}) == 42


async def test_in_process_tool_error_comes_back_like_an_in_process_one() -> None:
    with pytest.raises(ToolError, match=r"^RuntimeError: db: disk full$"):
        await ISOLATED.get("fails_in_child").call({"service": "db"})


async def test_in_process_child_that_exits_without_a_result_is_reported() -> None:
    with pytest.raises(ToolError, match="exited with code 3 before returning a result"):
        await ISOLATED.get("dies_in_child").call({"code": 3})


async def test_in_process_bad_params_are_refused_before_a_child_starts() -> None:
    with pytest.raises(ToolError, match="Invalid parameters for tool 'child_pid'"):
        await ISOLATED.get("child_pid").call({"service": 3, "extra": True})


async def test_in_process_tool_question_pauses_and_the_answer_reaches_the_child() -> None:
    spec = ISOLATED.get("asks_in_child")
    with pytest.raises(human.NeedsHuman) as asked:
        await spec.call({"service": "payments"})
    assert asked.value.handoff.prompt == "Where should payments go?"
    assert asked.value.handoff.options == ["eu-west-1", "us-east-1"]
    assert await spec.call({"service": "payments"}, answers=["us-east-1"]) == "payments moved to us-east-1"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
async def test_in_process_cancelled_call_kills_the_child_and_what_it_started(tmp_path: Path) -> None:
    call = asyncio.ensure_future(ISOLATED.get("sleeps_in_child").call({"folder": str(tmp_path)}))
    pids = tmp_path / "pids"
    await eventually(pids.exists, "the child to start its grandchild")
    child, grandchild = (int(p) for p in pids.read_text().split())
    assert not gone(child) and not gone(grandchild)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert gone(child)
    await eventually(lambda: gone(grandchild), "the grandchild to die")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads process states from /proc")
async def test_in_process_child_and_what_it_started_die_when_tandem_dies(tmp_path: Path) -> None:
    script = textwrap.dedent(
        f"""
        import asyncio
        from agent.tools import load_tools

        spec = load_tools(["tests.agent.isolated_tools"]).get("sleeps_in_child")
        asyncio.run(spec.call({{"folder": {str(tmp_path)!r}}}))
        """
    )
    parent = await asyncio.create_subprocess_exec(sys.executable, "-c", script, cwd=ROOT)
    pids = tmp_path / "pids"
    try:
        await eventually(pids.exists, "the child to start its grandchild")
    finally:
        parent.kill()  # Tandem dies mid-call, with no chance to clean up
        await parent.wait()
    child, grandchild = (int(p) for p in pids.read_text().split())
    await eventually(lambda: gone(child) and gone(grandchild), "the orphaned child and grandchild to die")


async def test_in_thread_idle_thread_is_reused_but_a_held_one_never_delays_another_call() -> None:
    release = threading.Event()

    @tool
    def quick() -> int:
        return threading.get_ident()

    @tool
    def hold() -> str:
        release.wait(30)
        return "done"

    await spec_of(quick).call({})
    before = threading.active_count()
    for _ in range(20):
        await spec_of(quick).call({})
    assert threading.active_count() <= before, "sequential calls reuse idle threads"
    held = asyncio.ensure_future(spec_of(hold).call({}))
    try:
        # whatever thread the held call took, this call still runs at once, on another one
        other = await asyncio.wait_for(spec_of(quick).call({}), timeout=30)
        assert other != threading.get_ident()
    finally:
        release.set()
        assert await held == "done"
