"""Pure builders of Feishu cards (card JSON 2.0): data in, card dicts out.

Every review card is rendered from the channel-neutral :class:`~agent.review_view.ReviewView`,
so Feishu offers exactly the choices Slack offers. Buttons carry object values
(``{"action": …, "review": …}``); the feedback form submits as a button callback with
``form_value``. Cards are shared in group chats, so they set ``update_multi``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from agent.correction_messages import NOTHING_RAN_YET
from agent.models import Reading, RunState
from agent.outcome import outcome
from agent.review_view import ReviewView
from feishu import zh
from feishu.elements import (
    WAITING,
    Card,
    Element,
    button,
    buttons,
    card,
    link_button,
    md,
    note,
    step_body,
    steps_md,
    text_input,
)
from feishu.evidence import evidence_elements
from feishu.lessons import used_lines
from feishu.tables import rich
from feishu.wording import Lang, clip, escape, lang_of, prose, say, who

OUTPUT_LIMIT = 3000
LESSONS_SHOWN = 5  # on the run card, which keeps room for its steps and decisions
INTENTS = ("auto", "replan", "retry_step", "refine_output")
CLARIFY_INTENTS = ("approve", "replan", "retry_step", "refine_output", "cancel")
_TEMPLATE = {"before_risky_step": "orange", "step_failed": "red", "recovery": "orange", "takeover": "purple"}


def waiting_line(view: ReviewView, lang: Lang) -> Element | None:
    if not view.waiting_on or view.anchor == "takeover":
        return None
    names = ", ".join(who(p) for p in view.waiting_on[:10])
    more = f" +{len(view.waiting_on) - 10}" if len(view.waiting_on) > 10 else ""
    return {**note(say("waiting_on", lang, who=names + more)), "element_id": WAITING}


def value(action: str, view: ReviewView, **extra: Any) -> dict[str, Any]:
    return {"action": action, "review": view.review_id, "run": view.run_id, **extra}


def choice_buttons(view: ReviewView, lang: Lang) -> list[Element]:
    """One button per choice the policy offers on this review (the form submits request_changes)."""
    approve = {"step_failed": "continue_anyway", "recovery": "rerun"}.get(view.anchor, "approve")
    made: list[Element] = []
    for choice in view.choices:
        match choice:
            case "approve":
                made.append(button(say(approve, lang), value("approve", view), kind="primary"))
            case "approve_always":
                tool, scope = view.step.tool if view.step else "?", view.always_scope
                label = (
                    say("approve_always", lang, tool=tool, scope=scope)
                    if scope
                    else say("approve_always_tool", lang, tool=tool)
                )
                made.append(button(label, value("approve_always", view)))
            case "finish" | "hand_back":
                made.append(button(say(choice, lang), value(choice, view)))
            case "cancel":
                made.append(button(say("cancel", lang), value("cancel", view), kind="danger"))
            case "request_changes" | "answer" | "instruct":
                pass  # forms below
    return made


def feedback_form(view: ReviewView, lang: Lang, action: str = "request_changes") -> Element:
    """A feedback input and the intent choice, submitted as one button callback with ``form_value``."""
    words = {i: f"intent_{i}" for i in INTENTS}
    if view.anchor in NOTHING_RAN_YET:  # the step has not run: it is changed before it runs, not retried
        words["retry_step"] = "intent_change_step"
    options = [{"text": {"tag": "plain_text", "content": say(words[i], lang)}, "value": i} for i in INTENTS]
    if view.anchor != "before_result":
        options = [o for o in options if o["value"] != "refine_output"]
    return {
        "tag": "form",
        "name": f"form_{action}",
        "elements": [
            text_input("feedback", say("feedback", lang)),
            {"tag": "select_static", "name": "intent", "initial_option": "auto", "options": options},
            {**button(say("request_changes", lang), value(action, view)), "form_action_type": "submit", "name": action},
        ],
    }


def text_form(view: ReviewView, lang: Lang, action: str, label: str) -> Element:
    submit = {**button(say("send", lang), value(action, view), kind="primary"), "form_action_type": "submit"}
    field = text_input("text", say(label, lang))
    return {"tag": "form", "name": f"form_{action}", "elements": [field, {**submit, "name": action}]}


# --- review cards ---------------------------------------------------------------------------


def review_card(view: ReviewView, lang: Lang | None = None) -> Card:
    """The card asking for a decision on one pending review, for every anchor."""
    lang = lang or lang_of(view.task)
    body = _content(view, lang)
    if view.note and view.note != view.takeover_reason:
        body.append(note(prose(view.note, 1000)))
    if view.approvals:
        names = ", ".join(who(a) for a in view.approvals)
        body.append(note(say("approved_so_far", lang, who=names, n=view.approvals_needed)))
    if view.offer_text:
        body.append(note(f"🔁 {prose(view.offer_text)}"))
    waiting = waiting_line(view, lang)
    if waiting is not None:
        body.append(waiting)
    body += controls(view, lang)
    title = say(view.anchor, lang) if view.handoff is None else say("handoff", lang)
    return card(title, body, template=_TEMPLATE.get(view.anchor, "blue"))


def _content(view: ReviewView, lang: Lang) -> list[Element]:
    task = md(f"**{escape(clip(view.task, 500))}**")
    if view.handoff is not None:
        h = view.handoff
        asked = f" · {say('asked_by', lang, who=escape(view.asker or '?'))}"
        parts = [task, md(escape(clip(h.prompt, 2000)) + asked)]
        if h.reason:
            parts.append(note(f"**{say('why', lang)}** {escape(clip(h.reason, 300))}"))
        return parts
    parts = [task]
    if view.takeover_reason:
        parts.append(md(escape(clip(view.takeover_reason, 1000))))
    if view.warning:
        parts.append(md(f"⚠️ {escape(view.warning)}"))
    if view.anchor == "takeover":
        title = say("done_so_far", lang)
        parts.append(md(f"**{title}**\n{steps_md(view.steps)}" if view.steps else say("nothing_ran", lang)))
    elif view.steps:
        parts.append(md(f"**{say('plan', lang)}**\n{steps_md(view.steps, why=view.anchor == 'after_plan')}"))
    gates = zh.gate_lines(view.gates) if lang == "zh" else [prose(line, 1000) for line in view.gate_lines]
    parts += [note(line) for line in gates]
    parts += used_lines(view.lessons, lang, view.run_id, view.review_id)
    covered = view.step is not None and any(e.number == view.step.number for e in view.evidence)
    if view.step is not None and view.anchor != "takeover":
        parts += step_body(view.step, lang, max(view.plan_size, view.step.number))
        if view.step.error and not covered:
            parts.append(md(f"❌ {escape(clip(view.step.error, 1000))}"))
        if view.anchor == "after_risky_step" and view.step.result is not None and not covered:
            result = json.dumps(view.step.result, ensure_ascii=False, default=str)
            parts.append(md(f"**{say('output', lang)}**\n```\n{clip(result, OUTPUT_LIMIT)}\n```"))
    if view.output:
        parts += rich(clip(view.output, OUTPUT_LIMIT), f"**{say('result', lang)}**")
    parts += [note(prose(line, 1000)) for line in view.outcomes]
    return parts + evidence_elements(view.evidence, lang)


def controls(view: ReviewView, lang: Lang) -> list[Element]:
    """The review's buttons and forms: one per choice the policy offers."""
    made: list[Element] = []
    parts: list[Element] = []
    h = view.handoff
    if h is not None and h.input_type == "confirm":
        yes = button(say("yes", lang), value("answer", view, answer=True), kind="primary")
        made = [yes, button(say("no", lang), value("answer", view, answer=False))]
        if h.elicitation is not None and h.elicitation.url:  # an MCP server's URL-mode question
            made.insert(0, link_button(say("open_link", lang), h.elicitation.url))
    elif h is not None and h.input_type == "choice":
        made = [button(o, value("answer", view, answer=o)) for o in h.options[:20]]
    elif h is not None:
        parts.append(text_form(view, lang, "answer_text", "answer"))
    if h is not None and h.offers_decline:  # an MCP server's form: the server gets decline
        made.append(button(say("decline", lang), value("decline", view)))
    made += choice_buttons(view, lang)
    if "instruct" in view.choices:
        parts.append(text_form(view, lang, "instruct", "instruction"))
    if made:
        parts.insert(0, buttons(*made))
    if "request_changes" in view.choices:
        parts.append(feedback_form(view, lang))
    return parts


