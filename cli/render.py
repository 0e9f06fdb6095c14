"""Plain-text rendering of runs and reviews for the terminal channel.

A review is rendered from its channel-neutral :class:`~agent.review_view.ReviewView`.
Prose the core wrote names people and times with markers (:func:`plain`); text written
as Markdown or mrkdwn (the result, a review's note) goes through
:func:`cli.mrkdwn.terminal_text`, its tables as aligned columns; ``color`` turns on
ANSI styles (a terminal only).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Literal

from agent.evidence import chips
from agent.lessons import using
from agent.markdown_tables import segments, table_rows
from agent.messages import plural, timeout_note
from agent.models import (
    AuditEvent,
    Delivery,
    LessonUse,
    Review,
    RunState,
    Step,
    mention,
    render_mentions,
)
from agent.outcome import outcome
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from cli.evidence import evidence_lines
from cli.messages import NOTE_EARLIER
from cli.mrkdwn import terminal_text
from cli.names import named_mention, person

NoteShown = Literal["new", "earlier", "hidden"]
"""A review's note: news, said before this session (``tandem resume``), or already shown in it."""

_ICONS = {"pending": "·", "running": "…", "waiting": "?", "done": "✓", "failed": "✗", "skipped": "-"}


def local_time(at: float) -> str:
    """``14:02`` in this machine's time zone (a terminal's reader is here)."""
    return datetime.fromtimestamp(at).strftime("%H:%M")


def local_datetime(at: float) -> str:
    """``2026-12-02 03:14:07`` in this machine's time zone."""
    return datetime.fromtimestamp(at).astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _when(at: float) -> str:
    """``14:02`` today, ``2026-12-02 03:14`` on another day (local time)."""
    same_day = datetime.fromtimestamp(at).date() == datetime.now().date()
    return local_time(at) if same_day else local_datetime(at)[:16]


def plain(text: str) -> str:
    """Prose the core wrote, for a terminal: people as ``@name`` where it is known (else ``@id``), times local."""
    return render_mentions(text, named_mention, local_time)


def columns(rows: list[list[str]]) -> list[str]:
    """A table as aligned columns, the header underlined."""
    width = max(len(r) for r in rows)
    padded = [(r + [""] * width)[:width] for r in rows]
    sizes = [max(len(r[i]) for r in padded) for i in range(width)]
    lines = ["  ".join(cell.ljust(sizes[i]) for i, cell in enumerate(r)).rstrip() for r in padded]
    rule = "  ".join("-" * n for n in sizes)
    return [lines[0], rule, *lines[1:]]


def written(text: str, *, color: bool = False) -> str:
    """A result or note as a terminal shows it: Markdown tables as columns, the rest through terminal_text."""
    out = []
    for kind, lines in segments(plain(text)):
        if kind == "table":
            out += columns(table_rows(lines))
        else:
            body = "\n".join(lines).replace("**", "*")  # Markdown bold reads as mrkdwn bold here
            out.append(terminal_text(body, color=color))
    return "\n".join(out)


def _params(params: dict[str, Any]) -> str:
    return ", ".join(c.text for c in chips(params))


def step_line(step: Step) -> str:
    risk = step.risk.label.upper() if step.risk else "read"
    return f"  {_ICONS[step.status]} {step.number}. {step.tool}({_params(step.params)})  [{risk}]  {step.reason}"


def _indent(text: str, limit: int = 1500) -> str:
    if len(text) > limit:
        text = text[:limit] + f"\n… ({plural(len(text) - limit, 'more character')}; `tandem show RUN --json` has all)"
    return "\n".join("      " + line for line in text.splitlines())


