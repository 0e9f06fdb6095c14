"""Reading feedback on rejected plans: which entities, values and steps it swaps, drops or adds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.offline.params import extract_params
from agent.offline.tools_match import Toolbox
from agent.offline.vocabulary import FIRST, INSTEAD_OF, JSON, NEGATION, split_clauses, value_at

_ONLY = re.compile(r"\b(?:only|just)\b|只|仅", re.I)


@dataclass
class FeedbackEdit:
    """What the feedback on rejected plans changes: the task text and which steps go, come or change."""

    task: str
    dropped: set[str] = field(default_factory=set)
    only: set[str] = field(default_factory=set)
    added: list[tuple[str, str]] = field(default_factory=list)
    prepended: list[tuple[str, str]] = field(default_factory=list)
    replaced: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    values: dict[str, JSON] = field(default_factory=dict)
    understood: bool = False


def apply_feedback(task: str, feedback: list[str], box: Toolbox, rejected: list[Any]) -> FeedbackEdit:
    """Rewrite the task by the feedback: swap entities and values, drop ("don't X") and add ("also X") steps."""
    edit = FeedbackEdit(task)
    planned = {str(s.get("tool")) for s in rejected if isinstance(s, dict)} | {
        t.name for c in split_clauses(task) if (t := box.best(c))
    }
    for text in feedback:
        old: dict[str, set[str]] = {}
        new: dict[str, list[str]] = {}
        for clause in split_clauses(text):
            wanted: list[tuple[str, str]] = []
            unwanted: list[str] = []
            for index, piece in enumerate(INSTEAD_OF.split(clause, maxsplit=1)):
                negated = index > 0 or bool(NEGATION.search(piece))
                for _, pname, value in box.entities_in(piece):
                    (old.setdefault(pname, set()).add(value) if negated else new.setdefault(pname, []).append(value))
                tool = box.best(piece)
                if tool is None:
                    if not negated:
                        _note_values(edit, piece, box, planned)
                    continue
                edit.understood = True
                if negated:
                    unwanted.append(tool.name)
                elif _ONLY.search(piece):
                    edit.only.add(tool.name)
                    if tool.name not in planned:
                        wanted.append((piece, "feedback"))
                elif tool.name not in planned or box.entities_in(piece):
                    wanted.append((FIRST.sub("", piece).strip(), "feedback"))
            edit.dropped.update(unwanted)
            if wanted and unwanted:  # "roll back instead of restarting": in the same place
                edit.replaced[unwanted[0]] = wanted
            elif wanted:
                (edit.prepended if FIRST.search(clause) else edit.added).extend(wanted)
        for pname, values in new.items():
            fresh = [v for v in values if v not in old.get(pname, set())]
            if not fresh:
                continue
            edit.understood = True
            replaced = old.get(pname) or {v for v in box.entities.get(pname, set()) if value_at(edit.task, v) >= 0}
            replaced -= set(fresh)
            if not replaced:
                edit.task = f"{edit.task} {fresh[0]}"
            for value in replaced:
                edit.task = _replace_value(edit.task, value, fresh[0])
    return edit


def _note_values(edit: FeedbackEdit, piece: str, box: Toolbox, planned: set[str]) -> None:
    """Values in feedback that names no tool ("use 2.4.1") go to the planned steps that take them."""
    for name in sorted(planned):
        tool = box.by_name.get(name)
        if tool is None:
            continue
        found = extract_params(tool, piece, defaults=False)
        found = {k: v for k, v in found.items() if k not in box.entities}
        if found:
            edit.values.setdefault(name, {}).update(found)
            edit.understood = True


def _replace_value(text: str, value: str, new: str) -> str:
    if value.isascii():
        return re.sub(rf"(?<![A-Za-z0-9]){re.escape(value)}(?![A-Za-z0-9])", new, text, flags=re.I)
    return text.replace(value, new)
