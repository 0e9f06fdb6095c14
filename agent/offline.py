"""A deterministic stand-in for the chat model: no network, same JSON answers.

:class:`OfflineModel` answers each :class:`~agent.ports.LLMRequest` from its
structured ``context`` (see :mod:`agent.prompts`) with exactly the JSON shape the
real model is asked for, so :mod:`agent.brain` parses both the same way.

The heuristics are small and generic over whatever tools are registered: a
task is split into clauses in the person's order, each clause is matched to a
tool by words (with an English/Chinese synonym table), and parameters are
filled from the tool's JSON schema (enum values, numbers, versions, channels,
free text). The classifier and the text rework are keyword tables.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from agent.errors import LLMError
from agent.ports import LLMRequest

__all__ = ["OfflineModel", "apply_refinement", "classify_text", "render_summary"]

JSON = dict[str, Any]

# --- vocabulary ------------------------------------------------------------------

CONCEPTS: dict[str, tuple[str, ...]] = {
    "restart": ("restart", "reboot", "bounce", "重启", "重新启动"),
    "deploy": ("deploy", "release", "publish", "roll out", "rollout", "upgrade", "部署", "发布", "上线", "升级"),
    "rollback": ("rollback", "roll back", "revert", "downgrade", "回滚", "回退"),
    "logs": ("log", "logs", "日志"),
    "errors": ("error", "errors", "exception", "exceptions", "failure", "failures", "错误", "报错", "异常"),
    "warnings": ("warning", "warnings", "warn", "警告", "告警"),
    "metrics": ("metric", "metrics", "dashboard", "graph", "指标", "监控"),
    "latency": ("latency", "slow", "slowness", "p99", "response time", "延迟", "慢"),
    "cpu": ("cpu",),
    "requests": ("requests", "traffic", "qps", "throughput", "流量", "请求量"),
    "scale": ("scale", "replica", "replicas", "扩容", "缩容", "副本"),
    "check": ("check", "status", "health", "healthy", "inspect", "look at", "检查", "状态", "健康", "查看", "看看"),
    "send": ("send", "notify", "tell", "post", "message", "announce", "发送", "通知", "告诉", "消息"),
    "cache": ("cache", "caches", "清缓存", "缓存"),
    "drop": ("drop", "clear", "purge", "flush", "清除", "清空", "清理"),
    "list": ("list", "enumerate", "all services", "列出", "列表", "所有服务", "哪些服务"),
    "read": ("read", "show", "tail", "view", "get", "fetch", "查询", "读"),
}
# Verbs that say little about which tool is meant count for less.
_WEAK_CONCEPTS = {"check": 0.5, "list": 0.5, "read": 0.3, "drop": 0.5}
_NAME_WEIGHT, _ENUM_WEIGHT, _DESC_WEIGHT = 3.0, 2.5, 0.5
_MIN_SCORE = 1.0

# Words that point a number at an integer parameter ("5 replicas", "last 30 minutes").
_PARAM_WORDS: dict[str, tuple[str, ...]] = {
    "replicas": ("replica", "instance", "pod", "node", "副本", "实例", "个"),
    "minutes": ("minute", "min", "mins", "m", "分钟"),
    "hours": ("hour", "hr", "h", "小时"),
    "limit": ("line", "entries", "entry", "log", "条", "行"),
}
_TEXT_PARAMS = ("text", "message", "body", "content", "note", "comment")

_STRONG_SPLIT = re.compile(
    r"\s*(?:;|；|。|\bthen\b|\bafterwards\b|\bafter that\b|\bfinally\b|然后|之后|以后|接着|随后|最后|再)\s*", re.I
)
_WEAK_SPLIT = re.compile(r"\s*(?:,|，|、|\band\b|\balso\b|\bplus\b|\bas well as\b|并且|同时|以及|还要|另外)\s*", re.I)
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|「([^」]+)」|(?<![A-Za-z])'([^']+)'(?![A-Za-z])")
_SAYING = re.compile(
    r"\b(?:saying|that says|that|to say|with (?:the )?text)\b\s*:?\s*|[:：]\s*|内容(?:是|为)?[:：]?\s*", re.I
)
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?(?![\w.])")
_CHANNEL = re.compile(r"(?<![\w#])#[\w-]+")
_CHANNEL_WORD = re.compile(r"(?:\b(?:the\s+)?([a-z][\w-]*)\s+channel\b|([\w-]+)\s*频道)", re.I)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.#-])\d+(?![0-9])")
_NEGATION = re.compile(
    r"\b(?:don'?t|do not|no need to|skip|without|never|not|no|remove)\b"
    "|不要|别|不用|不需要|跳过|不必|无需|不是|去掉|删掉",
    re.I,
)
_INSTEAD_OF = re.compile(r"\s*(?:\binstead of\b|\brather than\b|\bnot\b|而不是|不是)\s*", re.I)
_ONLY = re.compile(r"\b(?:only|just)\b|只|仅", re.I)
_FIRST = re.compile(r"\bfirst\b(?!\s+step)|先(?!别)", re.I)
_FILLER = re.compile(r"^(?:please|pls|can you|could you|and|also|then|帮我|请|麻烦)\s*", re.I)


def _words(text: str) -> str:
    return text.lower().replace("_", " ")


@cache
def _pattern(word: str) -> re.Pattern[str]:
    body = re.escape(word).replace(r"\ ", r"\s+")
    stems = [rf"{body}(?:s|es|ed|d|ing)?"]
    if word.endswith("e"):
        stems.append(re.escape(word[:-1]) + "ing")
    return re.compile(rf"(?<![a-z0-9])(?:{'|'.join(stems)})(?![a-z0-9])")


def _find(text: str, word: str) -> int:
    """Position of ``word`` in lowercased ``text`` (-1 if absent); English by word, Chinese by substring."""
    if word.isascii():
        found = _pattern(word).search(text)
        return found.start() if found else -1
    return text.find(word)


def concepts_in(text: str) -> dict[str, int]:
    """The concepts named in ``text``, each with the position of its first mention."""
    lowered = _words(text)
    seen: dict[str, int] = {}
    for concept, synonyms in CONCEPTS.items():
        positions = [p for p in (_find(lowered, s) for s in synonyms) if p >= 0]
        if positions:
            seen[concept] = min(positions)
    return seen


# --- tools as the offline model sees them -------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str
    kind: str
    enum: tuple[str, ...] = ()
    required: bool = False


@dataclass(frozen=True)
class ToolView:
    index: int
    name: str
    description: str
    risk: str
    params: tuple[Param, ...]
    concepts: dict[str, float]
    tokens: tuple[str, ...]

    def param(self, name: str) -> Param | None:
        return next((p for p in self.params if p.name == name), None)


def _resolve(schema: JSON, prop: JSON) -> JSON:
    if "$ref" in prop:
        target = schema.get("$defs", {}).get(str(prop["$ref"]).rsplit("/", 1)[-1], {})
        return _resolve(schema, {**target, **{k: v for k, v in prop.items() if k != "$ref"}})
    for key in ("anyOf", "oneOf", "allOf"):
        options = [o for o in prop.get(key, []) if isinstance(o, dict) and o.get("type") != "null"]
        if options:
            return _resolve(schema, options[0])
    return prop


def _tool_view(index: int, described: JSON) -> ToolView:
    name = str(described.get("name", ""))
    schema = described.get("parameters") or {}
    required = set(schema.get("required", []))
    params: list[Param] = []
    for pname, raw in (schema.get("properties") or {}).items():
        prop = _resolve(schema, raw)
        values = prop.get("enum") or ([prop["const"]] if "const" in prop else [])
        enum = tuple(str(v) for v in values if isinstance(v, str))
        params.append(Param(str(pname), str(prop.get("type", "string" if enum else "any")), enum, pname in required))
    weights: dict[str, float] = {}
    sources = [(name, _NAME_WEIGHT), (str(described.get("description", "")), _DESC_WEIGHT)]
    sources += [(value, _ENUM_WEIGHT) for p in params if not p.required for value in p.enum]
    for text, weight in sources:
        for concept in concepts_in(text):
            weights[concept] = max(weights.get(concept, 0.0), weight)
    tokens = tuple(t for t in re.split(r"[_\-\s]+", name.lower()) if len(t) >= 3)
    return ToolView(index, name, str(described.get("description", "")), str(described.get("risk", "read")),
                    tuple(params), weights, tokens)  # fmt: skip


class Toolbox:
    """The registered tools (``ToolSpec.describe()`` dicts) with the matching the planner needs."""

    def __init__(self, described: list[Any]) -> None:
        self.tools = [_tool_view(i, d) for i, d in enumerate(described) if isinstance(d, dict)]
        self.by_name = {t.name: t for t in self.tools}
        self.entities: dict[str, set[str]] = {}
        for t in self.tools:
            for p in t.params:
                if p.required and p.enum:
                    self.entities.setdefault(p.name, set()).update(p.enum)
        counts: dict[str, int] = {}
        for t in self.tools:
            for token in set(t.tokens):
                counts[token] = counts.get(token, 0) + 1
        covered = {w for synonyms in CONCEPTS.values() for w in synonyms}
        self._token_weight = {
            k: 2.0 / n for k, n in counts.items() if k not in covered and k.rstrip("s") not in covered
        }

    def ranked(self, text: str) -> list[tuple[float, ToolView]]:
        """Tools that ``text`` asks for, best first (ties: the one named first, then the safer one)."""
        text = _without_message(text)
        found = concepts_in(text)
        lowered = _words(text)
        scored: list[tuple[float, int, ToolView]] = []
        for t in self.tools:
            hits = {c: pos for c, pos in found.items() if t.concepts.get(c)}
            score = sum(_WEAK_CONCEPTS.get(c, 1.0) * t.concepts[c] for c in hits)
            tokens = [pos for tok in t.tokens if (pos := _find(lowered, tok)) >= 0]
            score += sum(self._token_weight.get(tok, 0.0) for tok in t.tokens if _find(lowered, tok) >= 0)
            if score >= _MIN_SCORE:
                scored.append((score, min([*hits.values(), *tokens], default=0), t))
        scored.sort(key=lambda s: (-s[0], s[1], s[2].risk != "read", s[2].index))
        return [(score, t) for score, _, t in scored]

    def best(self, text: str) -> ToolView | None:
        ranked = self.ranked(text)
        return ranked[0][1] if ranked else None

    def entities_in(self, text: str) -> list[tuple[int, str, str]]:
        """``(position, param, value)`` for every entity value (a required enum value) named in ``text``."""
        found = [(pos, p, v) for p, values in self.entities.items() for v in values if (pos := _value_at(text, v)) >= 0]
        return sorted(found)


def _without_message(text: str) -> str:
    """The clause minus quoted text and, for a message, what it says: words there do not pick the tool."""
    text = _QUOTED.sub(" ", text)
    saying = _SAYING.search(text)
    if saying and "send" in concepts_in(text[: saying.start()]):
        return text[: saying.start()]
    return text


def _value_at(text: str, value: str) -> int:
    lowered = text.lower()
    candidates = {value.lower(), value.lower().replace("_", " "), value.lower().replace("_", "-")}
    if value.lower().endswith("s") and len(value) > 4:
        candidates.add(value.lower()[:-1])
    positions = [p for p in (_find(lowered, c) for c in candidates) if p >= 0]
    return min(positions) if positions else -1


# --- splitting a task into clauses -----------------------------------------------------


def split_clauses(text: str) -> list[str]:
    """The task's clauses in the order the person wants them done."""
    quoted: list[str] = []

    def protect(match: re.Match[str]) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    def restore(part: str) -> str:
        return re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], part).strip()

    clauses: list[str] = []
    for segment in _STRONG_SPLIT.split(_QUOTED.sub(protect, text)):
        tail = ""
        saying = _SAYING.search(segment) if "send" in concepts_in(segment) else None
        if saying:
            segment, tail = segment[: saying.start()], segment[saying.start() :]
        parts = [p for p in _WEAK_SPLIT.split(segment) if p.strip()] or [""]
        parts[-1] += tail
        for part in parts:
            clauses.extend(_order_after(part))
    ordered = [restore(_FILLER.sub("", c.strip())) for c in clauses if c.strip()]
    for i, clause in enumerate(list(ordered)):
        if i > 0 and _FIRST.search(clause):
            ordered.insert(0, ordered.pop(i))
    return [c for c in ordered if c]


