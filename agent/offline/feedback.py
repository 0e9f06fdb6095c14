"""Reading feedback on rejected plans: which entities, values and steps it swaps, drops or adds."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agent.offline.params import extract_params
from agent.offline.tools_match import Toolbox
from agent.offline.vocabulary import FIRST, INSTEAD_OF, JSON, NEGATION, split_clauses, value_at

_ONLY = re.compile(r"\b(?:only|just)\b|只|仅", re.I)
_CONDITION = re.compile(r"\b(?:if|when|unless|in case)\b|如果|若|的话|才", re.I)
"""'only restart if there are errors' is a condition on that step, not 'only this step'."""
_SWAP = re.compile(r"\binstead\b|换成|改成|改为", re.I)  # "restart search instead": the target changes, no step more
_ALSO = re.compile(r"\b(?:also|too|as well|additionally|in addition)\b|还要|也要|另外|再加", re.I)
_IDIOMS = re.compile(r"\b(?:after all|at all|all good|all right|all set)\b", re.I)
"""Phrases whose 'all' is no log level: 'ok restart it after all'."""


@dataclass
class FeedbackEdit:
    """What the feedback on rejected plans changes: the task text and which steps go, come, move or change.

    Feedback is read in the order it was given, each message over what the earlier ones left: a step
    taken back stays out until a later message names it again, and a later value, service, "only"
    or order replaces an earlier conflicting one instead of piling up next to it."""

    task: str
    dropped: set[str] = field(default_factory=set)
    only: set[str] = field(default_factory=set)
    added: list[tuple[str, str]] = field(default_factory=list)
    prepended: list[tuple[str, str]] = field(default_factory=list)
    replaced: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    values: dict[str, JSON] = field(default_factory=dict)
    first: list[str] = field(default_factory=list)
    """Tools a message asked to do first, the latest first: their steps go to the front in this order."""
    ahead: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Tools a message asked to do first *before another step it names* ("read the logs first, before
    restarting"; "先看日志再重启"), with that message's words and the other step's tool. A step of that tool the
    task puts after the other one ("check errors after") is a part of its own and stays where it is."""
    understood: bool = False


def apply_feedback(task: str, feedback: list[str], box: Toolbox, rejected: list[Any]) -> FeedbackEdit:
    """Rewrite the task by the feedback: swap entities and values, drop ("don't X"), bring back, move
    ("X first") and add ("also X") steps; each message in turn, a later one winning over an earlier one."""
    edit = FeedbackEdit(task)
    if not feedback:
        return edit
    asked = {t.name for c in split_clauses(task) if (t := box.best(c))}
    planned = {str(s.get("tool")) for s in rejected if isinstance(s, dict)} | asked
    for text in feedback:
        _apply_one(edit, _IDIOMS.sub(" ", text), box, planned, asked)
    return edit


def _apply_one(edit: FeedbackEdit, text: str, box: Toolbox, planned: set[str], asked: set[str]) -> None:
    """One message over what the earlier ones left. ``planned``: the tools of the task and of the rejected
    plan (values go to them); ``asked``: the task's own tools (naming one again keeps it, not adds it)."""
    in_plan = asked | {t.name for e in (*edit.added, *edit.prepended) if (t := box.best(e[0]))}
    also = bool(_ALSO.search(text))
    old: dict[str, set[str]] = {}
    new: dict[str, list[str]] = {}
    named: list[str] = []  # tools this message wants, in its order
    firsts: dict[str, str] = {}  # tools this message asks to do first, with the words that ask
    only: set[str] = set()
    for clause in split_clauses(text):
        wanted: list[tuple[str, str]] = []
        unwanted: list[str] = []
        first = bool(FIRST.search(clause))
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
                continue
            named.append(tool.name)
            if first:
                edit.first = [tool.name, *(t for t in edit.first if t != tool.name)]
                firsts.setdefault(tool.name, FIRST.sub("", piece).strip())
            if _ONLY.search(piece) and not _CONDITION.search(piece):
                only.add(tool.name)
                if tool.name not in in_plan:
                    wanted.append((piece, "feedback"))
            elif tool.name not in in_plan or (
                _new_target(piece, tool.name, edit.task, box) and not (_SWAP.search(piece) and not also)
            ):
                wanted.append((FIRST.sub("", piece).strip(), "feedback"))
            else:  # the planned step named again: "make it 6 replicas" gives it the new value
                _note_values(edit, piece, box, {tool.name})
        for name in unwanted:  # taken back: out of the plan, and out of what earlier feedback added
            _take_back(edit, name, box)
        if wanted and unwanted:  # "roll back instead of restarting": in the same place
            edit.replaced[unwanted[0]] = wanted
        elif wanted:
            (edit.prepended if first else edit.added).extend(wanted)
    for name, said in firsts.items():  # "X first, before Y": X goes ahead of Y; the task's X after Y stays
        before = next((t for t in named if t != name and t not in firsts and t in in_plan), None)
        if before is not None:
            edit.ahead[name] = (said, before)
        else:
            edit.ahead.pop(name, None)
    for name in named:  # named again: a step taken back earlier comes back
        edit.dropped.discard(name)
        if edit.only and not only:
            edit.only.add(name)
    if only:  # a new "only" replaces an earlier one
        edit.only = only
    for pname, values in new.items():
        fresh = [v for v in values if v not in old.get(pname, set())]
        if not fresh:
            continue
        edit.understood = True
        replaced = old.get(pname) or {v for v in box.entities.get(pname, set()) if value_at(edit.task, v) >= 0}
        replaced -= set(fresh)
        if also and replaced:  # "also restart checkout": a step more, the task's own target stays
            continue
        if not replaced:
            edit.task = f"{edit.task} {fresh[0]}"
        for value in replaced:
            edit.task = _replace_value(edit.task, value, fresh[0])


def _new_target(piece: str, tool: str, task: str, box: Toolbox) -> bool:
    """Whether a planned tool named again is named for another target ("also restart checkout"), not
    the one it already has or one the task leaves open ("先看 payments 的日志")."""
    param = box.by_name[tool].param
    for _, pname, value in box.entities_in(piece):
        if param(pname) is None or value_at(task, value) >= 0:
            continue
        if any(value_at(task, other) >= 0 for other in box.entities.get(pname, set())):
            return True
    return False


def _take_back(edit: FeedbackEdit, name: str, box: Toolbox) -> None:
    edit.dropped.add(name)
    edit.only.discard(name)
    edit.first = [t for t in edit.first if t != name]
    edit.ahead = {k: v for k, v in edit.ahead.items() if name not in (k, v[1])}
    edit.values.pop(name, None)

    def keep(entry: tuple[str, str]) -> bool:
        tool = box.best(entry[0])
        return tool is None or tool.name != name

    edit.added = [e for e in edit.added if keep(e)]
    edit.prepended = [e for e in edit.prepended if keep(e)]
    edit.replaced = {k: kept for k, v in edit.replaced.items() if (kept := [e for e in v if keep(e)])}


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
