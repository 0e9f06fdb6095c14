"""A review in a shorter form, for when Feishu refuses its full card (too long, a card it cannot take).

``short``: a card with what the review is about in a few lines (the task, one line per step,
what approving does), the same buttons and forms as the full card, and where to see all of it.
``text``: a text message alone (no card), saying what is asked and how to answer without buttons.
Both are rendered from the review's neutral view, like the full card.
"""

from __future__ import annotations

from agent.evidence import chips
from agent.models import Step
from agent.review_summary import review_summary
from agent.review_view import ReviewView
from feishu.cards import controls, waiting_line
from feishu.elements import Card, card, chips_md, md, note
from feishu.wording import Lang, clip, lang_of, plain, prose, say, who

STEPS_MAX = 2000  # characters of step lines in the short card
TEXT_MAX = 3500


def _lines(view: ReviewView, steps_max: int) -> list[str]:
    said = review_summary(view)
    lines = [f"**{prose(said.task, 300)}**"]
    lines += [prose(said.question, 1000)] if said.question is not None else []
    if said.step is not None:  # what a gate approves: the step and its parameters
        lines.append(f"{_step(said.step)} {chips_md(chips(said.step.params), 600)}")
    lines += [f"⚠️ {prose(said.warning)}"] if said.warning else []
    if said.steps:
        lines.append(clip("\n".join(_step(s) for s in said.steps), steps_max))
    return lines + [prose(line, 500) for line in said.gate_lines]


def _step(step: Step) -> str:
    return f"{step.number}. `{prose(step.tool, 100)}` · {step.risk.label}"


def short_card(view: ReviewView, lang: Lang | None = None) -> Card:
    """The review in a few lines, with every control of the full card."""
    lang = lang or lang_of(view.task)
    body = [md(line) for line in _lines(view, STEPS_MAX)]
    body.append(note(say("shortened", lang, run=view.run_id)))
    waiting = waiting_line(view, lang)
    if waiting is not None:
        body.append(waiting)
    title = say(view.anchor, lang) if view.handoff is None else say("handoff", lang)
    return card(title, [*body, *controls(view, lang)], template="blue")


def review_text(view: ReviewView, lang: Lang | None = None) -> str:
    """The review as a text message: what it asks, who it waits on, how to answer without buttons."""
    lang = lang or lang_of(view.task)
    cli = f"tandem answer {view.run_id} --review {view.review_id} --approve"
    if view.anchor == "handoff":
        cli = f"tandem answer {view.run_id} --review {view.review_id} --answer VALUE"
    elif view.anchor == "takeover":
        cli = f"tandem answer {view.run_id} --review {view.review_id} --instruct TEXT"
    how = say("answer_by_reply" if view.text_approves else "answer_by_cli", lang, cli=cli)
    lines = [say("as_text", lang), say(view.anchor, lang), *_lines(view, TEXT_MAX // 2)]
    if view.waiting_on and view.anchor != "takeover":
        lines.append(say("waiting_on", lang, who=", ".join(who(p) for p in view.waiting_on[:10])))
    lines.append(how)
    return clip(plain("\n".join(lines)), TEXT_MAX)
