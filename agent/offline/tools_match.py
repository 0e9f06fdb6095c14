"""The registered tools as the offline model sees them, and matching a clause to the tool it asks for."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from agent.offline.vocabulary import (
    CONCEPTS,
    JSON,
    SAYING,
    as_words,
    concepts_in,
    find_word,
    value_at,
    without_quotes,
)

# Verbs that say little about which tool is meant count for less.
_WEAK_CONCEPTS = {"check": 0.5, "list": 0.5, "read": 0.3, "drop": 0.5}
_NAME_WEIGHT, _ENUM_WEIGHT, _DESC_WEIGHT = 3.0, 2.5, 0.5
_MIN_SCORE = 1.0


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


@lru_cache(maxsize=4096)
def _named_by_tool(text: str) -> tuple[str, ...]:
    """The concepts a tool's name, description or enum value names: the same few texts every time a plan is
    made or a result checked, so they are read once per process (tools' texts only: a person's words are not
    kept)."""
    return tuple(concepts_in(text))


def tool_view(index: int, described: JSON) -> ToolView:
    """A ``ToolSpec.describe()`` dict as the planner sees it: params from the schema, concept weights."""
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
        for concept in _named_by_tool(text):
            weights[concept] = max(weights.get(concept, 0.0), weight)
    tokens = tuple(t for t in re.split(r"[_\-\s]+", name.lower()) if len(t) >= 3)
    return ToolView(index, name, str(described.get("description", "")), str(described.get("risk", "read")),
                    tuple(params), weights, tokens)  # fmt: skip


class Toolbox:
    """The registered tools (``ToolSpec.describe()`` dicts) with the matching the planner needs."""

    def __init__(self, described: list[Any]) -> None:
        self.tools = [tool_view(i, d) for i, d in enumerate(described) if isinstance(d, dict)]
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
        self._best: dict[str, ToolView | None] = {}

    def ranked(self, text: str) -> list[tuple[float, ToolView]]:
        """Tools that ``text`` asks for, best first (ties: the one named first, then the safer one)."""
        text = _without_message(text)
        found = concepts_in(text)
        lowered = as_words(text)
        scored: list[tuple[float, int, ToolView]] = []
        for t in self.tools:
            hits = {c: pos for c, pos in found.items() if t.concepts.get(c)}
            score = sum(_WEAK_CONCEPTS.get(c, 1.0) * t.concepts[c] for c in hits)
            named = [(tok, pos) for tok in t.tokens if (pos := find_word(lowered, tok)) >= 0]
            tokens = [pos for _, pos in named]
            score += sum(self._token_weight.get(tok, 0.0) for tok, _ in named)
            if score >= _MIN_SCORE:
                scored.append((score, min([*hits.values(), *tokens], default=0), t))
        scored.sort(key=lambda s: (-s[0], s[1], s[2].risk != "read", s[2].index))
        return [(score, t) for score, _, t in scored]

    def best(self, text: str) -> ToolView | None:
        if text not in self._best:  # planning asks about the same clause more than once
            ranked = self.ranked(text)
            self._best[text] = ranked[0][1] if ranked else None
        return self._best[text]

    def entities_in(self, text: str) -> list[tuple[int, str, str]]:
        """``(position, param, value)`` for every entity value (a required enum value) named in ``text``."""
        found = [(pos, p, v) for p, values in self.entities.items() for v in values if (pos := value_at(text, v)) >= 0]
        return sorted(found)


def _without_message(text: str) -> str:
    """The clause minus quoted text and, for a message, what it says: words there do not pick the tool."""
    text = without_quotes(text, lambda _: " ")
    saying = SAYING.search(text)
    if saying and "send" in concepts_in(text[: saying.start()]):
        return text[: saying.start()]
    return text
