"""Text helpers and the smallest block pieces every surface shares.

Anything a person or a tool wrote goes through :func:`escape` (or :func:`clip`,
which escapes and cuts) before it lands in mrkdwn, so ``<!channel>`` in a task
or a tool's output stays plain text. Cutting happens on the escaped text and
never splits an ``&amp;`` entity.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from slack_sdk.models.blocks import (
    ActionsBlock,
    ButtonElement,
    ConfirmObject,
    ContextBlock,
    DividerBlock,
    HeaderBlock,
    MarkdownTextObject,
    SectionBlock,
)

from agent.evidence import Chip, chips
from agent.models import Principal, Review, Risk, RunState, Status, Step, StepStatus, render_mentions
from blocks import ids

Block = dict[str, Any]
Blocks = list[Block]

MARK = "…"
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_USER_ID = re.compile(r"[UWB][A-Z0-9]+")

RISK_ICONS: dict[Risk, str] = {Risk.READ: "🟢", Risk.WRITE: "🟡", Risk.EXEC: "🟠", Risk.DEPLOY: "🔴"}
STEP_ICONS: dict[StepStatus, str] = {
    "pending": "⚪",
    "running": "⏳",
    "done": "✅",
    "failed": "❌",
    "skipped": "⏭️",
    "waiting": "❓",
}
STATUS_LABELS: dict[Status, str] = {
    "planning": "📝 Planning",
    "awaiting_review": "✋ Awaiting review",
    "executing": "⚙️ Executing",
    "done": "✅ Done",
    "human_takeover": "🧑‍💻 Human takeover",
    "cancelled": "🛑 Cancelled",
    "failed": "❌ Failed",
}


class Clipped(NamedTuple):
    """Escaped mrkdwn cut to a limit, and whether anything was cut."""

    text: str
    truncated: bool


# --- escaping and cutting ----------------------------------------------------


def escape(text: str) -> str:
    """Escape ``&``, ``<`` and ``>`` so Slack shows them as typed; the core's mentions become Slack's."""
    safe = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return render_mentions(safe, slack_mention, when) if "⟦" in safe else safe


def truncate(text: str, limit: int) -> str:
    """Cut plain text to at most ``limit`` characters, ending in ``…`` when cut."""
    if limit < len(MARK):
        raise ValueError(f"limit must be at least {len(MARK)}, got {limit}")
    if len(text) <= limit:
        return text
    return text[: limit - len(MARK)].rstrip() + MARK


def fit_escaped(text: str, room: int) -> str:
    """The longest prefix of ``text`` whose escaped form takes at most ``room`` characters."""
    used = 0
    for i, ch in enumerate(text):
        used += len(_ENTITIES.get(ch, ch))
        if used > room:
            return text[:i]
    return text


def clip(text: str, limit: int, *, tail: bool = False) -> Clipped:
    """Escape ``text`` and cut it to ``limit`` characters (``…`` included).

    ``tail=True`` keeps the end instead of the start (error output, logs).
    """
    safe = escape(text)
    if len(safe) <= limit:
        return Clipped(safe, False)
    room = limit - len(MARK)
    if room < 0:
        raise ValueError(f"limit must be at least {len(MARK)}, got {limit}")
    if tail:
        return Clipped(MARK + escape(fit_escaped(text[::-1], room)[::-1]), True)
    return Clipped(escape(fit_escaped(text, room)) + MARK, True)


def escaped(text: str, limit: int | None = None) -> str:
    """Escaped mrkdwn, cut to ``limit`` when one is given."""
    return escape(text) if limit is None else clip(text, limit).text


def code_block(text: str, limit: int, *, tail: bool = False) -> Clipped:
    """Tool output as a fenced code block of at most ``limit`` characters."""
    body = text.replace("```", "`\u200b``") or "(empty)"
    inner = clip(body, limit - 6, tail=tail)
    return Clipped(f"```{inner.text}```", inner.truncated)


def as_text(value: Any) -> str:
    """A tool result or parameter value as text: strings as they are, the rest as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False, default=str, sort_keys=True)


# --- ops vocabulary ----------------------------------------------------------


def risk_badge(risk: Risk) -> str:
    return f"{RISK_ICONS[risk]} {risk.label}"


def step_icon(status: StepStatus) -> str:
    return STEP_ICONS[status]


def status_label(status: Status) -> str:
    return STATUS_LABELS[status]


def chips_inline(chips: Sequence[Chip], limit: int = 300, *, value_limit: int = 80) -> Clipped:
    """``key=value`` chips as inline code, as many as fit in ``limit`` characters."""
    shown = [(chip.key, chip.value.replace("`", "ˋ")) for chip in chips]
    pairs = [f"`{escape(f'{key}={truncate(value, value_limit)}')}`" for key, value in shown]
    cut = any(len(value) > value_limit for _, value in shown)
    kept: list[str] = []
    for i, pair in enumerate(pairs):
        rest = len(pairs) - i - 1
        reserve = len(f" +{rest} more") if rest else 0
        if len(" ".join([*kept, pair])) + reserve > limit:
            return Clipped(" ".join([*kept, f"+{len(pairs) - i} more"]), True)
        kept.append(pair)
    return Clipped(" ".join(kept), cut)


