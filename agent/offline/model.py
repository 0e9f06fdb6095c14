"""The :class:`OfflineModel` itself: routes each request purpose to its heuristic answer as JSON."""

from __future__ import annotations

import asyncio
import json

from agent.errors import LLMError
from agent.offline.vocabulary import JSON
from agent.ports import LLMRequest


def _answer(purpose: str, ctx: JSON) -> JSON:
    """The heuristic answer for ``purpose``. Each heuristic is imported when first asked for: a process that
    only resumes a run asks the model nothing, so it never loads them."""
    if purpose in ("plan", "revise"):
        from agent.offline.planner import plan_answer, revise_answer

        return plan_answer(ctx) if purpose == "plan" else revise_answer(ctx)
    if purpose in ("summarize", "refine"):
        from agent.offline.text import apply_refinement, render_summary

        task, steps = str(ctx.get("task", "")), list(ctx.get("steps", []))
        if purpose == "summarize":
            return {"text": render_summary(task, steps, list(ctx.get("notes", [])))}
        output, feedback = (str(ctx.get(k) or "") for k in ("output", "feedback"))
        return {"text": apply_refinement(str(ctx.get("task") or ""), output, feedback, steps)}
    if purpose == "classify":
        from agent.offline.classifier import classify_text

        return classify_text(str(ctx.get("text", "")), ctx)
    if purpose == "propose":
        from agent.offline.takeover import propose_answer

        return propose_answer(ctx)
    raise KeyError(purpose)


_AT_ONCE = frozenset({"summarize"})
"""Purposes answered on the caller's loop: the result is written from what ran (templating of bounded size, some
10 to 20 microseconds), where a hop to a thread and back costs about ten times that."""


class OfflineModel:
    """A :class:`~agent.ports.ChatModel` that needs no network: keyword heuristics over the context."""

    name = "offline"
    local = True
    """It answers in this process, in well under a millisecond, at no cost: writing a run's result with it
    is work safe to do again (see :meth:`agent.gates.GateRules.replayable`)."""

    async def complete(self, request: LLMRequest) -> str:
        """The answer, worked out in a thread (reading a long text must not hold up the event loop), or at once
        for a purpose that reads nobody's prose (see ``_AT_ONCE``)."""
        try:
            if request.purpose in _AT_ONCE:
                answer = _answer(request.purpose, request.context)
            else:
                answer = await asyncio.to_thread(_answer, request.purpose, request.context)
        except Exception as exc:  # a heuristic bug must reach people as a model failure, not a crash
            raise LLMError(
                f"The offline model could not answer the {request.purpose} request ({type(exc).__name__}: {exc}). "
                "Rephrase what you wrote, or set TANDEM_MODEL to a real model."
            ) from exc
        return json.dumps(answer, ensure_ascii=False)
