"""Filling a tool's parameters from the words of a clause, guided by its JSON schema."""

from __future__ import annotations

import re
from typing import Any

from agent.offline.tools_match import ToolView
from agent.offline.vocabulary import (
    CONCEPTS,
    JSON,
    NEGATION,
    PARAM_WORDS,
    SAYING,
    as_words,
    concepts_in,
    find_word,
    quotes,
    value_at,
)

_TEXT_PARAMS = ("text", "message", "body", "content", "note", "comment")
_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?:[-+][0-9A-Za-z.-]+)?(?![\w.])")
_CHANNEL = re.compile(r"(?<![\w#])#[\w-]+")
# "the ops channel", "ops频道": the name is the word run (letters, digits, _ and -) before "channel" or "频道".
# Read as "\b(?:the\s+)?([a-z][\w-]*)\s+channel\b|([\w-]+)\s*频道", which retries inside a long word
# run from every letter after a hyphen (and, for 频道, from every character) up to the run's end. Here
# a match starts only where a word run does, skipping to its first part that starts with a letter, or at
# a "-the " that ends one; that finds the same name in one pass.
_CHANNEL_WORD = re.compile(
    r"(?<![\w-])(?:the\s+)?([a-z][\w-]*)\s+channel\b"
    r"|(?<![\w-])([\w-]+)\s*频道"
    r"|(?<![\w-])(?:(?:[^\Wa-z]\w*)?-)+(?:the\s+)?([a-z][\w-]*)\s+channel\b"
    r"|(?<=-)the\s+([a-z][\w-]*)\s+channel\b",
    re.I,
)
_NUMBER = re.compile(r"(?<![A-Za-z0-9_.#-])\d+(?![0-9])")
# "\s*#?\s*" would retry every split of a long run of spaces; "\s*(?:#\s*)?" reads the same text once
_STEP_NUMBER = re.compile(r"\bstep\s*(?:#\s*)?\d+|第\s*\d+\s*步", re.I)


def _scrubbed(text: str) -> str:
    """``text`` without versions, channels and step references, so the numbers left are plain counts."""
    text = _VERSION.sub(" ", text)
    text = _CHANNEL.sub(" ", text)
    return _STEP_NUMBER.sub(" ", text)


def _numbers_for(tool: ToolView, text: str) -> dict[str, int]:
    ints = [p for p in tool.params if p.kind in ("integer", "number")]
    if not ints:
        return {}
    clean = _scrubbed(text).lower()
    numbers = [(m.start(), m.end(), int(m.group())) for m in _NUMBER.finditer(clean)]
    candidates: list[tuple[int, str, int]] = []
    for p in ints:
        words = {p.name.lower(), p.name.lower().rstrip("s"), *PARAM_WORDS.get(p.name.lower(), ())}
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
    quoted = next(quotes(text), None)
    if quoted:
        return quoted[2]
    saying = SAYING.search(text)
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
    lowered = as_words(text)
    found = concepts_in(text)
    params: dict[str, Any] = dict(_numbers_for(tool, text))
    for p in tool.params:
        name = p.name.lower()
        if p.name in params:
            continue
        if p.enum:
            direct = sorted((pos, v) for v in p.enum if (pos := value_at(text, v)) >= 0)
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
                params[p.name] = "#" + next(name for name in named.groups() if name)
        elif name in _TEXT_PARAMS:
            if defaults:
                params[p.name] = _text_for(text, task or text)
        elif p.kind == "boolean":
            if find_word(lowered, name.replace("_", " ")) >= 0:
                params[p.name] = not NEGATION.search(text)
        elif p.kind in ("string", "any"):
            # the connector must be a whole word ("window tonight" is not "window to night")
            value = re.search(rf"(?<![a-z]){re.escape(name)}\s*(?:(?:=|:|\b(?:is|to|of)\b)\s*)?([\w.\-/#:]+)", lowered)
            if value:
                start = value.start(1)
                params[p.name] = text[start : start + len(value.group(1))]
    return params


def missing_params(tool: ToolView, params: JSON) -> list[str]:
    """The required parameters of ``tool`` that ``params`` lacks."""
    return [p.name for p in tool.params if p.required and p.name not in params]