def review_text(
    state: RunState,
    review: Review,
    safety: SafetyPolicy | None = None,
    *,
    color: bool = False,
    full: bool = False,
    note: NoteShown = "new",
) -> str:
    """The terminal's rendering of the channel-neutral :class:`ReviewView` of ``review`` (``full``: the
    evidence's whole outputs, as ``tandem show`` prints them; ``note``: its note as news, as said before
    this session, or not again)."""
    view = review_view(state, review, safety or SafetyPolicy())
    lines = [f"── {view.title} · run {view.run_id} ──", f"Task: {view.task}"]
    if view.note and note == "new":
        lines.append(f"Note: {written(view.note, color=color)}")
    elif view.note and note == "earlier":
        lines.append(NOTE_EARLIER.format(time=_when(review.created_at), note=written(view.note, color=color)))
    step = view.step
    if view.anchor == "after_plan":
        lines.append("Plan:")
        lines += [step_line(s) for s in view.steps]
        lines += [written(line, color=color) for line in view.gate_lines]
    elif view.anchor in ("before_risky_step", "takeover_step", "recovery") and step is not None:
        lines.append(f"Step {step.number}: {step.tool}  risk: {step.risk.label}")
        lines.append(f"  params: {'  '.join(c.text for c in chips(step.params)) or '(none)'}")
        lines.append(f"  why: {step.reason}")
        if view.warning:
            lines.append(f"  {view.warning}")
            lines.append("  Approve re-runs it; request changes or cancel otherwise.")
    elif view.anchor in ("after_risky_step", "step_failed") and step is not None:
        lines.append(step_line(step))
        if all(e.number != step.number for e in view.evidence):  # else the evidence below shows it
            lines.append(_indent(str(step.error if step.error else step.result)))
        if step.timed_out is not None:
            lines.append(f"  {timeout_note(step.timed_out)}")
    elif view.anchor == "before_result":
        lines += [step_line(s) for s in view.steps]
        lines += view.outcomes  # tool output: plain text, never read as markup
        lines.append("Result:")
        lines.append(_indent(written(view.output or "", color=color)))
    elif view.handoff is not None:
        h = view.handoff
        lines.append(f"Question from {view.asker}: {h.prompt}")
        if h.reason:
            lines.append(f"  why: {h.reason}")
        if h.context:
            lines.append(f"  context: {json.dumps(h.context, ensure_ascii=False, default=str)}")
        if h.input_type == "choice":
            lines += [f"  {i}) {option}" for i, option in enumerate(h.options, start=1)]
        elif h.input_type == "confirm":
            lines.append("  yes / no")
        elif h.input_type == "number":
            lines.append("  (a number)")
    elif view.anchor == "takeover":
        lines.append(f"Tandem stopped acting on its own: {view.takeover_reason}")
        if view.steps:
            lines.append("Done so far:")
            lines += [step_line(s) for s in view.steps]
            last = view.steps[-1]
            lines.append(_indent(str(last.error or last.result)))
        lines.append("Type an instruction (one step at a time), 'finish', or 'hand back'.")
    lines += lesson_lines(view.lessons, color=color)
    lines += evidence_lines(view.evidence, view.run_id, full=full)
    if view.offer_text:
        lines.append(view.offer_text)
    if "approve_always" in view.choices:
        lines.append(f"  {view.always_label}: tandem answer {view.run_id} --approve-always --review {view.review_id}")
    if view.waiting_on:
        lines.append("Waiting on: " + ", ".join(mention(p) for p in view.waiting_on))
    if view.quorum > 1:
        lines.append(f"Approvals: {len(view.approvals)} of {view.quorum}")
    lines.append(f"Retries used: {view.retries}/{view.max_retries}")
    return plain("\n".join(lines))


def lesson_lines(uses: Sequence[LessonUse], *, color: bool = False) -> list[str]:
    """Each lesson that shaped the plan, with how to forget it (or who did)."""
    lines = []
    for use in uses:
        if use.forgotten_by is not None:
            lines.append(f"{written(using(use), color=color)}  (forgotten by {mention(use.forgotten_by)})")
        else:
            lines.append(f"{written(using(use), color=color)}  (forget: tandem lessons forget {use.id})")
    return lines


def outcome_text(state: RunState, *, color: bool = False) -> str:
    ended = outcome(state)
    lines = [f"── Run {state.id}: {state.status} ──", *([ended.line()] if ended is not None else [])]
    lines += [step_line(s) for s in (*state.history, *state.plan)]
    if state.pending is None and "after_plan" not in state.anchors:  # no plan review showed them
        lines += lesson_lines(state.lessons_applied, color=color)
    if state.output:
        lines.append(written(state.output, color=color))
    if state.error:
        lines.append(f"Error: {state.error}")
    return plain("\n".join(lines))


def show_text(
    state: RunState,
    undelivered: Sequence[Delivery],
    events: Sequence[AuditEvent],
    safety: SafetyPolicy | None = None,
    *,
    color: bool = False,
) -> str:
    """``tandem show RUN``: the outcome, what is pending, what was not delivered, and the history in local time."""
    lines = [outcome_text(state, color=color)]
    if state.pending is not None:
        lines += ["", review_text(state, state.pending, safety, color=color, full=True)]
    for d in undelivered:
        what = f"{d.message.kind} {d.message.review_id or ''}".strip()
        lines.append(f"  ⚠ {what} not delivered: {d.error} ({plural(d.attempts, 'try', 'tries')}, {d.status})")
    if events:
        first = datetime.fromtimestamp(events[0].at).astimezone()
        zone = f"{first:%Z} (UTC{first:%z})" if first.tzname() else f"UTC{first:%z}"
        lines += ["", f"History (local time, {zone}):"]
    lines += [
        f"  {local_datetime(e.at)}  {person(e.actor):<10} {e.kind:<16} "
        + json.dumps(e.payload, ensure_ascii=False)[:160]
        for e in events
    ]
    return "\n".join(lines)