def _order_after(part: str) -> list[str]:
    """``A after B`` is B, then A; a trailing "after" is dropped; "before B, A" is left to the caller."""
    found = re.search(r"\bafter\b", part, re.I)
    if not found:
        return [part]
    before, after = part[: found.start()].strip(), part[found.end() :].strip()
    return [after, before] if before and after else [before or after]


# --- filling parameters ------------------------------------------------------------


def _scrubbed(text: str) -> str:
    """``text`` without versions, channels and step references, so the numbers left are plain counts."""
    text = _VERSION.sub(" ", text)
    text = _CHANNEL.sub(" ", text)
    return re.sub(r"\bstep\s*#?\s*\d+|第\s*\d+\s*步", " ", text, flags=re.I)


def _numbers_for(tool: ToolView, text: str) -> dict[str, int]:
    ints = [p for p in tool.params if p.kind in ("integer", "number")]
    if not ints:
        return {}
    clean = _scrubbed(text).lower()
    numbers = [(m.start(), m.end(), int(m.group())) for m in _NUMBER.finditer(clean)]
    candidates: list[tuple[int, str, int]] = []
    for p in ints:
        words = {p.name.lower(), p.name.lower().rstrip("s"), *_PARAM_WORDS.get(p.name.lower(), ())}
        alts = "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))
        after = re.compile(rf"^\s*(?:more\s+|个)?(?:[a-z]+\s+)?(?:{alts})s?(?![a-z])")
        before = re.compile(rf"(?<![a-z])(?:{alts})s?\s*(?:to|=|:|of|at|by|到|为|是|数|改成)?\s*$")
        for start, end, _ in numbers:
            if after.search(clean[end : end + 16]):
                candidates.append((0, p.name, start))
            elif before.search(clean[max(0, start - 24) : start]):
                candidates.append((1, p.name, start))
    chosen: dict[str, int] = {}
    used: set[int] = set()
    by_start = {start: value for start, _, value in numbers}
    for _, name, start in sorted(candidates):
        if name not in chosen and start not in used:
            chosen[name] = by_start[start]
            used.add(start)
    leftovers = [value for start, _, value in numbers if start not in used]
    for p in ints:
        if p.required and p.name not in chosen and leftovers:
            chosen[p.name] = leftovers.pop(0)
    return chosen


