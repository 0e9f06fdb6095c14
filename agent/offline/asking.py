"""Whether a reply only asks something ("why restart it?", "为什么要重启？", "what did the logs say?").

A question is answered from the run and changes nothing, so it is told apart from a correction phrased
as one: "can you use 5 replicas?", "why not roll back instead?", "能不能先看日志？" ask for a change and
are read as one.
"""

from __future__ import annotations

import re

from agent.offline.vocabulary import rx

_LEAD = r"^\s*(?:(?:wait|hmm+|hm+|ok(?:ay)?|so|and|but|hey|sorry|quick question|question|q)\b\W*)*"
_ASKS_EN = re.compile(
    _LEAD + r"(?:why|what|what'?s|whats|how|which|who|where|when|is|are|was|were|did|does|do|will|would|should"
    r"|has|have|had|can|could|any)\b",
    re.I,
)
_WH_EN = re.compile(_LEAD + r"(?:why|what|what'?s|whats|how|which|who|where|when)\b", re.I)
_ASKS_ZH = re.compile(r"为什么|为啥|什么|啥|怎么|怎样|多少|哪|几个|几条|是否|有没有|是不是|会不会|吗|呢")
_MARK = re.compile(r"[?？]\s*$")
_WHY = re.compile(_LEAD + r"(?:why|为什么|为啥)(?! not\b| don'?t\b| dont\b)", re.I)
_ZH_END = re.compile(r"[吗呢][?？。.!！]?\s*$")
_REQUEST = rx(
    _LEAD + r"(?:can|could|would|will) (?:you|we|u)\b(?! (?:tell|explain|say|show me why))"
    r"|\bwhy not\b|\bhow about\b|\bwhat about\b|\bplease\b|\blet'?s\b|\binstead\b|\brather\b|\bshould (?:we|you|it) "
    r"(?:use|be|do|run|restart|deploy|scale|roll|drop|send|check|read)\b",
    "能不能|能否|可不可以|可以.{0,12}吗|要不要|请|改成|换成|改为|而不是|不如|还是.{0,8}吧",
)


def asks_why(text: str) -> bool:
    """ "why …?": a question even when it names another value ("why #ops and not #incidents?"); "why not …"
    suggests a change."""
    clean = " ".join(text.split())
    return bool(_WHY.search(clean) and _MARK.search(clean)) and not _REQUEST.search(clean)


def only_asks(text: str) -> bool:
    """True when ``text`` is a question about the run, not a request for a change phrased as one."""
    clean = " ".join(text.split())
    if not clean or _REQUEST.search(clean):
        return False
    if _MARK.search(clean):
        return bool(_ASKS_EN.search(clean) or _ASKS_ZH.search(clean))
    wh = _WH_EN.search(clean)
    # without a question mark, "why restart it" asks; "wait what" is only surprise
    return bool((wh and len(clean[wh.end() :].split()) >= 2) or _ZH_END.search(clean))
