"""A deterministic stand-in for the chat model: no network, same JSON answers.

:class:`OfflineModel` answers each :class:`~agent.ports.LLMRequest` from its
structured ``context`` (see :mod:`agent.prompts`) with exactly the JSON shape the
real model is asked for, so :mod:`agent.brain` parses both the same way.

The heuristics are small and generic over whatever tools are registered: a
task is split into clauses in the person's order, each clause is matched to a
tool by words (with an English/Chinese synonym table), and parameters are
filled from the tool's JSON schema (enum values, numbers, versions, channels,
free text). The classifier and the text rework are keyword tables.

Modules, lowest first: :mod:`~agent.offline.vocabulary` (synonyms, word search,
clause splitting, Chinese numerals), :mod:`~agent.offline.tools_match` (tools and
matching a clause to one), :mod:`~agent.offline.params` (filling parameters),
:mod:`~agent.offline.drafts` (a draft step per clause), :mod:`~agent.offline.feedback`
(what feedback on a plan changes), :mod:`~agent.offline.asked` (a value a correction
asks for that a tool does not know), :mod:`~agent.offline.planner` (``plan`` and
``revise``), :mod:`~agent.offline.classifier` (``classify``), :mod:`~agent.offline.text`
(``summarize`` and ``refine``), :mod:`~agent.offline.takeover` (``propose``) and
:mod:`~agent.offline.model` (the model that routes requests to them).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.offline.classifier import CERTAIN, cancels, classify_text
    from agent.offline.model import OfflineModel
    from agent.offline.planner import PlanParts, plan_parts
    from agent.offline.scope import named_unknown, outside_tools
    from agent.offline.text import apply_refinement, render_summary
    from agent.offline.vocabulary import split_clauses, zh_number

# Each name is imported from its module when first used: a process that only resumes a run reads no text and
# plans nothing, so it never loads the classifier or the planner.
_HOME = {
    "CERTAIN": "classifier",
    "cancels": "classifier",
    "classify_text": "classifier",
    "OfflineModel": "model",
    "PlanParts": "planner",
    "plan_parts": "planner",
    "named_unknown": "scope",
    "outside_tools": "scope",
    "apply_refinement": "text",
    "render_summary": "text",
    "split_clauses": "vocabulary",
    "zh_number": "vocabulary",
}


def __getattr__(name: str) -> object:
    if name not in _HOME:
        raise AttributeError(f"module 'agent.offline' has no attribute {name!r}")
    return getattr(importlib.import_module(f"agent.offline.{_HOME[name]}"), name)


__all__ = [
    "CERTAIN",
    "OfflineModel",
    "PlanParts",
    "apply_refinement",
    "classify_text",
    "cancels",
    "named_unknown",
    "outside_tools",
    "plan_parts",
    "render_summary",
    "split_clauses",
    "zh_number",
]
