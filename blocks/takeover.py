"""Human takeover: a person steers with thread replies, one proposed step at a time."""

from __future__ import annotations

from agent.messages import takeover_example
from agent.models import Review, RunState
from blocks import ids
from blocks.limits import MAX_SECTION_TEXT
from blocks.run_card import step_line
from blocks.step_approval import missing_step, step_body
from blocks.text import (
    Blocks,
    actions,
    as_text,
    button,
    cancel_button,
    clip,
    code_block,
    context,
    details_button,
    escape,
    pack,
    section,
    step_of,
)

STEER_STEP = "Approve to run it. A new instruction in the thread replaces it; say *finish* or *hand back* instead."
DONE_BUDGET = 4000
LAST_OUTPUT = 1500


def how_to_steer(state: RunState) -> str:
    example = takeover_example(state)
    e_g = f", e.g. _{escape(example)}_" if example else ""
    return (
        "*How to steer*\n"
        f"• Reply in this thread with one instruction at a time{e_g}. "
        "Tandem proposes one step and asks before it runs.\n"
        "• Say *finish* to wrap up with a summary of what was done.\n"
        "• Say *hand back* to let Tandem carry on with the plan."
    )


def takeover(state: RunState, review: Review) -> Blocks:
    """Why Tandem stopped, what it has done, and how to instruct, finish or hand back."""
    reason = state.takeover_reason or review.note
    headline = "🧑‍💻 *Human takeover* — Tandem stopped"
    headline += f": {clip(' '.join(reason.split()), 1000).text}" if reason else "."
    if review.note and review.note != reason:  # why the last instruction proposed nothing
        headline += f"\n\n💬 {clip(' '.join(review.note.split()), 1000).text}"
    ran = [s for s in (*state.history, *state.plan) if s.status != "pending"]
    buttons = [cancel_button(review.id)]
    if ran:
        per_line = max(60, min(280, DONE_BUDGET // len(ran)))
        lines = ["*Done so far*", *(step_line(s, per_line) for s in ran)]
        done = [section(chunk) for chunk in pack(lines, limit=MAX_SECTION_TEXT)]
        last = max((s for s in ran if s.status in ("done", "failed")), key=lambda s: s.number, default=None)
        if last is not None:  # what the step a person just approved returned, before they say what is next
            failed = last.status == "failed"
            body = code_block(as_text(last.error if failed else last.result), LAST_OUTPUT, tail=failed)
            verb = "failed" if failed else "returned"
            done += [section(f"*Step {last.number} (`{escape(last.tool)}`) {verb}:*\n{body.text}")]
            if body.truncated:
                buttons.insert(0, details_button(review.id))
    else:
        done = [section("*Done so far:* nothing has run yet.")]
    return [section(headline), *done, section(how_to_steer(state)), actions(*buttons)]


def takeover_step(state: RunState, review: Review) -> Blocks:
    """A step proposed from a person's instruction: Approve / Request changes / Cancel run."""
    step = step_of(state, review)
    if step is None:
        return missing_step(review)
    blocks, truncated = step_body(step, f"🧑‍💻 *Human takeover — proposed step {step.number}*")
    if review.note:
        blocks.append(context(clip(review.note, 1000).text))
    blocks.append(context(STEER_STEP))
    buttons = [
        button("Approve", ids.APPROVE, review.id, style="primary"),
        button("Request changes", ids.REJECT, review.id),
    ]
    if truncated:
        buttons.append(details_button(review.id))
    blocks.append(actions(*buttons, cancel_button(review.id)))
    return blocks
