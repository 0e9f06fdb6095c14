"""The parts Feishu cards (card JSON 2.0) are made of, and what tests and the fake read off a card.

Pure: data in, dicts out. A card stays under Feishu's size limit (:func:`fit`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.evidence import Chip, chips
from agent.models import Step
from feishu.wording import Lang, clip, escape, say

Card = dict[str, Any]
Element = dict[str, Any]

WAITING = "waiting_on"
"""The element id of a review card's "Waiting on" line (a decided card drops it)."""
CARD_LIMIT = 28_000
"""Bytes of card JSON kept under Feishu's 30 KB limit for a message's content."""
PARAMS_LIMIT = 2000
STEPS_BUDGET = 6000
_RISK = {"read": "🟢 read", "write": "🟡 write", "exec": "🟠 exec", "deploy": "🔴 deploy"}
_STEP = {"pending": "⚪", "running": "⏳", "done": "✅", "failed": "❌", "skipped": "⏭️", "waiting": "❓"}


# --- elements -------------------------------------------------------------------------------


def md(content: str) -> Element:
    return {"tag": "markdown", "content": content}


def note(content: str) -> Element:
    return {"tag": "markdown", "content": content, "text_size": "notation"}


def button(label: str, value: dict[str, Any], *, kind: str = "default") -> Element:
    return {
        "tag": "button",
        "text": {"tag": "plain_text", "content": clip(label, 60)},
        "type": kind,
        "behaviors": [{"type": "callback", "value": value}],
    }


def link_button(label: str, url: str) -> Element:
    """A button that opens ``url`` (no callback)."""
    behavior = {"type": "open_url", "default_url": url}
    return {"tag": "button", "text": {"tag": "plain_text", "content": clip(label, 60)}, "behaviors": [behavior]}


def text_input(name: str, placeholder: str) -> Element:
    """A multi-line text field of a form (submitted in the callback's ``form_value`` under ``name``)."""
    return {
        "tag": "input",
        "name": name,
        "input_type": "multiline_text",
        "max_length": 1000,
        "placeholder": {"tag": "plain_text", "content": placeholder},
    }


def buttons(*elements: Element) -> Element:
    """Buttons side by side."""
    columns = [{"tag": "column", "width": "auto", "elements": [e]} for e in elements]
    return {"tag": "column_set", "flex_mode": "flow", "columns": columns}


def card(title: str, elements: Sequence[Element], *, template: str = "blue") -> Card:
    built: Card = {
        "schema": "2.0",
        "config": {"update_multi": True},
        "header": {"title": {"tag": "plain_text", "content": clip(title, 100)}, "template": template},
        "body": {"elements": list(elements)},
    }
    return fit(built)


def size(built: Card) -> int:
    return len(json.dumps(built, ensure_ascii=False).encode())


