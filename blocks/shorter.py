"""A review's message in a shorter form, for when Slack refuses the full one (too long, too many blocks).

``short``: what the review asks about in a few lines (the task, one line per step, what approving
does), the same controls as the full message, and *Show details* for everything else.
``text``: no blocks at all, only text that says what is asked and how to answer without buttons
(a thread reply, or ``tandem answer``). Both are rendered from the review's neutral view.
"""

from __future__ import annotations

from typing import assert_never

from agent.models import Form
from agent.review_summary import review_summary
from agent.review_view import ReviewView
from blocks import ids
from blocks.text import (
    Blocks,
    context,
    details_button,
    escape,
    escaped,
    mention_any,
    params_inline,
    section,
    step_title,
    truncate,
)

SHORTENED = "✂️ Shortened: the whole review did not fit in one Slack message. *Show details* has all of it."
SUMMARY_MAX = 2500  # characters of step lines in the short form
TEXT_MAX = 2900  # characters of the text form (kept as a section later, to mark it decided)


def summary(view: ReviewView, limit: int = SUMMARY_MAX) -> list[str]:
    """What the review is about, in a few mrkdwn lines: the question or step, then one line per step."""
    said = review_summary(view)
    lines = [f"*{escape(said.title)}* · {escaped(said.task, 300)}"]
    lines += [escaped(said.question, 1000)] if said.question is not None else []
    if said.step is not None:  # what a gate approves: the step and its parameters
        lines.append(f"Step {said.step.number}: {step_title(said.step)} {params_inline(said.step.params, 600).text}")
    lines += [f"⚠️ {escape(said.warning)}"] if said.warning else []
    if said.steps:
        lines.append(_fit([f"{s.number}. {step_title(s)}" for s in said.steps], limit))
    return lines + [escape(line) for line in said.gate_lines]


def _fit(lines: list[str], limit: int) -> str:
    """As many whole ``lines`` as fit in ``limit`` characters, and how many were left out."""
    kept: list[str] = []
    for line in lines:
        if sum(len(k) + 1 for k in kept) + len(line) > limit - 40:
            return "\n".join([*kept, f"… {len(lines) - len(kept)} more · *Show details* has every one"])
        kept.append(line)
    return "\n".join(kept)


def waiting(view: ReviewView) -> str | None:
    if not view.waiting_on or view.anchor == "takeover":
        return None
    more = f" and {len(view.waiting_on) - 10} more" if len(view.waiting_on) > 10 else ""
    return "Waiting on " + ", ".join(mention_any(p) for p in view.waiting_on[:10]) + more


def short_review(view: ReviewView, full: Blocks) -> Blocks:
    """The summary, the full message's own controls (same buttons, same values), and *Show details*."""
    blocks: Blocks = [section(truncate(line, 2900)) for line in summary(view)][:40]
    blocks.append(context(SHORTENED))
    who = waiting(view)
    if who is not None:
        blocks.append(context(who))
    controls = [b for b in full if b.get("type") == "actions"][:5]
    has_details = any(e.get("action_id") == ids.DETAILS for b in controls for e in b.get("elements") or [])
    if not has_details:
        controls.append({"type": "actions", "elements": [details_button(view.review_id).to_dict()]})
    return [*blocks, *controls]


def how_to_answer(view: ReviewView, here: str = "in this thread") -> str:
    """How to answer a review whose message has no buttons: a reply in the run's thread (``here``), or the
    terminal."""
    cli = f"tandem answer {view.run_id} --review {view.review_id}"
    match view.anchor:
        case "handoff":
            return f"To answer: `{cli} --answer VALUE`, or reply *cancel* {here}."
        case "takeover":
            return f"Reply {here} with the next step, or `{cli} --finish` (or `--hand-back`)."
        case _ if view.text_approves:
            return f"To answer, reply {here}: *approve*, *cancel*, or say what to change; or `{cli} --approve`."
        case _:
            return (
                f"A reply cannot approve this step: `{cli} --approve`; or reply *cancel* {here}, or say what to change."
            )


def review_text(view: ReviewView, here: str = "in this thread") -> str:
    """The review as text alone: what it asks, who it waits on, how to answer without buttons."""
    head = "This review could not be shown with its buttons, so here it is as text."
    lines = [head, *summary(view, TEXT_MAX // 2)]
    who = waiting(view)
    if who is not None:
        lines.append(who)
    lines.append(how_to_answer(view, here))
    lines.append(f"Everything about it: `tandem show {view.run_id}`.")
    return truncate("\n".join(lines), TEXT_MAX)


def review_in(form: Form, view: ReviewView, full: Blocks, here: str = "in this thread") -> tuple[Blocks, str]:
    """The review's blocks (none as text) and its notification text, in ``form``; ``here``: where a reply
    answers it, said from where the message is posted."""
    match form:
        case "full":
            return full, f"Tandem needs a decision on run {view.run_id}"
        case "short":
            return short_review(view, full), f"Tandem needs a decision on run {view.run_id} (shortened)"
        case "text":
            return [], review_text(view, here)
        case _:
            assert_never(form)
