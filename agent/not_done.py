"""What a run was asked to do and did not: the parts of the task no step that ran did.

The parts are the ones a replan must keep (:func:`agent.offline.plan_parts`: each clause of the task
that names a tool, with what feedback took back or added), read once more when the result is
written. A part counts as done when a step of its tool ran (a failed one is reported as failed); a result never says
"Done" while a part is left, on any channel: it says "Partly done" and names what was not done.
"""

from __future__ import annotations

import asyncio
import logging
import re

from agent import offline, prompts  # offline: the planner loads when first used
from agent.models import RunState
from agent.tools import ToolRegistry

log = logging.getLogger(__name__)

_QUOTED = re.compile(r"“([^”]+)”")
_CJK = re.compile(r"[\u3400-\u9fff]")
_DONE_HEAD = re.compile(r"^(\*\*|#+\s*)?(Done|已完成)(?=[:：.。*\s]|$)")
AT_ONCE_CHARS = 200
AT_ONCE_TOOLS = 20
"""Up to this many characters of task and feedback, and this many tools, the check runs on the caller's loop:
about a millisecond at most, no longer than a hop to a thread and the wait for the interpreter there take
(the thread gets it from the loop only every few milliseconds). Longer, it runs in a thread."""


async def checked(state: RunState, tools: ToolRegistry) -> list[str]:
    """:func:`not_done`, without holding up the event loop on a long task (see :data:`AT_ONCE_CHARS`)."""
    read = len(state.task) + sum(len(f.text) for f in state.feedback)
    if read <= AT_ONCE_CHARS and len(tools) <= AT_ONCE_TOOLS:
        return not_done(state, tools)
    return await asyncio.to_thread(not_done, state, tools)


def not_done(state: RunState, tools: ToolRegistry) -> list[str]:
    """The task's words for each part no step that ran did ("check errors"), in the task's order."""
    context = prompts.plan_context(
        state.task,
        tools,
        # a takeover's instructions are steps a person asked for, not changes to the task
        feedback=[f.text for f in state.feedback if f.intent != "instruct"],
        rejected=[],
        completed=[],
        max_steps=state.policy.max_steps,
    )
    try:
        parts = offline.plan_parts(context)
    except Exception as exc:  # a heuristic bug costs the check, never the result
        log.warning("could not check the result against the task: %s", exc)
        return []
    if parts is None:
        return []
    ran = [s.tool for s in (*state.history, *state.plan) if s.status in ("done", "failed")]
    said = []
    for tool, why in parts.missing(ran):
        quoted = _QUOTED.search(why)
        said.append(quoted.group(1) if quoted else tool)
    return list(dict.fromkeys(said))


def headline(parts: list[str], task: str) -> str:
    """``Partly done — not done: check errors`` (Chinese for a Chinese task)."""
    if _CJK.search(task):
        return "部分完成 — 未完成：" + "；".join(parts)
    return "Partly done — not done: " + "; ".join(parts)


def partly(text: str, parts: list[str], task: str) -> str:
    """The written result with Tandem's own headline saying what was not done, first; a "Done" title the
    writer gave it becomes "Partly done", so nothing reads as all done."""
    if not parts or text.startswith(f"**{headline(parts, task)}**"):
        return text
    zh = bool(_CJK.search(task))
    lines = text.strip().splitlines()
    if lines and _DONE_HEAD.match(lines[0]):
        lines[0] = _DONE_HEAD.sub(lambda m: (m.group(1) or "") + ("部分完成" if zh else "Partly done"), lines[0], 1)
    return "\n".join([f"**{headline(parts, task)}**", "", *lines])