# --- the run card and small cards -------------------------------------------------------------


def run_card(state: RunState, decisions: Sequence[str] = (), status: str = "", warning: str = "") -> Card:
    """The run's root card: task, live status, plan progress, decisions, outcome."""
    lang = lang_of(state.task)
    ended = outcome(state)
    said = say(f"status_{state.status}", lang) if ended is None else ended.label(lang == "zh")
    detail = escape(ended.detail(lang == "zh")) if ended is not None else ""
    head = said + (f" · {detail}" if detail else "") + (f" · {escape(status)}" if status else "")
    meta = say("requested_by", lang, who=who(state.requester), run=state.id)
    elements = [md(f"**{head}**"), note(meta)]
    if state.plan:
        elements.append(md(steps_md(state.plan)))
    elements += used_lines(state.lessons_applied[:LESSONS_SHOWN], lang, state.id)
    if state.phase == "done" and state.output:
        elements += rich(clip(state.output, OUTPUT_LIMIT), f"**{say('outcome', lang)}**")
    if state.phase == "failed":
        elements.append(md(f"**{say('failed', lang)}:** {escape(clip(state.error or '?', 1500))}"))
    if decisions:
        shown = list(decisions[-8:])
        elements.append(note("\n".join(shown)))
    if warning:
        elements.append(md(f"⚠️ {warning}"))
    template = {"done": "green", "failed": "red", "cancelled": "grey"}.get(state.status, "blue")
    return card(clip(state.task, 100), elements, template=template)


