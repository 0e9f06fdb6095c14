"""Words the offline model knows: the synonym table, word search, quotations, clause splitting, Chinese numerals."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

JSON = dict[str, Any]

# --- synonyms and phrase patterns ---------------------------------------------------

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


# Words that point a number at an integer parameter ("5 replicas", "last 30 minutes").
PARAM_WORDS: dict[str, tuple[str, ...]] = {
    "replicas": ("replica", "instance", "pod", "node", "副本", "实例", "个"),
    "minutes": ("minute", "min", "mins", "m", "分钟"),
    "hours": ("hour", "hr", "h", "小时"),
    "limit": ("line", "entries", "entry", "log", "条", "行"),
}


def _separator(words: str) -> re.Pattern[str]:
    """``\\s*(?:words)\\s*`` for splitting, without its quadratic retries on a long run of spaces.

    The plain form tries again from every space of a run that no separator follows. Here spaces
    before a separator are taken only from where their run starts: the same matches, found in one pass.
    """
    return re.compile(rf"(?<!\s)\s+(?:{words})\s*|(?:{words})\s*", re.I)


_STRONG_SPLIT = _separator(
    r";|；|。|\bthen\b|\bafterwards\b|\bafter that\b|\bfinally\b|然后|之后|以后|接着|随后|最后|再"
)
_WEAK_SPLIT = _separator(r",|，|、|\band\b|\balso\b|\bplus\b|\bas well as\b|并且|同时|以及|还要|另外")
_OPENING = re.compile("[\"“「']")
_CLOSING = {'"': '"', "“": "”", "「": "」", "'": "'"}


def quotes(text: str) -> Iterator[tuple[int, int, str]]:
    """Each quotation in ``text``, left to right, as ``(start, end, what it says)``.

    A quotation is "…", “…”, 「…」, or '…' not touching a letter on either side, with at least one
    character inside; the same as the regex ``"([^"]+)"|“([^”]+)”|「([^」]+)」|(?<![A-Za-z])'([^']+)'(?![A-Za-z])``
    finds. That regex runs to the end of the text again for every unclosed “ or 「; here each kind of
    quotation mark looks for its closing mark once per stretch of text, so the whole search is one pass.
    """
    next_closing: dict[str, int] = {}  # opening mark -> where its next closing mark is (-1: none after)
    pos = 0
    while (opening := _OPENING.search(text, pos)) is not None:
        start, mark = opening.start(), opening.group()
        close = next_closing.get(mark)
        if close is None or start >= close >= 0:
            close = next_closing[mark] = text.find(_CLOSING[mark], start + 1)
        found = close > start + 1
        if found and mark == "'":
            found = not (_ascii_letter(text, start - 1) or _ascii_letter(text, close + 1))
        if found:
            yield start, close + 1, text[start + 1 : close]
            pos = close + 1
        else:
            pos = start + 1


def without_quotes(text: str, replace: Callable[[str], str]) -> str:
    """``text`` with each quotation (marks included) replaced by ``replace(quotation)``."""
    pieces: list[str] = []
    pos = 0
    for start, end, _ in quotes(text):
        pieces += [text[pos:start], replace(text[start:end])]
        pos = end
    return "".join([*pieces, text[pos:]])


def _ascii_letter(text: str, index: int) -> bool:
    return 0 <= index < len(text) and text[index].isascii() and text[index].isalpha()


SAYING = re.compile(
    r"\b(?:saying|that says|that|to say|with (?:the )?text)\b\s*:?\s*|[:：]\s*|内容(?:是|为)?[:：]?\s*", re.I
)
NEGATION = re.compile(
    r"\b(?:don'?t|do not|no need to|skip|without|never|not|no|remove)\b"
    "|不要|别|不用|不需要|跳过|不必|无需|不是|去掉|删掉",
    re.I,
)
INSTEAD_OF = _separator(r"\binstead of\b|\brather than\b|\bnot\b|而不是|不是")
FIRST = re.compile(r"\bfirst\b(?!\s+step)|先(?!别)", re.I)
_FILLER = re.compile(r"^(?:please|pls|can you|could you|and|also|then|帮我|请|麻烦)\s*", re.I)


# --- finding words ------------------------------------------------------------------


def as_words(text: str) -> str:
    """``text`` lowercased, with ``snake_case`` names read as separate words."""
    return text.lower().replace("_", " ")


def _word_source(word: str) -> str:
    """The regex that finds ``word`` in lowercased text as :func:`find_word` does."""
    if not word.isascii():
        return re.escape(word)
    body = re.escape(word).replace(r"\ ", r"\s+")
    stems = [rf"{body}(?:s|es|ed|d|ing)?"]
    if word.endswith("e"):
        stems.append(re.escape(word[:-1]) + "ing")
    return rf"(?<![a-z0-9])(?:{'|'.join(stems)})(?![a-z0-9])"


@cache
def _pattern(word: str) -> re.Pattern[str]:
    return re.compile(_word_source(word))


def _literal(word: str) -> str:
    """A part of ``word`` that every match :func:`_word_source` finds contains (its first word; a single word
    ending in "e" less the "e", for the "-ing" form): a cheap test that rules a word out before any regex runs."""
    if not word.isascii():
        return word
    if " " in word:
        return word.split(" ", 1)[0]
    return word[:-1] if word.endswith("e") else word


_LITERALS: dict[str, tuple[str, ...]] = {
    concept: tuple(dict.fromkeys(_literal(s) for s in synonyms)) for concept, synonyms in CONCEPTS.items()
}


@cache
def _any_synonym(concept: str) -> re.Pattern[str]:
    """All of a concept's synonyms in one pattern: its first match is the first mention of any of them."""
    return re.compile("|".join(_word_source(s) for s in CONCEPTS[concept]))