def _text_for(text: str, task: str) -> str:
    quoted = _QUOTED.search(text)
    if quoted:
        return next(g for g in quoted.groups() if g)
    saying = _SAYING.search(text)
    if saying and text[saying.end() :].strip():
        return text[saying.end() :].strip()
    rest = _CHANNEL.sub(" ", text)
    for synonym in (*CONCEPTS["send"], "a message", "message", "channel", "频道"):
        rest = re.sub(rf"(?<![A-Za-z]){re.escape(synonym)}\w*", " ", rest, flags=re.I)
    rest = re.sub(r"^\W*(?:(?:to|that|about|the|in|on|a|an)\b\W*)*", "", rest.strip(), flags=re.I)
    rest = " ".join(rest.split())
    return rest if len(rest) >= 3 else f"Update from Tandem: {task}"


def extract_params(tool: ToolView, text: str, *, task: str = "", defaults: bool = True) -> dict[str, Any]:
    """Values for ``tool``'s parameters that ``text`` names. ``defaults`` also fills free text it can infer."""
    lowered = _words(text)
    found = concepts_in(text)
    params: dict[str, Any] = dict(_numbers_for(tool, text))
    for p in tool.params:
        name = p.name.lower()
        if p.name in params:
            continue
        if p.enum:
            direct = sorted((pos, v) for v in p.enum if (pos := _value_at(text, v)) >= 0)
            if direct:
                params[p.name] = direct[0][1]
                continue
            if not p.required:
                hits = sorted((found[c], v) for v in p.enum for c in concepts_in(v) if c in found)
                if hits:
                    params[p.name] = hits[0][1]
        elif "version" in name or name in ("tag", "release"):
            version = _VERSION.search(text)
            if version:
                params[p.name] = version.group()
        elif "channel" in name:
            channel = _CHANNEL.search(text)
            named = _CHANNEL_WORD.search(text)
            if channel:
                params[p.name] = channel.group()
            elif named:
                params[p.name] = "#" + (named.group(1) or named.group(2))
        elif name in _TEXT_PARAMS:
            if defaults:
                params[p.name] = _text_for(text, task or text)
        elif p.kind == "boolean":
            if _find(lowered, name.replace("_", " ")) >= 0:
                params[p.name] = not _NEGATION.search(text)
        elif p.kind in ("string", "any"):
            value = re.search(rf"(?<![a-z]){re.escape(name)}\s*(?:=|:|is|to|of)?\s*([\w.\-/#]+)", lowered)
            if value:
                start = value.start(1)
                params[p.name] = text[start : start + len(value.group(1))]
    return params


