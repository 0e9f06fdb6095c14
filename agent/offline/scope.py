"""What the tools cover: a target a clause names that no tool knows, and a task outside every tool.

Both err on the side of planning: a clause is "outside" only when it names no action, no target and
no word of operations at all ("order pizza"); a target is "unknown" only when the words say it is
one ("on db-2", "restart redis") and it is none of the values the tools know.
"""

from __future__ import annotations

import re

from agent.capabilities import say_can_do
from agent.offline.tools_match import Toolbox, ToolView
from agent.offline.vocabulary import CONCEPTS, JSON, PARAM_WORDS, concepts_in, find_word, value_at

_WORD = re.compile(r"[A-Za-z][\w.\-]*[A-Za-z0-9]|[A-Za-z]")
_AFTER_PREPOSITION = re.compile(
    r"\b(?:on|for|of|at|in|from)\s+(?:the\s+)?(?:(?:service|host|server|node|box|machine|cluster|db|database)\s+)?"
    r"([A-Za-z][\w.\-]*[A-Za-z0-9])",
    re.I,
)
_PLAIN = frozenset(
    """a an the it its this that these those them they there here on for of in at to with from by and or but so
    please pls now again then also just me us my our we i you your can could would will do does did is are was be
    been all every everything anything something some any what how why when where which who up down out instead
    first after before last next new old same still not no yes ok okay right wrong too more less again one two
    step steps service services server servers thing things one ones prod production staging live today tonight
    minute minutes hour hours line lines level value values time times once twice while bit let lets see look
    make sure run runs running go going get want need should must""".split()
)
# Words of operations: a task that has one is about the systems, even if no tool matched it.
_OPS = re.compile(
    r"\b(?:service|server|host|node|cluster|prod|production|staging|incident|outage|alert|alerts|alarm|page|pager|"
    r"on-?call|down|broken|failing|fail|failed|slow|error|errors|latency|load|disk|memory|ram|cpu|database|db|"
    r"queue|deploy|deployment|release|rollout|config|health|status|uptime|monitor|everything|anything|system|"
    r"systems|site|website|app|api|endpoint|network|dns|certificate|ssl|tls|backup|restore|kubernetes|k8s|pod|"
    r"pods|container|docker|vm|instance|instances|investigate|diagnose|debug|troubleshoot|fix|why|"
    r"what'?s wrong|what'?s up|going on|happening|wrong|issues?|problems?|trouble)\b"
    r"|服务|故障|报警|告警|宕机|挂了|延迟|错误|异常|状态|监控|集群|数据库|磁盘|内存|部署|上线|排查|检查|怎么了|出问题",
    re.I,
)


def named_unknown(instruction: str, described: list[JSON], tool: str, params: JSON) -> str | None:
    """:func:`unknown_target` for a step a model proposed: the target ``instruction`` names, when the step's
    values are not named in it."""
    box = Toolbox(described)
    view = box.by_name.get(tool)
    if view is None:
        return None
    named = {k: str(v) for k, v in params.items() if isinstance(v, str) and _says(instruction, v)}
    return unknown_target(instruction, box, view, named)


def outside_tools(task: str, described: list[JSON]) -> bool:
    """:func:`outside` for the tools as ``ToolSpec.describe()`` gives them."""
    return outside(task, Toolbox(described))


def outside(task: str, box: Toolbox) -> bool:
    """True when ``task`` names no action a tool has, no value a tool knows and no word of operations."""
    if not box.tools or concepts_in(task) or box.entities_in(task) or _OPS.search(task):
        return False
    return not box.ranked(task) and not any(value_at(task, v) >= 0 for t in box.tools for p in t.params for v in p.enum)


def unknown_target(clause: str, box: Toolbox, tool: ToolView, named: dict[str, str]) -> str | None:
    """Why ``tool`` cannot take the target ``clause`` names: "There is no service `db-2`. Known: …".

    Only when the clause names none of the tool's known values itself (``named``): a known value
    named beside an unknown word ("restart payments in eu-1") is the target."""
    params = [p for p in tool.params if p.required and p.enum and p.name not in named]
    if not params or any(p.name in named for p in tool.params if p.enum):
        return None
    word = _target_word(clause, box)
    if word is None:
        return None
    param = params[0]
    return f"There is no {param.name.replace('_', ' ')} `{word}`. Known: {', '.join(param.enum)}."


def can_do_line(box: Toolbox) -> str:
    """What the tools can do, in a line or two."""
    known: dict[str, list[str]] = {}
    for tool in box.tools:
        for p in tool.params:
            if p.required and p.enum:
                known[p.name] = [*known.get(p.name, []), *(v for v in p.enum if v not in known.get(p.name, []))]
    return say_can_do([t.name for t in box.tools], known)


def _target_word(clause: str, box: Toolbox) -> str | None:
    candidates = [m.group(1) for m in _AFTER_PREPOSITION.finditer(clause)]
    words = _WORD.findall(clause)
    candidates += [w for w in words if re.search(r"\d|-", w)]
    candidates += [after for before, after in zip(words, words[1:], strict=False) if _is_action(before)]
    return next((w for w in candidates if not _understood(w, box)), None)


def _is_action(word: str) -> bool:
    lowered = word.lower()
    return any(find_word(lowered, s) == 0 for s in CONCEPTS["restart"] + CONCEPTS["check"] + CONCEPTS["deploy"]
               + CONCEPTS["rollback"] + CONCEPTS["scale"] + CONCEPTS["drop"])  # fmt: skip


def _understood(word: str, box: Toolbox) -> bool:
    """A word Tandem reads as something other than a target: plain English, an action, a parameter, a value."""
    lowered = word.lower().strip(".-")
    if not lowered or lowered in _PLAIN or lowered.isdigit() or re.fullmatch(r"v?\d+(?:\.\d+)+", lowered):
        return True
    if concepts_in(lowered) or any(lowered in words for words in PARAM_WORDS.values()):
        return True
    for tool in box.tools:
        if lowered in tool.tokens or lowered.rstrip("s") in tool.tokens:
            return True
        for p in tool.params:
            if lowered in (p.name.lower(), p.name.lower().rstrip("s")) or any(_says(word, v) for v in p.enum):
                return True
    return False


def _says(text: str, value: str) -> bool:
    """``value`` as a whole word of ``text`` (``db`` is not in ``db-2``; ``payments`` is in ``payment``)."""
    forms = {value.lower(), value.lower().replace("_", " "), value.lower().replace("_", "-")}
    if value.lower().endswith("s") and len(value) > 4:
        forms.add(value.lower()[:-1])
    return any(re.search(rf"(?<![\w.-]){re.escape(f)}(?![\w.-])", text.lower()) for f in forms)
