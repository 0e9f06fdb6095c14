"""One-line texts of who decided what on a run, as Feishu markdown (the lines themselves are neutral)."""

from __future__ import annotations

from agent.decision_lines import OUTCOME_ICONS, DecisionLine, decision_lines
from agent.models import AuditEvent, utc_time
from feishu import zh
from feishu.wording import Lang, clip, escape, who


def line_text(line: DecisionLine, lang: Lang = "en") -> str:
    """``✅ Plan approved by @ana · 14:02: detail`` for one decision, as Feishu markdown
    (``✅ 计划已批准 · @ana · 14:02：…`` for a Chinese requester)."""
    if lang == "zh":
        text = f"{OUTCOME_ICONS[line.outcome]} {escape(clip(zh.verb(line.verb), 200))}"
        text += (f" · {who(line.actor)}" if line.actor else "") + f" · {utc_time(line.at)}"
        return text + ("：" + escape(clip(" ".join(line.detail.split()), 200)) if line.detail else "")
    text = f"{OUTCOME_ICONS[line.outcome]} {escape(clip(line.verb, 200))}"
    text += (f" by {who(line.actor)}" if line.actor else "") + f" · {utc_time(line.at)}"
    if line.detail:
        text += ": " + escape(clip(" ".join(line.detail.split()), 200))
    return text


def decision_texts(events: list[AuditEvent], lang: Lang = "en") -> list[str]:
    """Who decided what, oldest first, from the run's audit history."""
    return [line_text(line, lang) for line in decision_lines(events)]