def _missing(tool: ToolView, params: JSON) -> list[str]:
    return [p.name for p in tool.params if p.required and p.name not in params]


# --- planning ------------------------------------------------------------------------


@dataclass
class Draft:
    tool: ToolView
    params: JSON
    clause: str
    origin: str = "task"
    mentioned: dict[str, str] = field(default_factory=dict)
    note: str = ""

    def reason(self) -> str:
        source = "Added from feedback" if self.origin == "feedback" else "From the task"
        return f"{source}: “{self.clause}”.{self.note}"


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
    for i, draft in enumerate(drafts):
        for pname in _missing(draft.tool, draft.params):
            param = draft.tool.param(pname)
            if param is None or not param.enum:
                continue
            later = (d.mentioned.get(pname) for d in drafts[i + 1 :])
            value = memory.get(pname) or next((v for v in later if v), None)
            if value in param.enum:
                draft.params[pname] = value
        for p in draft.tool.params:
            if p.required and p.enum and p.name in draft.params:
                memory[p.name] = str(draft.params[p.name])


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
            for index, piece in enumerate(_INSTEAD_OF.split(clause, maxsplit=1)):
                negated = index > 0 or bool(_NEGATION.search(piece))
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
                    wanted.append((_FIRST.sub("", piece).strip(), "feedback"))
            edit.dropped.update(unwanted)
            if wanted and unwanted:  # "roll back instead of restarting": in the same place
                edit.replaced[unwanted[0]] = wanted
            elif wanted:
                (edit.prepended if _FIRST.search(clause) else edit.added).extend(wanted)
        for pname, values in new.items():
            fresh = [v for v in values if v not in old.get(pname, set())]
            if not fresh:
                continue
            edit.understood = True
            replaced = old.get(pname) or {v for v in box.entities.get(pname, set()) if _value_at(edit.task, v) >= 0}
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


def _step_json(draft: Draft) -> JSON:
    return {"tool": draft.tool.name, "params": draft.params, "reason": draft.reason()}


def _fallback(box: Toolbox, task: str, why: str) -> JSON | None:
    """When nothing matched: check the named entity, else list what there is, else the first read tool."""
    memory: dict[str, str] = {p: v for _, p, v in box.entities_in(task)}
    reads = [t for t in box.tools if t.risk == "read"]
    preferred = sorted(reads, key=lambda t: (-t.concepts.get("check" if memory else "list", 0.0), t.index))
    for t in preferred:
        params = {p.name: memory[p.name] for p in t.params if p.name in memory}
        if not _missing(t, params):
            return {"tool": t.name, "params": params, "reason": why}
    return None


def plan_answer(ctx: JSON) -> JSON:
    box = Toolbox(list(ctx.get("tools", [])))
    task = str(ctx.get("task", ""))
    feedback = [str(f) for f in ctx.get("feedback", []) if str(f).strip()]
    edit = apply_feedback(task, feedback, box, list(ctx.get("rejected", [])))
    clauses = list(edit.prepended)
    for clause in split_clauses(edit.task):
        tool = box.best(clause)
        clauses += edit.replaced.get(tool.name, []) if tool else []
        clauses.append((clause, "task"))
    drafts = draft_steps([*clauses, *edit.added], box, task, memory={})
    for d in drafts:
        changes = {
            k: v for k, v in edit.values.get(d.tool.name, {}).items() if d.tool.param(k) and d.params.get(k) != v
        }
        if changes:
            d.params.update(changes)
            d.note = " Changed " + ", ".join(f"{k}={v}" for k, v in changes.items()) + " as the feedback asked."
    kept = [d for d in drafts if d.tool.name not in edit.dropped and (not edit.only or d.tool.name in edit.only)]
    unique: list[Draft] = []
    for d in kept:
        if not any(u.tool.name == d.tool.name and u.params == d.params for u in unique):
            unique.append(d)
    done = [s for s in ctx.get("completed", []) if isinstance(s, dict) and s.get("status") == "done"]
    remaining = [d for d in unique if not any(_same(d, s) for s in done)] or unique
    ready = [d for d in remaining if not _missing(d.tool, d.params)]
    steps = [_step_json(d) for d in ready][: int(ctx.get("max_steps", 10))]
    if feedback and not edit.understood and steps:
        steps[0]["reason"] += f" (Could not tell what to change from “{feedback[-1]}”; name the service or step.)"
    if not steps:
        fallback = _fallback(box, edit.task, _why_nothing(drafts, remaining, edit))
        steps = [fallback] if fallback else []
    return {"steps": steps}


