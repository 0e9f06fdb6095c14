"""The actions a reply names ("restart", "回滚", "logs"), in English and Chinese, found in one pass."""

from __future__ import annotations

import re

from agent.offline.vocabulary import as_words

TOOL_WORDS: dict[str, tuple[str, ...]] = {
    "restart": ("restart", "reboot", "bounce", "重启", "重新启动"),
    "deploy": ("deploy", "redeploy", "release", "roll out", "rollout", "upgrade", "部署", "发布", "上线", "升级"),
    "rollback": ("rollback", "roll back", "roll it back", "rolling back", "revert", "downgrade", "回滚", "回退"),
    "logs": ("log", "logs", "日志"),
    "metrics": ("metric", "metrics", "dashboard", "指标", "监控", "cpu", "error rate"),
    "scale": ("scale", "scaling", "scale up", "扩容", "缩容"),
    "check": ("check", "inspect", "检查", "查看", "看看"),
    "send": ("send", "notify", "tell", "message", "发消息", "通知", "告诉", "消息"),
    "cache": ("cache", "caches", "清缓存", "缓存"),
    "drop": ("drop", "clear", "purge", "flush", "清除", "清空", "清理", "清"),
}
NEAR = 24  # how far after a negation or "also" the action it is about may be


def _actions_pattern() -> re.Pattern[str]:
    """Every action word in one pattern, one named group per action (``<action>`` English, ``<action>_zh``
    Chinese): a text is searched once, not once per word. The English words share one word-boundary
    check, so the search can skip ahead on their letters instead of trying every word at every place."""
    english, chinese = [], []
    for concept, words in TOOL_WORDS.items():
        ascii_words = [re.escape(w).replace(r"\ ", r"\s+") for w in words if w.isascii()]
        other = [re.escape(w) for w in words if not w.isascii()]
        if ascii_words:
            english.append(f"(?P<{concept}>{'|'.join(ascii_words)})")
        if other:
            chinese.append(f"(?P<{concept}_zh>{'|'.join(other)})")
    whole = rf"(?<![a-z0-9])(?:{'|'.join(english)})(?:s|es|ed|d|ing)?(?![a-z0-9])"
    return re.compile("|".join([whole, *chinese]))


ACTIONS = _actions_pattern()


def tools_named(text: str, start: int = 0, end: int | None = None) -> set[str]:
    """The actions ("restart", "回滚", "logs") named in ``text[start:end]``, as concept names."""
    lowered = as_words(text)
    found = ACTIONS.finditer(lowered, start, len(lowered) if end is None else end)
    return {str(m.lastgroup).removesuffix("_zh") for m in found}


def concepts_of(tool: str) -> set[str]:
    parts = set(as_words(tool).split())
    return {c for c, words in TOOL_WORDS.items() if c in parts or parts & set(words)}