def line_card(text: str, lang: Lang = "en", *, title: str = "Tandem") -> Card:
    """A short message (a reminder, a notice, the end of a run) as a card, so mentions render."""
    return card(title, [md(text)], template="grey")


def finished_card(text: str, run_id: str, lang: Lang = "en") -> Card:
    """The end of a run; a done one asks whether its result was useful (👍/👎, see :mod:`agent.votes`)."""
    votes = [buttons(*(button(label, {"action": "vote", "run": run_id, "vote": v}) for v, label in _VOTES))]
    return card("Tandem", [md(text), *(votes if run_id else [])], template="grey")


_VOTES = (("up", "👍"), ("down", "👎"))


def clarify_card(
    reading: Reading, review_id: str, run_id: str, text: str, anchor: str, lang: Lang, *, can_approve: bool
) -> Card:
    """Not sure what a reply meant: one button per reading (never Approve at an exec or deploy gate)."""
    quoted = escape(clip(" ".join(text.split()), 300))
    sure = int(round(reading.confidence * 100))
    lead = say("unsure", lang, text=quoted, guess=say(f"intent_{reading.intent}", lang), sure=sure)
    intents = [
        i
        for i in CLARIFY_INTENTS
        if not (i == "refine_output" and anchor != "before_result") and (can_approve or i != "approve")
    ]
    made = [
        button(
            say(f"intent_{i}", lang),
            {
                "action": "clarify",
                "review": review_id,
                "run": run_id,
                "intent": i,
                "step": reading.target_step,
                "text": text[:1500],
            },
        )
        for i in intents
    ]
    return card("Tandem", [md(f"🤔 {lead}"), buttons(*made)], template="yellow")