def _why_nothing(drafts: list[Draft], remaining: list[Draft], edit: FeedbackEdit) -> str:
    unclear = [d for d in remaining if _missing(d.tool, d.params)]
    if unclear:
        d = unclear[0]
        return f"Could not tell the {', '.join(_missing(d.tool, d.params))} for {d.tool.name}; looking around first."
    if drafts:
        left_out = ", ".join(sorted({d.tool.name for d in drafts} & edit.dropped)) or "the other steps"
        return f"Left out {left_out} as the feedback asked; nothing else was asked, so looking around first."
    return "Nothing in the task matched a tool; looking around first."


def _same(draft: Draft, done: JSON) -> bool:
    params = done.get("params") or {}
    return bool(done.get("tool") == draft.tool.name and all(params.get(k) == v for k, v in draft.params.items()))


# --- revising one step --------------------------------------------------------------


def revise_answer(ctx: JSON) -> JSON:
    tool = _tool_view(0, ctx.get("tool") or {})
    step = ctx.get("step") or {}
    old: JSON = dict(step.get("params") or {})
    text = " ".join(str(t) for t in (ctx.get("feedback"), ctx.get("suggested_fix")) if t)
    found: JSON = {}
    for piece in split_clauses(text) or [text]:
        positive = _INSTEAD_OF.split(piece, maxsplit=1)[0]
        found.update(extract_params(tool, positive, defaults=False))
    for p in tool.params:  # an enum value named next to the old one: the new one wins
        if p.enum and p.name in found and found[p.name] == old.get(p.name):
            others = [v for v in p.enum if v != old.get(p.name) and _value_at(text, v) >= 0]
            if others:
                found[p.name] = others[0]
    changed = {k: v for k, v in found.items() if old.get(k) != v}
    if not changed:
        return {"params": old, "reason": "No new value found in the feedback; parameters unchanged."}
    listed = ", ".join(f"{k}={v}" for k, v in changed.items())
    return {"params": {**old, **changed}, "reason": f"Changed {listed} as asked."}


# --- classifying a person's words ----------------------------------------------------


def _rx(*patterns: str) -> re.Pattern[str]:
    return re.compile("|".join(patterns), re.I)


