"""What a reworked result must keep: the numbers of what ran, and the shape a person asked for.

A refinement is presentation only (README "How a run pauses"): it may reorder, regroup and reword,
but every number of the steps' results and errors stays unless the person asked for less and the
text says what it left out. A model's rework that breaks this is sent back once with what it
dropped named, then replaced by the offline rework (see :meth:`agent.brain.LLMBrain.refine`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agent.models import Step

NUMBER = re.compile(r"(?<![\w.:])v?\d+(?:[.:]\d+)*(?![\w:]|\.\d)")
"""A number as a fact: ``1204``, ``4.7``, ``v2.14``, ``14:02:11``; not the digits of ``p99`` or ``7f9``."""
TABLE = re.compile(r"^(?=[^\n]*\|)[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$", re.MULTILINE)
"""The line under a pipe table's header: ``| --- | --- |``."""
LEFT_OUT = re.compile(
    r"left out|leav(?:e|ing) out|omit|not shown|not included|not listed|excluded|skipped|dropped|"
    r"for the full|full (?:result|output|log)|only the errors|"
    r"省略|略去|未列出|未显示|未包含|没有列出|不含|只列出|仅列出|完整",
    re.IGNORECASE,
)
"""Words with which a shorter text says that it left something out (English and Chinese)."""
_WANTS_TABLE = re.compile(r"\btables?\b|表格|列表格", re.IGNORECASE)


def facts_of(steps: Sequence[Step], also: Iterable[str] = ()) -> list[str]:
    """The numbers of the steps' results and errors (and ``also``), each once, in order."""
    text = "\n".join(f"{s.result or ''}\n{s.error or ''}" for s in steps)
    return list(dict.fromkeys([*NUMBER.findall(text), *also]))


def has(text: str, fact: str) -> bool:
    """Whether ``text`` states ``fact`` (a number as a whole number, anything else case-blind)."""
    if NUMBER.fullmatch(fact):
        return re.search(rf"(?<![\w.:]){re.escape(fact)}(?![\w:]|\.\d)", text) is not None
    return fact.lower() in text.lower()


def dropped(text: str, facts: Sequence[str]) -> list[str]:
    """The facts ``text`` no longer states, unless it says it left something out."""
    missing = [f for f in facts if not has(text, f)]
    return [] if missing and LEFT_OUT.search(text) else missing


def wants_table(request: str) -> bool:
    return _WANTS_TABLE.search(request) is not None


def has_table(text: str) -> bool:
    return TABLE.search(text) is not None