def fit(built: Card, limit: int = CARD_LIMIT) -> Card:
    """The card with its longest markdown halved until it fits ``limit`` bytes (tool output can be huge)."""
    while size(built) > limit:
        texts = [e for e in walk(built["body"]["elements"]) if e.get("tag") == "markdown"]
        longest = max(texts, key=lambda e: len(e["content"]), default=None)
        if longest is None or len(longest["content"]) < 200:
            break
        longest["content"] = clip(longest["content"], len(longest["content"]) // 2)
    return built


def walk(elements: list[Element]) -> list[Element]:
    found = []
    for e in elements:
        found.append(e)
        for column in e.get("columns", []):
            found += walk(column.get("elements", []))
        found += walk(e.get("elements", []))
    return found


# --- pieces ---------------------------------------------------------------------------------


def step_title(step: Step, *, numbered: bool = True) -> str:
    """``**2.** `restart_service` · 🟠 exec`` (without its number where a heading already says it)."""
    head = f"**{step.number}.** " if numbered else ""
    return f"{head}`{escape(step.tool)}` · {_RISK[step.risk.label]}"


def chips_md(chips: Sequence[Chip], limit: int = 400) -> str:
    """Parameters as ``key=value`` chips (inline code), as many as fit in ``limit`` characters."""
    kept: list[str] = []
    for i, chip in enumerate(chips):
        shown = f"`{escape(clip(chip.text, 120)).replace('`', 'ˋ')}`"
        if len(" ".join([*kept, shown])) > limit:
            return " ".join([*kept, f"+{len(chips) - i} more"])
        kept.append(shown)
    return " ".join(kept)


def step_line(step: Step, limit: int = 200, *, why: bool = False) -> str:
    """One step as a line: status, number, tool, risk and parameters (``why``: and the planner's reason)."""
    line = f"{_STEP[step.status]} {step_title(step)} {chips_md(chips(step.params), limit // 2)}".rstrip()
    if step.status == "failed" and step.error:
        line += "\n↳ " + escape(clip(" ".join(step.error.split()), limit // 2))
    if why and step.reason:
        line += "\n↳ " + escape(clip(" ".join(step.reason.split()), limit))
    return line


def steps_md(steps: Sequence[Step], *, why: bool = False) -> str:
    """The steps one per line, within :data:`STEPS_BUDGET` together (``why``: each with its reason)."""
    per = max(60, min(200, STEPS_BUDGET // max(len(steps), 1) // (2 if why else 1)))
    return "\n".join(step_line(s, per, why=why) for s in steps)


def step_body(step: Step, lang: Lang, total: int) -> list[Element]:
    """The step a review is about: ``Step 2 of 3: `restart_service` · 🟠 exec``, its parameters and reason."""
    parts = [md(f"{say('step_of', lang, n=step.number, total=total)} {step_title(step, numbered=False)}")]
    if step.params:
        shown = chips_md(chips(step.params), PARAMS_LIMIT)
        parts.append(md(shown))
        if any(len(c.text) > 120 for c in chips(step.params)) or shown.endswith(" more"):
            exact = json.dumps(step.params, ensure_ascii=False, indent=2, default=str)
            parts.append(panel(say("show_details", lang), md(f"```json\n{escape(clip(exact, 8000))}\n```")))
    if step.reason:
        parts.append(note(f"**{say('why', lang)}** {escape(clip(' '.join(step.reason.split()), 500))}"))
    return parts


def panel(title: str, *elements: Element) -> Element:
    """A collapsed panel (card JSON 2.0 ``collapsible_panel``) that opens on a click."""
    return {
        "tag": "collapsible_panel",
        "expanded": False,
        "header": {
            "title": {"tag": "plain_text", "content": title},
            "icon": {"tag": "standard_icon", "token": "down-small-ccm_outlined"},
            "icon_position": "right",
            "icon_expanded_angle": -180,
        },
        "border": {"color": "grey", "corner_radius": "5px"},
        "elements": list(elements),
    }


# --- after a decision -------------------------------------------------------------------------


def decided(posted: Card, line: str) -> Card:
    """A review card once decided: the same content, no buttons or forms, one line saying who did what."""
    elements = posted.get("body", {}).get("elements", [])
    kept = [e for e in elements if not _interactive(e) and e.get("element_id") != WAITING]
    return fit({**posted, "body": {**posted.get("body", {}), "elements": [*kept, note(line)]}})


def _interactive(element: Element) -> bool:
    return element.get("tag") in ("button", "form") or any(
        _interactive(inner) for column in element.get("columns", []) for inner in column.get("elements", [])
    )


def is_live(posted: Card) -> bool:
    """Whether a card still offers anything to click."""
    return any(_interactive(e) for e in posted.get("body", {}).get("elements", []))


def choices_of(built: Card) -> list[str]:
    """The actions a card's buttons and forms carry, in order (tests and the fake read cards with this)."""
    return [
        str(b["value"].get("action"))
        for e in walk(built.get("body", {}).get("elements", []))
        if e.get("tag") == "button"
        for b in e.get("behaviors", [])
        if isinstance(b.get("value"), dict)
    ]
