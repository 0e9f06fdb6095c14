"""The run card: one message in the channel that shows a run from start to end.

It is re-rendered from :class:`RunState` on every change, and kept short: task, status, the
plan with each step's progress, who decided, and the result in one line. The thread holds the
detail: each decision on its review, and the result whole.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agent.card_view import status_detail
from agent.decision_lines import DecisionLine
from agent.models import RunState, Step
from agent.outcome import outcome
from blocks.lessons import applied_lessons
from blocks.limits import MAX_SECTION_TEXT
from blocks.text import (
    Block,
    Blocks,
    clip,
    context,
    escape,
    header,
    mention,
    mention_any,
    pack,
    params_inline,
    risk_badge,
    section,
    status_label,
    step_icon,
    truncate,
    when,
)

STEP_LINE_MAX = 200
STEPS_BUDGET = 6000  # all step lines together, so long plans stay well inside the message size bound
RESULT_LINE = 200
PEOPLE_SHOWN = 5
_MARKS = re.compile(r"^(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s*)+")
LESSONS_SHOWN = 5  # the card keeps room for its steps and decisions


def step_line(step: Step, limit: int = STEP_LINE_MAX) -> str:
    """``✅ *1.* `restart_service` `service=payments` · 🟠 exec`` plus the error of a failed step."""
    head = f"{step_icon(step.status)} *{step.number}.* `{escape(step.tool)}`"
    tail = f" · {risk_badge(step.risk)}" + (f" · attempt {step.attempts}" if step.attempts > 1 else "")
    error = ""
    if step.status == "failed" and step.error:
        error = "\n↳ " + clip(" ".join(step.error.split()), max(limit // 3, 20)).text
    room = limit - len(head) - len(tail) - len(error) - 1
    params = params_inline(step.params, room).text if step.params and room > 12 else ""
    line = head + (f" {params}" if params else "") + tail + error
    return truncate(line, limit)


def step_sections(steps: Sequence[Step], budget: int = STEPS_BUDGET) -> Blocks:
    """Step lines packed into as few sections as fit."""
    if not steps:
        return []
    per_line = max(60, min(STEP_LINE_MAX, budget // len(steps)))
    return [section(chunk) for chunk in pack([step_line(s, per_line) for s in steps], limit=MAX_SECTION_TEXT)]


def _status(state: RunState, waiting_on: Sequence[str]) -> Block:
    ended = outcome(state)
    label = ended.label() if ended is not None else status_label(state.status)
    detail = ended.detail() if ended is not None else ""
    text = f"*{label}*" + (f" · {clip(detail, 300).text}" if detail else "")
    if state.takeover and state.takeover_reason and not state.finished:
        text += f" — {clip(state.takeover_reason, 300).text}"
    detail = status_detail(state)
    if detail:
        text += f" · {detail}"
    if waiting_on and state.pending is not None and not state.finished:
        who = ", ".join(mention_any(p) for p in waiting_on[:10])
        text += f" · waiting on {who}" + (f" and {len(waiting_on) - 10} more" if len(waiting_on) > 10 else "")
    return section(text)


def result_line(output: str, limit: int = RESULT_LINE) -> str:
    """The result's first line of prose (no table row, no code fence), without Markdown's marks, escaped and
    clipped; '' when it has none (the thread has it whole)."""
    for raw in output.splitlines():
        if raw.lstrip().startswith(("|", "```")):
            continue
        line = _MARKS.sub("", raw.strip()).replace("**", "").replace("__", "").strip()
        if line:
            return clip(" ".join(line.split()), limit).text
    return ""


def _result(state: RunState) -> Blocks:
    if state.phase == "done":
        line = result_line(state.output or "") or ("_in the thread_" if state.output else "_no written result_")
        return [section(f"*Result:* {line}")]
    if state.phase == "failed":
        error = " ".join((state.error or "no error recorded").split())
        return [section(f"*Failed:* {clip(error, RESULT_LINE, tail=True).text}")]
    return []


def _who_decided(lines: Sequence[DecisionLine]) -> Blocks:
    """Who decided, in one line; each decision is on its review in the thread (notes by nobody are no decision)."""
    decided = [line for line in lines if line.actor or line.outcome != "info"]
    if not decided:
        return []
    people = list(dict.fromkeys(line.actor for line in decided if line.actor))
    names = ", ".join(mention(p) for p in people[:PEOPLE_SHOWN])
    names += f" and {len(people) - PEOPLE_SHOWN} more" if len(people) > PEOPLE_SHOWN else ""
    if any(line.actor is None for line in decided):
        names = f"{names} and by a rule or a deadline" if names else "a rule or a deadline"
    n = len(decided)
    return [context(f"Decided by {names} · {n} decision{'s' if n != 1 else ''}, each in the thread")]


def run_card(
    state: RunState,
    decisions: Sequence[DecisionLine] = (),
    *,
    approvers: str | None = None,
    waiting_on: Sequence[str] = (),
    answerers: str | None = None,
) -> Blocks:
    """The channel message for a run.

    ``decisions`` are summed up in one line (who decided, how many times); each is on its review in the thread.
    ``approvers`` is trusted mrkdwn from the caller (e.g. ``<@U2>, <!subteam^S1>``);
    without it the card says the requester decides. ``waiting_on``: who the pending review waits
    for (principal ids, from the policy). ``answerers``: for a run that only asks, who may answer its question
    (trusted mrkdwn), said instead of the approvals line. Steps of earlier plans that ran stay listed, numbered
    once per run.
    """
    meta = f"Requested by {mention(state.requester)} · started {when(state.created_at)} · run `{escape(state.id)}`"
    who = approvers if approvers else "the requester decides"
    footer = f"Approvals: {who} · asks before {state.policy.confirm_threshold.label}+ steps"
    if answerers:
        footer = f"Who may answer: {answerers}"
    return [
        header(state.task),
        _status(state, waiting_on),
        context(meta),
        *step_sections([*state.history, *state.plan]),
        *applied_lessons(state.lessons_applied, state.id, LESSONS_SHOWN),
        *_result(state),
        *_who_decided(decisions),
        context(footer),
    ]