def params_inline(params: Mapping[str, Any], limit: int = 300, *, value_limit: int = 80) -> Clipped:
    """A step's parameters as ``key=value`` chips (see :func:`chips_inline`)."""
    return chips_inline(chips(params), limit, value_limit=value_limit)


def pack(texts: list[str], sep: str = "\n", limit: int = 3000) -> list[str]:
    """Join ``texts`` into as few chunks of at most ``limit`` characters as fit."""
    chunks: list[str] = []
    for text in texts:
        if chunks and len(chunks[-1]) + len(sep) + len(text) <= limit:
            chunks[-1] += sep + text
        else:
            chunks.append(text)
    return chunks


def params_json(params: Mapping[str, Any]) -> str:
    """The exact parameters, pretty-printed for a code block."""
    return json.dumps(params, indent=2, ensure_ascii=False, default=str, sort_keys=True)


def step_title(step: Step) -> str:
    """```restart_service` · 🟠 exec``"""
    return f"`{escape(step.tool)}` · {risk_badge(step.risk)}"


def step_of(state: RunState, review: Review) -> Step | None:
    """The step a review is about, if it names one that is in the plan."""
    if review.step is None:
        return None
    return next((s for s in state.plan if s.number == review.step), None)


# --- people and time ---------------------------------------------------------


def mention(user: str) -> str:
    """``<@U123>`` for a Slack user id; anything else is shown escaped."""
    return f"<@{user}>" if _USER_ID.fullmatch(user) else escape(user)


def slack_mention(principal: Principal) -> str:
    """A principal as mrkdwn: ``<!subteam^S123>`` for a Slack user group, ``<@U123>`` for a user, else its id."""
    if principal.platform == "slack":
        return f"<!subteam^{principal.id}>" if principal.is_group else f"<@{principal.id}>"
    return principal.id.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mention_any(entry: str) -> str:
    """A policy entry as mrkdwn: ``<!subteam^S123>`` for a user group id, else :func:`mention`."""
    principal = Principal.parse(entry)
    return slack_mention(principal) if principal.is_group else mention(entry)


def mention_group(group: str) -> str:
    """``members of @ops``: how a refusal names a group that may act."""
    return f"members of {mention_any(group)}"


def clock(at: float) -> str:
    """``14:02``: the UTC time of day of an epoch."""
    return datetime.fromtimestamp(at, UTC).strftime("%H:%M")


def when_day(at: float) -> str:
    """A time and its day for mrkdwn, in each reader's time zone (``today at 14:02``, ``Mar 5 at 09:10``);
    ``2026-03-05 09:10 UTC`` is the fallback."""
    fallback = datetime.fromtimestamp(at, UTC).strftime("%Y-%m-%d %H:%M")
    return f"<!date^{int(at)}^{{date_short_pretty}} at {{time}}|{fallback} UTC>"


def when(at: float) -> str:
    """A time for mrkdwn: each reader sees their local time; ``14:02 UTC`` is the fallback."""
    return f"<!date^{int(at)}^{{time}}|{clock(at)} UTC>"


# --- block shorthands --------------------------------------------------------


def section(text: str) -> Block:
    return SectionBlock(text=MarkdownTextObject(text=text)).to_dict()


def context(*texts: str) -> Block:
    return ContextBlock(elements=[MarkdownTextObject(text=t) for t in texts]).to_dict()


def header(text: str) -> Block:
    return HeaderBlock(text=truncate(" ".join(text.split()) or "Untitled", 150)).to_dict()


def divider() -> Block:
    return DividerBlock().to_dict()


def button(label: str, action_id: str, value: str, *, style: str | None = None) -> ButtonElement:
    return ButtonElement(text=label, action_id=action_id, value=value, style=style)


def cancel_button(review_id: str) -> ButtonElement:
    """ "Cancel run", red, behind a confirm dialog."""
    confirm = ConfirmObject(
        title="Cancel this run?",
        text="Tandem stops here. Steps that already ran are not undone.",
        confirm="Cancel run",
        deny="Keep going",
        style="danger",
    )
    return ButtonElement(text="Cancel run", action_id=ids.CANCEL, value=review_id, style="danger", confirm=confirm)


def details_button(review_id: str) -> ButtonElement:
    return button("Show details", ids.DETAILS, review_id)


def actions(*elements: ButtonElement) -> Block:
    return ActionsBlock(elements=list(elements)).to_dict()
