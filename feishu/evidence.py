"""A review's evidence on a Feishu card: each step's first lines, and the rest in a collapsed panel.

Card JSON 2.0's ``collapsible_panel`` holds the whole output under "… N more lines · Show details",
so nothing needs a round trip; a card that would pass Feishu's size limit has its longest text
cut (:func:`feishu.elements.fit`), never refused.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.evidence import StepEvidence
from agent.messages import plural
from feishu.elements import Element, chips_md, md, note, panel
from feishu.wording import Lang, clip, escape, say

MAX_ITEMS = 6
LINE_LIMIT = 300  # characters of one shown line
FULL_LIMIT = 12_000  # characters of one step's whole output in its panel (the card's size limit cuts further)


def evidence_elements(evidence: Sequence[StepEvidence], lang: Lang) -> list[Element]:
    if not evidence:
        return []
    count = _n(len(evidence), "step", lang)
    parts: list[Element] = [note(f"**{say('since_last_review', lang, n=count)}**")]
    earlier = len(evidence) - MAX_ITEMS
    if earlier > 0:
        parts.append(note(say("earlier_steps", lang, n=_n(earlier, "earlier step", lang))))
    for item in evidence[-MAX_ITEMS:]:
        parts += _item(item, lang)
    return parts


def _item(item: StepEvidence, lang: Lang) -> list[Element]:
    icon = "❌" if item.status == "failed" else "✅"
    head = f"{icon} **{say('step_n', lang, n=item.number)}** `{escape(item.tool)}` {chips_md(item.params)}".rstrip()
    if not item.total_lines:
        return [md(f"{head}\n_{say('no_output', lang)}_")]
    # an error is shown in full (the card's size limit may still cut it); output lines are cut to a width
    shown = item.first_lines if item.status == "failed" else [clip(line, LINE_LIMIT) for line in item.first_lines]
    lines = "\n".join(shown)
    parts = [md(f"{head}\n```\n{escape(lines)}\n```")]
    if item.more_lines > 0:
        title = say("more_lines", lang, n=_n(item.more_lines, "more line", lang))
        parts.append(panel(title, md(f"```\n{escape(clip(item.text, FULL_LIMIT))}\n```")))
    return parts


def _n(count: int, noun: str, lang: Lang) -> str:
    """``3 steps`` in English; the bare number where the Chinese wording carries its own measure word."""
    return plural(count, noun) if lang == "en" else str(count)