_CANCEL = _rx(
    r"\b(?:cancel|abort|stop|halt|forget (?:it|about it)|never ?mind|scrap (?:it|this|that)|call it off)\b",
    r"\bkill (?:it|this|the run)\b",
    "取消|停止|停下|中止|终止|算了|别做了|不做了|不要做了|放弃|别弄了",
)
_APPROVE = _rx(
    r"\b(?:lgtm|looks? (?:good|fine|great|ok|okay|right)|sounds? good|good to go|go ahead|go for it|proceed|approved?"
    r"|ship it|do it|yes|yep|yeah|yup|sure|ok|okay|confirm(?:ed)?|continue|carry on|fine|perfect|great|agreed?"
    r"|all good|make it so|let'?s go|run it|execute|no problem|no objections?|not bad)\b",
    r"👍|✅|\+1|👌",
    "可以|执行|没问题|同意|好的|好|行|继续|批准|通过|确认|就这样|没毛病|冲|没意见|不错",
)
_NOT = _rx(
    r"\b(?:not|don'?t|do not|doesn'?t|no|never|isn'?t|aren'?t|can'?t|cannot|won'?t|shouldn'?t|wait|hold on|hold off)\b",
    "不|别|没|未|否",
)
_NOT_EXCUSED = _rx(
    r"\bno (?:problems?|objections?|issues?|worries)\b|\bnot bad\b|\bdon'?t (?:cancel|stop|worry)\b",
    "没问题|不错|没毛病|没意见|不用改|不要取消|别取消|不用担心",
)
_REFINE = _rx(
    r"\b(?:table|tabular|shorter|short|brief|briefer|concise|condense|summar(?:y|ise|ize)|tl;?dr|bullets?"
    r"|bullet points?|format(?:ted|ting)?|markdown|wording|rephrase|reword|longer|more details?|less detail"
    r"|in (?:chinese|english)|translate|headers?|readable|layout|presentation)\b",
    "表格|简短|简洁|精简|短一点|短点|太长|格式|总结|摘要|要点|列表|中文|英文|翻译|排版|措辞|详细|分点",
)
_REPLAN = _rx(
    r"\b(?:wrong (?:approach|plan|direction|idea|strategy|service)|(?:different|another|other|new|better) "
    r"(?:approach|plan|way|strategy)|re-?plan|start over|rethink|instead|rather|makes? no sense|bad plan)\b",
    r"\bnot\s+[\w.-]+\s*[,;，]\s*(?:but\s+)?[\w.-]+",
    r"\b(?:don'?t|do not|no need to|skip|without)\s+"
    r"(?!proceed|go\b|do it|approve|continue|ship|execute|run it|cancel|stop|worry)\w+",
    "方向不对|换个方案|换个思路|换一个方案|重新规划|重新计划|重新做|思路不对|方案不对|计划不对|不是.+(?:而是|是)|而是"
    "|不要(?:重启|部署|发布|回滚|扩容|缩容|清)|别(?:重启|部署|发布|回滚|扩容|缩容|清)|跳过|不用(?:重启|部署|发布|回滚)",
)
_PARAM = _rx(
    r"\b(?:param(?:eter)?s?|arguments?|args?|values?|replicas?|version|region|zone|channel|count|limit|minutes?"
    r"|typo|wrong (?:version|value|number|region|channel|count|param\w*|replicas?)|should (?:use|be)"
    r"|set \w+ to|change \w+ to|use)\b",
    r"\d",
    "参数|版本|副本|数量|区域|频道|改成|改为|换成|应该是|应该用|写错",
)
_COMPLAINT = _rx(r"\b(?:wrong|bad|incorrect|no|nope|not|broken|hmm)\b", "不对|不行|不好|有问题|错")
_CHANGE = _rx(
    r"\b(?:but|however|though|except|use|should|change|set|instead|wrong|fix)\b", "但是|不过|只是|但|改|换|应该|不对|错"
)
_DROP_STEP = _rx(r"\b(?:skip|remove|drop|delete|without)\b", "去掉|删掉|删除|不要|跳过")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_ORDINALS |= {"eighth": 8, "ninth": 9, "tenth": 10}
_CARDINALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
_STEP_REF = re.compile(
    r"\bstep\s*#?\s*(?P<num>\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    r"|\b(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d+(?:st|nd|rd|th))\s+step\b"
    r"|第\s*(?P<zh>[0-9零一二两三四五六七八九十]+)\s*步|步骤\s*(?P<zh2>[0-9零一二两三四五六七八九十]+)|(?P<zhlast>最后一步)",
    re.I,
)
_FIX = re.compile(
    r"(?:should (?:use|be)|\buse|set \w+ to|change \w+ to|instead|改成|改为|换成|应该是|应该用|用)\s*(.+)$", re.I
)


def zh_number(text: str) -> int | None:
    """``"12"``, ``"十二"``, ``"二十三"`` -> the number (None if it is not one)."""
    if text.isdigit():
        return int(text)
    if not text or any(ch not in _ZH_DIGITS and ch != "十" for ch in text):
        return None
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_ZH_DIGITS.get(tens, 1) if tens else 1) * 10 + (_ZH_DIGITS.get(ones, 0) if ones else 0)
    return _ZH_DIGITS.get(text)


def step_reference(text: str, total: int) -> int | None:
    found = _STEP_REF.search(text)
    if not found:
        return None
    if found.group("zhlast"):
        return total or None
    if found.group("num"):
        raw = found.group("num").lower()
        return int(raw) if raw.isdigit() else _CARDINALS.get(raw, 10)
    if found.group("ord"):
        raw = found.group("ord").lower()
        if raw == "last":
            return total or None
        return _ORDINALS.get(raw) or int(re.sub(r"\D", "", raw))
    return zh_number(found.group("zh") or found.group("zh2") or "")


def _approves(text: str) -> bool:
    if not _APPROVE.search(text):
        return False
    return not _NOT.search(_NOT_EXCUSED.sub(" ", text))


def _cancels(text: str) -> bool:
    found = _CANCEL.search(text)
    if not found:
        return False
    return not _NOT.search(text[max(0, found.start() - 12) : found.start()])


def _param_target(text: str, ctx: JSON) -> int | None:
    if ctx.get("step") is not None and ctx.get("anchor") in ("before_risky_step", "after_risky_step", "step_failed"):
        return int(ctx["step"])
    lowered = _words(text)
    for step in ctx.get("steps", []):
        for key in step.get("params") or {}:
            name = str(key).lower()
            if any(_find(lowered, w) >= 0 for w in (name.replace("_", " "), *_PARAM_WORDS.get(name, ()))):
                return int(step["number"])
    step = ctx.get("step")
    return int(step) if step is not None else None


def _vague(ctx: JSON, reason: str, confidence: float) -> JSON:
    anchor = ctx.get("anchor")
    if anchor == "before_result":
        return _reading("refine_output", None, f"{reason}; at the result, so reworking the result", confidence)
    if anchor in ("before_risky_step", "after_risky_step", "step_failed", "takeover_step"):
        return _reading("retry_step", ctx.get("step"), f"{reason}; about the step under review", confidence)
    return _reading("replan", None, f"{reason}; asking for a new plan", confidence)


def _reading(intent: str, target: Any, reason: str, confidence: float, fix: str | None = None) -> JSON:
    return {"intent": intent, "target_step": target, "reason": reason, "confidence": confidence, "suggested_fix": fix}