def find_word(text: str, word: str) -> int:
    """Position of ``word`` in lowercased ``text`` (-1 if absent); English by word, Chinese by substring."""
    if word.isascii():
        found = _pattern(word).search(text)
        return found.start() if found else -1
    return text.find(word)


_READ: ContextVar[dict[str, dict[str, int]] | None] = ContextVar("concepts_read", default=None)


@contextmanager
def reading_once() -> Iterator[None]:
    """Within the block, :func:`concepts_in` reads each text once (planning asks about the same clause from several
    places); nothing is kept after it."""
    token = _READ.set({})
    try:
        yield
    finally:
        _READ.reset(token)


def concepts_in(text: str) -> dict[str, int]:
    """The concepts named in ``text``, each with the position of its first mention."""
    read = _READ.get()
    if read is not None and text in read:
        return dict(read[text])
    lowered = as_words(text)
    seen: dict[str, int] = {}
    for concept, literals in _LITERALS.items():
        for literal in literals:  # a plain loop: a third of any() over a generator's cost, here
            if literal in lowered:
                break
        else:
            continue  # no synonym can be there: most concepts, for most texts
        found = _any_synonym(concept).search(lowered)  # one search, not one per synonym
        if found:
            seen[concept] = found.start()
    if read is not None:
        read[text] = dict(seen)
    return seen


def value_at(text: str, value: str) -> int:
    """Position of an enum ``value`` in ``text`` (``_`` also read as space or hyphen, a plural also as singular); -1."""
    lowered = text.lower()
    candidates = {value.lower(), value.lower().replace("_", " "), value.lower().replace("_", "-")}
    if value.lower().endswith("s") and len(value) > 4:
        candidates.add(value.lower()[:-1])
    positions = [p for p in (find_word(lowered, c) for c in candidates) if p >= 0]
    return min(positions) if positions else -1


# --- splitting a task into clauses -----------------------------------------------------


def split_clauses(text: str) -> list[str]:
    """The task's clauses in the order the person wants them done."""
    quoted: list[str] = []

    def protect(quotation: str) -> str:
        quoted.append(quotation)
        return f"\x00{len(quoted) - 1}\x00"

    def restore(part: str) -> str:
        return re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], part).strip()

    clauses: list[str] = []
    for segment in _STRONG_SPLIT.split(without_quotes(text, protect)):
        tail = ""
        saying = SAYING.search(segment) if "send" in concepts_in(segment) else None
        if saying:
            segment, tail = segment[: saying.start()], segment[saying.start() :]
        parts = [p for p in _WEAK_SPLIT.split(segment) if p.strip()] or [""]
        parts[-1] += tail
        for part in parts:
            clauses.extend(_order_after(part))
    ordered = [restore(_FILLER.sub("", c.strip())) for c in clauses if c.strip()]
    # a later clause that says "first" moves to the front (of several, the last one said goes first)
    first = [i > 0 and bool(FIRST.search(c)) for i, c in enumerate(ordered)]
    moved = [c for c, f in zip(ordered, first, strict=True) if f]
    kept = [c for c, f in zip(ordered, first, strict=True) if not f]
    return [c for c in [*reversed(moved), *kept] if c]


def _order_after(part: str) -> list[str]:
    """``A after B`` is B, then A; a trailing "after" is dropped; "before B, A" is left to the caller."""
    found = re.search(r"\bafter\b", part, re.I)
    if not found:
        return [part]
    before, after = part[: found.start()].strip(), part[found.end() :].strip()
    return [after, before] if before and after else [before or after]


# --- keyword patterns and Chinese numerals -------------------------------------------


def rx(*patterns: str) -> re.Pattern[str]:
    """One case-insensitive pattern matching any of ``patterns`` (English and Chinese alternatives)."""
    return re.compile("|".join(patterns), re.I)


_ZH_DIGITS = {"零": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


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
