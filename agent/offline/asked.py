"""The value a correction asks for that a tool does not know ("use the orders service instead").

Such a value is passed on as asked, so that checking it against the tool names it and what exists
("There is no service `orders`. Known: …"). Only a word the person plainly offers as the value counts:
one after "use", "switch to", "换成" or the tool's own verb, or before the parameter's name ("the orders
service"), in a part of the text that is not negated ("not payments", "instead of payments", "别动payments").
Filler ("the", "instead", "service") is never taken for a value.
"""

from __future__ import annotations

import re

from agent.offline.tools_match import Param, ToolView
from agent.offline.vocabulary import CONCEPTS, INSTEAD_OF, JSON, NEGATION, PARAM_WORDS, split_clauses

_PARAM_NAMES = {"service": ("service", "服务"), "level": ("level", "级别"), "metric": ("metric", "指标")}
_WORD = r"([A-Za-z][\w.-]*)"
_CUES = (
    r"use|using|switch(?:\s+it)?\s+to|change(?:\s+it)?\s+to|set(?:\s+it)?\s+to|should\s+be|make\s+it|"
    r"target|pick|go\s+with|try"
)
_FILLER = {
    *"the a an it its this that one instead rather than of to on in for with and or but then please pls just "
    "only now again also do not no yes ok okay actually sorry wait should be use using switch change set make "
    "target pick go try value name same other another different first later soon asap all both them everything "
    "anything nothing latest newest previous old new current default".split(),
}
_ADVERB = re.compile(r"[a-z]{3,}ly$", re.I)
"""'restart gracefully': a manner, never a value."""


def asked_value(tool: ToolView, text: str, old: JSON) -> JSON | None:
    """``{param: word}`` for a word the feedback asks for that the step's enum parameter (the one the text
    names, or its only one) does not have; None when it asks for none, or only for known or current values."""
    target = _target(tool.params, text)
    if target is None:
        return None
    known = {v.lower() for v in target.enum}
    stray = _FILLER | known | {w.lower() for p in tool.params for w in _PARAM_NAMES.get(p.name, (p.name,))}
    stray |= {w for ws in (*CONCEPTS.values(), *PARAM_WORDS.values()) for w in ws}
    for word in _offered(tool, target, text):
        if word.lower() in stray or _ADVERB.match(word) or word == old.get(target.name):
            continue
        return {target.name: word}
    return None


def negated_only(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` only where it is negated ("restart orders, not payments" for
    payments): a reading that offers it as the fix has it backwards."""
    said = [INSTEAD_OF.split(c, maxsplit=1) for c in split_clauses(text) or [text]]
    wanted = [p[0] for p in said if not NEGATION.search(p[0])]
    unwanted = [p[0] for p in said if NEGATION.search(p[0])] + [p[1] for p in said if len(p) > 1]
    named = re.compile(rf"(?<![A-Za-z0-9_.-]){re.escape(value.strip())}(?![A-Za-z0-9_.-])", re.I)
    return any(named.search(u) for u in unwanted) and not any(named.search(w) for w in wanted)


def _target(params: tuple[Param, ...], text: str) -> Param | None:
    enums = [p for p in params if p.enum]
    lowered = text.lower()
    named = [p for p in enums if any(w in lowered for w in _PARAM_NAMES.get(p.name, (p.name,)))]
    return named[0] if len(named) == 1 else enums[0] if len(enums) == 1 else None


def _offered(tool: ToolView, target: Param, text: str) -> list[str]:
    """Words offered as a value, in the order said, from the parts of ``text`` that are not negated."""
    verbs = [w for c in tool.concepts if tool.concepts[c] >= 1.0 for w in CONCEPTS.get(c, ())]
    verb = "|".join(
        rf"(?<![A-Za-z]){re.escape(v)}(?![A-Za-z])" if v.isascii() else re.escape(v)
        for v in sorted(verbs, key=len, reverse=True)
    )
    names = "|".join(re.escape(n) for n in _PARAM_NAMES.get(target.name, (target.name,)))
    after_cue = re.compile(
        rf"(?:\b(?:{_CUES})\b|{verb or '(?!)'}|换成|改成|改为|应该用|应该是|用|是)"
        rf"\s*(?:the\s+)?{_WORD}",
        re.I,
    )
    before_name = re.compile(rf"(?<![\w.-]){_WORD}\s*(?:{names})(?![A-Za-z])", re.I)
    words: list[str] = []
    for clause in split_clauses(text) or [text]:
        wanted = INSTEAD_OF.split(clause, maxsplit=1)[0]
        if NEGATION.search(wanted):
            continue
        found = [(m.start(1), m.group(1)) for pattern in (after_cue, before_name) for m in pattern.finditer(wanted)]
        words += [w for _, w in sorted(found)]
    return words
