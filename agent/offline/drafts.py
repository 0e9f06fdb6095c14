"""Draft steps: one per clause that names a tool, with the service carried over from nearby clauses."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.offline.params import extract_params, missing_params
from agent.offline.tools_match import Toolbox, ToolView
from agent.offline.vocabulary import JSON


@dataclass
class Draft:
    tool: ToolView
    params: JSON
    clause: str
    origin: str = "task"
    mentioned: dict[str, str] = field(default_factory=dict)
    note: str = ""
    ahead: bool = False
    """Put ahead of another step by feedback, beside a step of the same tool the task keeps later."""
    note_zh: str = ""
    """``note`` as a Chinese requester reads it."""

    def add_note(self, en: str, zh: str) -> None:
        self.note += f" {en}"
        self.note_zh += zh

    def reason(self, zh: bool = False) -> str:
        """Why the step is in the plan, in the requester's language: ``From the task: “restart payments”.``"""
        if zh:
            return f"{_SOURCES_ZH[self.origin]}：“{self.clause}”。{self.note_zh}"
        if self.origin == "lesson":
            return f"From an earlier correction: “{self.clause}”.{self.note}"
        source = "Added from feedback" if self.origin == "feedback" else "From the task"
        return f"{source}: “{self.clause}”.{self.note}"


_SOURCES_ZH = {"task": "来自任务", "feedback": "根据反馈添加", "lesson": "来自之前的纠正"}


def draft_steps(clauses: list[tuple[str, str]], box: Toolbox, task: str, memory: dict[str, str]) -> list[Draft]:
    """One draft per clause that names a tool; a clause naming only a new entity repeats the previous tool."""
    drafts: list[Draft] = []
    for clause, origin in clauses:
        tool = box.best(clause)
        entities = box.entities_in(clause)
        if tool is None and drafts and entities:
            prev = drafts[-1]
            for _, pname, value in entities:
                if prev.tool.param(pname):
                    params = {**prev.params, pname: value}
                    drafts.append(Draft(prev.tool, params, clause, origin, {pname: value}))
            continue
        if tool is None:
            if drafts:  # "deploy payments, version 2.4.2": values for the previous step
                extra = extract_params(drafts[-1].tool, clause, task=task, defaults=False)
                drafts[-1].params = {**extra, **drafts[-1].params}
            continue
        params = extract_params(tool, clause, task=task)
        named = [(p, v) for _, p, v in entities if tool.param(p)]
        values_by_param: dict[str, list[str]] = {}
        for p, v in named:
            values_by_param.setdefault(p, []).append(v)
        fanout = next(((p, vs) for p, vs in values_by_param.items() if len(vs) > 1), None)
        if fanout:  # "restart payments and checkout" in one clause: one step each
            pname, values = fanout
            drafts.extend(Draft(tool, {**params, pname: v}, clause, origin, {pname: v}) for v in values)
        else:
            drafts.append(Draft(tool, params, clause, origin, {p: v for p, v in named}))
    _fill_entities(drafts, memory)
    return drafts


def _fill_entities(drafts: list[Draft], memory: dict[str, str]) -> None:
    """A step without its service uses the last one named before it, else the next one named after it."""
    named_after: dict[str, list[str | None]] = {}  # param -> for each draft, the next value named after it
    for i, draft in enumerate(drafts):
        for pname in missing_params(draft.tool, draft.params):
            param = draft.tool.param(pname)
            if param is None or not param.enum:
                continue
            if pname not in named_after:
                named_after[pname] = _next_mentions(drafts, pname)
            value = memory.get(pname) or named_after[pname][i]
            if value in param.enum:
                draft.params[pname] = value
        for p in draft.tool.params:
            if p.required and p.enum and p.name in draft.params:
                memory[p.name] = str(draft.params[p.name])


def _next_mentions(drafts: list[Draft], pname: str) -> list[str | None]:
    """For each draft, the first value of ``pname`` that a later draft names (None if none does)."""
    found: list[str | None] = [None] * len(drafts)
    upcoming: str | None = None
    for i in range(len(drafts) - 1, -1, -1):
        found[i] = upcoming
        upcoming = drafts[i].mentioned.get(pname) or upcoming
    return found


def put_first(drafts: list[Draft], first: list[str], ahead: dict[str, tuple[str, str]]) -> list[Draft]:
    """The drafts with the tools of ``first`` at the front, in that order, the rest keeping theirs.

    A tool in ``ahead`` (asked to go before another step, with the words that asked) whose steps all
    come after that other step gets a step of its own at the front: "read the logs first, before
    restarting" on "restart payments and check errors after" reads the logs, restarts, then checks."""
    front: list[Draft] = []
    rest = list(drafts)
    for name in first:
        mine = [d for d in rest if d.tool.name == name]
        said, before = ahead.get(name, ("", ""))
        other = next((i for i, d in enumerate(rest) if d.tool.name == before), None)
        if mine and other is not None and all(rest.index(d) > other for d in mine):
            found = extract_params(mine[0].tool, said, defaults=False)
            front.append(Draft(mine[0].tool, {**mine[0].params, **found}, said, "feedback", ahead=True))
            continue
        front += mine
        rest = [d for d in rest if d.tool.name != name]
    return front + rest
