"""Feishu's rendering of the ``list`` and ``status`` commands' outcomes (the use cases are in :mod:`agent.commands`)."""

from __future__ import annotations

from agent.commands import RunList, RunStatus
from feishu.lines import decision_texts
from feishu.wording import WORDS, Lang, escape, lang_of, say

STATUS_LINES = 8
"""How many of the run's latest decisions ``status`` shows."""


def list_text(listed: RunList, lang: Lang = "en") -> str:
    """One line per open run of the chat, in the asker's language; those waiting on the asker say so."""
    rows = [
        f"• `{s.id}` {escape(s.task[:80])} · {_status(s.status, lang)}"
        + (say("waits_on_you", lang) if s.id in listed.waiting_on_asker else "")
        for s in listed.runs
    ]
    return "\n".join(rows) or say("no_open_runs", lang)


def _status(status: str, lang: Lang) -> str:
    if lang == "zh" and f"status_{status}" in WORDS:
        return say(f"status_{status}", lang)
    return status.replace("_", " ")


def status_text(shown: RunStatus) -> str:
    state = shown.state
    lang = lang_of(state.task)
    said = say(f"status_{state.status}", lang) if lang == "zh" else state.status.replace("_", " ")
    head = f"**{escape(state.task[:200])}** · `{state.id}` · {said}"
    return "\n".join([head, *decision_texts(list(shown.events), lang)[-STATUS_LINES:]])