def classify_text(text: str, ctx: JSON) -> JSON:
    """The heuristic reading of a person's words at a review (the classifier's JSON)."""
    clean = " ".join(text.strip().split())
    steps = ctx.get("steps") or []
    target = step_reference(clean, len(steps))
    fix_match = _FIX.search(clean)
    fix = fix_match.group(1).strip(" .。") if fix_match else None
    replan = bool(_REPLAN.search(_NOT_EXCUSED.sub(" ", clean)))
    refine = bool(_REFINE.search(clean))
    approves = _approves(clean)
    changes = approves and bool(_CHANGE.search(clean))  # "looks good, but use 3 replicas"
    if _cancels(clean) and target is None and not replan:
        return _reading("cancel", None, "asked to stop the run", 0.9)
    if target is not None and not (approves and not changes):
        if _DROP_STEP.search(clean):
            return _reading("replan", target, f"wants step {target} out of the plan", 0.8, fix)
        return _reading("retry_step", target, f"names step {target}", 0.85, fix)
    if refine and ctx.get("anchor") == "before_result":
        return _reading("refine_output", None, "asks to change how the result is presented", 0.85, fix)
    if replan:
        return _reading("replan", None, "asks for a different approach", 0.8, fix)
    if _PARAM.search(clean) and (not approves or changes):
        return _reading("retry_step", _param_target(clean, ctx), "asks for different parameter values", 0.7, fix)
    if refine:
        return _reading("refine_output", None, "asks to change how the result is presented", 0.8, fix)
    if approves:
        return _reading("approve", None, "agrees to go on", 0.9)
    if _APPROVE.search(clean) or _COMPLAINT.search(clean):
        return _vague(ctx, "disagrees without saying what to change", 0.45)
    return _vague(ctx, "no clear instruction found", 0.3)


# --- result text -----------------------------------------------------------------------

_MARKS = {"done": "✅", "failed": "❌", "skipped": "⏭️", "running": "⏳", "pending": "⏸️"}


def _params_text(params: Any) -> str:
    if not isinstance(params, dict) or not params:
        return ""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _result_lines(result: Any, limit: int = 8) -> list[str]:
    if result is None or result == "":
        return []
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… ({len(lines) - limit} more lines)"]
    return [line if len(line) <= 200 else line[:199] + "…" for line in lines]


def _outcome(step: JSON) -> str:
    if step.get("status") == "failed":
        return f"failed: {step.get('error') or 'no error message'}"
    lines = _result_lines(step.get("result"), 1)
    return lines[0] if lines else str(step.get("status", ""))


def render_summary(task: str, steps: list[JSON], notes: list[str]) -> str:
    """A readable markdown result from executed steps (tool, params, result or error)."""
    counts = {s: sum(1 for step in steps if step.get("status") == s) for s in ("done", "failed", "skipped")}
    title = "Finished with problems" if counts["failed"] else "Done"
    tally = f"{len(steps)} step(s): {counts['done']} succeeded, {counts['failed']} failed"
    tally += f", {counts['skipped']} skipped." if counts["skipped"] else "."
    lines = [f"*{title}: {task}*", tally, ""]
    for step in steps:
        mark = _MARKS.get(str(step.get("status")), "•")
        params = _params_text(step.get("params"))
        lines.append(f"{step.get('number', '?')}. {mark} `{step.get('tool')}`" + (f" ({params})" if params else ""))
        if step.get("status") == "failed":
            lines.append(f"   failed: {step.get('error') or 'no error message'}")
        body = _result_lines(step.get("result"))
        if body:
            lines += ["```", *body, "```"]
    if notes:
        lines += ["", "*Notes:*", *(f"- {n}" for n in notes)]
    return "\n".join(lines).strip()


_WANTS: dict[str, re.Pattern[str]] = {
    "table": _rx(r"\btable|tabular\b", "表格"),
    "short": _rx(r"\b(?:short|shorter|brief|concise|condense|tl;?dr|too long)\b", "简短|简洁|精简|短一点|短点|太长"),
    "bullets": _rx(r"\bbullets?\b|\bbullet points?\b|\blist\b", "要点|分点|列表"),
    "chinese": _rx(r"\bchinese\b|\bmandarin\b", "中文"),
    "summary": _rx(r"\bsummar(?:y|ise|ize)\b", "总结|摘要"),
}
_ZH_WORDS = {"Finished with problems": "完成（有问题）", "Done": "完成", "succeeded": "成功", "failed": "失败"}
_ZH_WORDS |= {"skipped": "跳过", "step(s)": "步", "Notes": "备注"}


