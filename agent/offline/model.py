"""The :class:`OfflineModel` itself: routes each request purpose to its heuristic answer as JSON."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable

from agent.errors import LLMError
from agent.offline.classifier import classify_text
from agent.offline.planner import plan_answer, revise_answer
from agent.offline.takeover import propose_answer
from agent.offline.text import apply_refinement, render_summary
from agent.offline.vocabulary import JSON
from agent.ports import LLMRequest


def _summarize_answer(ctx: JSON) -> JSON:
    return {"text": render_summary(str(ctx.get("task", "")), list(ctx.get("steps", [])), list(ctx.get("notes", [])))}


def _refine_answer(ctx: JSON) -> JSON:
    task, output, feedback = (str(ctx.get(k) or "") for k in ("task", "output", "feedback"))
    return {"text": apply_refinement(task, output, feedback, list(ctx.get("steps", [])))}


def _classify_answer(ctx: JSON) -> JSON:
    return classify_text(str(ctx.get("text", "")), ctx)


_ANSWERS: dict[str, Callable[[JSON], JSON]] = {
    "plan": plan_answer,
    "revise": revise_answer,
    "summarize": _summarize_answer,
    "refine": _refine_answer,
    "classify": _classify_answer,
    "propose": propose_answer,
}


class OfflineModel:
    """A :class:`~agent.ports.ChatModel` that needs no network: keyword heuristics over the context."""

    name = "offline"

    async def complete(self, request: LLMRequest) -> str:
        """The answer, worked out in a thread: reading a long text must not hold up the event loop."""
        try:
            answer = await asyncio.to_thread(_ANSWERS[request.purpose], request.context)
        except Exception as exc:  # a heuristic bug must reach people as a model failure, not a crash
            raise LLMError(
                f"The offline model could not answer the {request.purpose} request ({type(exc).__name__}: {exc}). "
                "Rephrase what you wrote, or set TANDEM_MODEL to a real model."
            ) from exc
        return json.dumps(answer, ensure_ascii=False)
