"""The ``propose`` answer: one step (or hand back, finish, cancel) from a person's instruction during takeover."""

from __future__ import annotations

from agent.offline.classifier import NOT, cancels
from agent.offline.drafts import draft_steps
from agent.offline.params import missing_params
from agent.offline.scope import can_do_line, unknown_target
from agent.offline.tools_match import Toolbox, ToolView
from agent.offline.vocabulary import JSON, rx, split_clauses

_HAND_BACK = rx(
    r"\b(?:hand (?:it )?back|give (?:it )?back|continue on your own|take it from here|you continue|back to you"
    r"|your turn|carry on yourself)\b",
    "你继续|交还|交给你|你来吧|你接着|还给你",
)
_FINISH = rx(
    r"\b(?:finish(?:ed)?|done|wrap (?:it )?up|that'?s all|that is all|all done|write (?:it |the result )?up)\b",
    "完成|结束|收尾|就这些|总结",
)


def propose_answer(ctx: JSON) -> JSON:
    instruction = " ".join(str(ctx.get("instruction", "")).split())
    box = Toolbox(list(ctx.get("tools", [])))
    if _HAND_BACK.search(instruction) and not NOT.search(instruction):
        return {"kind": "hand_back", "step": None, "message": "Handing the task back to the agent."}
    if cancels(instruction):
        return {"kind": "cancel", "step": None, "message": "Cancelling the run."}
    memory: dict[str, str] = {}
    for step in ctx.get("steps", []):
        for key, value in (step.get("params") or {}).items():
            if key in box.entities and isinstance(value, str):
                memory[key] = value
    clauses = split_clauses(instruction)
    drafts = draft_steps([(c, "task") for c in clauses], box, instruction, memory)
    if drafts:
        first = drafts[0]
        unknown = unknown_target(first.clause, box, first.tool, first.mentioned)
        if unknown is not None:  # never bent onto the run's earlier target or a default
            return _unclear(f"{unknown} Nothing was proposed; say the instruction with a known one.")
        missing = missing_params(first.tool, first.params)
        if missing:
            return _unclear(f"Which {' and '.join(missing)} should {first.tool.name} use? Say it, e.g. "
                            f"“{first.clause} {_example(first.tool, missing[0])}”.")  # fmt: skip
        later = " The rest can follow once this step has run." if len(drafts) > 1 else ""
        step = {"tool": first.tool.name, "params": first.params, "reason": f"Asked: “{first.clause}”."}
        return {"kind": "step", "step": step, "message": f"One step at a time.{later}".strip()}
    if _FINISH.search(instruction) and not NOT.search(instruction):
        return {"kind": "finish", "step": None, "message": "Finishing: writing up the result."}
    return _unclear(
        f"No tool can do “{instruction[:200]}”. {can_do_line(box)} "
        "Give one instruction (an action and its target), or say “finish” or “hand back”."
    )


def _example(tool: ToolView, pname: str) -> str:
    param = tool.param(pname)
    return param.enum[0] if param and param.enum else f"<{pname}>"


def _unclear(message: str) -> JSON:
    return {"kind": "unclear", "step": None, "message": message}
