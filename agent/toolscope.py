"""What a toolset covers, for the brain: what it can do (a line), a task it cannot, a step off its target."""

from __future__ import annotations

import re
from typing import Any

from agent.capabilities import say_can_do
from agent.errors import ToolError
from agent.human import NothingToDo
from agent.offline import named_unknown
from agent.tools import ToolRegistry


def can_do(tools: ToolRegistry) -> str:
    """What the toolset can do, in a line or two (tool names and the values they know, no docstrings)."""
    known: dict[str, list[str]] = {}
    for spec in tools.specs():
        required = set(spec.json_schema().get("required", []))
        for name, values in spec.known_values().items():
            if name in required:  # the targets (a service), not every option (a log level)
                known[name] = [*known.get(name, []), *(v for v in values if v not in known.get(name, []))]
    return say_can_do([spec.name for spec in tools.specs()], known)


# A model's refusal in prose instead of the JSON asked for ("I'm sorry, I can't help with ordering pizza").
_REFUSAL = re.compile(
    r"\b(?:I(?:'m| am) (?:sorry|afraid|unable|not able)|I can(?:no|'?)t|cannot (?:help|do|be done)|no (?:tool|step)s? "
    r"(?:can|could|is able)|none of the (?:available )?tools|outside (?:of )?(?:the|my) (?:tools|scope))",
    re.I,
)


def refuses(answer: str) -> bool:
    """Whether a model's answer in prose declines the task."""
    return bool(_REFUSAL.search(answer))


def nothing_to_do(task: str, tools: ToolRegistry, why: str = "") -> NothingToDo:
    """The answer to a task no tool can do: that, (the model's why,) and what the tools can do."""
    said = f" ({_clip(why, 200).rstrip('.')})" if why.strip() else ""
    return NothingToDo(f"No tool here can do “{_clip(task, 200)}”{said}. {can_do(tools)}")


def unknown_target(instruction: str, tool: str, params: dict[str, Any], tools: ToolRegistry) -> str | None:
    """Why a proposed step does not do what the instruction says: a value no tool knows, or a target the
    instruction names that the step replaced by another (None when it does)."""
    try:
        spec = tools.get(tool)
    except ToolError:
        return None  # the repair round says which tools exist
    unknown = spec.unknown_value(params)
    if unknown is not None:
        return unknown
    return named_unknown(instruction, [s.describe() for s in tools.specs()], spec.name, params)


def _clip(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