def _clip_line(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(steps: list[JSON], body: list[str], width: int) -> list[str]:
    if not steps:
        rows = [line.strip().lstrip("-• ") for line in body if line.strip() and not line.startswith("```")]
        return ["| Result |", "| --- |", *(f"| {_clip_line(r, width).replace('|', '/')} |" for r in rows)]
    rows = ["| # | Tool | Parameters | Outcome |", "| --- | --- | --- | --- |"]
    for s in steps:
        outcome = _clip_line(_outcome(s), width)
        cells = [str(s.get("number", "")), f"`{s.get('tool')}`", _params_text(s.get("params")), outcome]
        rows.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return rows


def _digest(steps: list[JSON], body: list[str]) -> list[str]:
    """One line per step (or the key lines of the text): what ran and how it went."""
    if not steps:
        return [line for line in _key_lines(["", *body])[1:]]
    lines = []
    for s in steps:
        mark = _MARKS.get(str(s.get("status")), "•")
        lines.append(_clip_line(f"{s.get('number', '?')}. {mark} `{s.get('tool')}`: {_outcome(s)}", 140))
    return lines


def _bullets(body: list[str]) -> list[str]:
    items: list[str] = []
    for line in body:
        stripped = line.strip()
        if not stripped or stripped.startswith("```"):
            continue
        heading = len(stripped) > 2 and stripped.startswith("*") and stripped.endswith("*")
        items.append(stripped if heading else "- " + re.sub(r"^(?:\d+\.|[-•])\s*", "", stripped))
    return items


def _key_lines(lines: list[str]) -> list[str]:
    body = [line for line in lines if line.strip() and not line.startswith("```")]
    key = [line for line in body if re.match(r"\s*(?:\d+\.|[-*•|]|[✅❌⏭⏳⏸])", line)] or body[1:]
    return [_clip_line(line, 120) for line in [*body[:1], *key[:5]]]


def apply_refinement(task: str, output: str, feedback: str, steps: list[JSON]) -> str:
    """``output`` reworked as the feedback asks (format, length, language), using only facts already there."""
    wants = {name for name, pattern in _WANTS.items() if pattern.search(feedback)}
    lines = output.strip().splitlines()
    header = lines[0] if lines and lines[0].startswith("*") else f"*Result: {task}*"
    body = lines[1:] if lines and lines[0] == header else lines
    brief = bool(wants & {"short", "summary"})
    if "table" in wants:
        body = _table(steps, body, 60 if brief else 160)
    elif brief:
        body = _digest(steps, body)
    elif "bullets" in wants:
        body = _bullets(body)
    if "summary" in wants:
        failed = [s for s in steps if s.get("status") == "failed"]
        gist = f"{len(steps)} step(s), {len(failed)} failed" + (
            f" ({', '.join(str(s.get('tool')) for s in failed)})." if failed else "."
        )
        body = [f"In short: {gist}", *body]
    text = "\n".join([header, *body]).strip()
    if "chinese" in wants:
        for en, zh in _ZH_WORDS.items():
            text = text.replace(en, zh)
        text = f"*结果摘要*（任务：{task}）\n{text}"
    if not wants or text.strip() == output.strip():
        text = f"{text}\n\n_Revised per feedback: “{feedback.strip()}”._"
    return text


# --- human takeover ---------------------------------------------------------------------

_HAND_BACK = _rx(
    r"\b(?:hand (?:it )?back|give (?:it )?back|continue on your own|take it from here|you continue|back to you"
    r"|your turn|carry on yourself)\b",
    "你继续|交还|交给你|你来吧|你接着|还给你",
)
_FINISH = _rx(
    r"\b(?:finish(?:ed)?|done|wrap (?:it )?up|that'?s all|that is all|all done|write (?:it |the result )?up)\b",
    "完成|结束|收尾|就这些|总结",
)


def propose_answer(ctx: JSON) -> JSON:
    instruction = " ".join(str(ctx.get("instruction", "")).split())
    box = Toolbox(list(ctx.get("tools", [])))
    if _HAND_BACK.search(instruction) and not _NOT.search(instruction):
        return {"kind": "hand_back", "step": None, "message": "Handing the task back to the agent."}
    if _cancels(instruction):
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
        missing = _missing(first.tool, first.params)
        if missing:
            return _unclear(f"Which {' and '.join(missing)} should {first.tool.name} use? Say it, e.g. "
                            f"“{first.clause} {_example(first.tool, missing[0])}”.")  # fmt: skip
        later = " The rest can follow once this step has run." if len(drafts) > 1 else ""
        step = {"tool": first.tool.name, "params": first.params, "reason": f"Asked: “{first.clause}”."}
        return {"kind": "step", "step": step, "message": f"One step at a time.{later}".strip()}
    if _FINISH.search(instruction) and not _NOT.search(instruction):
        return {"kind": "finish", "step": None, "message": "Finishing: writing up the result."}
    names = ", ".join(t.name for t in box.tools) or "none"
    return _unclear(
        f"I could not match “{instruction}” to a tool. Name an action and a target, e.g. “restart payments” "
        f"or “read error logs for checkout”; or say “finish” or “hand back”. Tools: {names}."
    )


def _example(tool: ToolView, pname: str) -> str:
    param = tool.param(pname)
    return param.enum[0] if param and param.enum else f"<{pname}>"


def _unclear(message: str) -> JSON:
    return {"kind": "unclear", "step": None, "message": message}


# --- the model -------------------------------------------------------------------------------


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
        try:
            answer = _ANSWERS[request.purpose](request.context)
        except Exception as exc:  # a heuristic bug must reach people as a model failure, not a crash
            raise LLMError(
                f"The offline model could not answer the {request.purpose} request ({type(exc).__name__}: {exc}). "
                "Rephrase what you wrote, or set TANDEM_MODEL to a real model."
            ) from exc
        return json.dumps(answer, ensure_ascii=False)
