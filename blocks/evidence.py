"""A review's evidence in Block Kit: what the steps since the last review returned, and *Show details*.

Each step gets a line (number, tool, parameters as ``key=value`` chips) and its first lines in a code
block; an error is shown in full. What does not fit Slack's limits is cut with "… N more lines ·
Show details", never refused: the button opens a modal built from the run's stored state.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from slack_sdk.models.blocks import ButtonElement

from agent.evidence import StepEvidence, details_text
from agent.messages import plural
from agent.models import RunState
from blocks import ids
from blocks.limits import MAX_BUTTON_VALUE
from blocks.modals import View_, details_modal
from blocks.text import Blocks, button, chips_inline, code_block, context, escape, section

EVIDENCE_BUDGET = 5000  # characters of output across a review's evidence (a message holds ~12,000)
ITEM_LIMIT = 900  # characters of one step's first lines
ERROR_LIMIT = 2900  # characters of one error (shown in full where it fits a section)
ITEM_FLOOR = 300
MAX_ITEMS = 6  # the newest steps shown; the earlier ones are behind Show details


def evidence_blocks(evidence: Sequence[StepEvidence]) -> tuple[Blocks, bool]:
    """The evidence as blocks, and whether anything was left out (then offer *Show details*)."""
    if not evidence:
        return [], False
    shown = list(evidence[-MAX_ITEMS:])
    limits = [ERROR_LIMIT if e.status == "failed" else ITEM_LIMIT for e in shown]
    if sum(limits) > EVIDENCE_BUDGET:
        limits = [max(ITEM_FLOOR, limit * EVIDENCE_BUDGET // sum(limits)) for limit in limits]
    blocks: Blocks = [context(f"*Since the last review* · {plural(len(evidence), 'step')} ran")]
    cut = len(shown) < len(evidence)
    if cut:
        earlier = len(evidence) - len(shown)
        blocks.append(context(f"… {plural(earlier, 'earlier step')} · Show details"))
    for item, limit in zip(shown, limits, strict=True):
        item_blocks, item_cut = _item(item, limit)
        blocks += item_blocks
        cut = cut or item_cut
    return blocks, cut


def _item(item: StepEvidence, limit: int) -> tuple[Blocks, bool]:
    icon = "❌" if item.status == "failed" else "✅"
    params = chips_inline(item.params, 400)
    head = f"{icon} *Step {item.number}* `{escape(item.tool)}`" + (f" {params.text}" if params.text else "")
    lines = "\n".join(item.first_lines)
    body = code_block(lines, limit)
    shown_lines = body.text.count("\n") + 1 if body.truncated else len(item.first_lines)
    hidden = item.total_lines - shown_lines
    blocks = [section(f"{head}\n{body.text}" if item.total_lines else f"{head}\n_returned no output_")]
    if hidden > 0 or body.truncated:
        blocks.append(context(f"… {plural(max(hidden, 1), 'more line')} · Show details"))
    return blocks, hidden > 0 or body.truncated or params.truncated


def evidence_button(run_id: str, numbers: Sequence[int]) -> ButtonElement:
    """*Show details*: the full outputs (and exact parameters) of ``numbers``, from the stored run."""
    value = json.dumps({"run": run_id, "steps": list(numbers)}, separators=(",", ":"))
    while len(value) > MAX_BUTTON_VALUE:  # never: a run has at most a few dozen steps
        numbers = numbers[1:]
        value = json.dumps({"run": run_id, "steps": list(numbers)}, separators=(",", ":"))
    return button("Show details", ids.EVIDENCE, value)


def evidence_modal(state: RunState, numbers: Sequence[int]) -> View_:
    """The modal behind :func:`evidence_button`."""
    which = ", ".join(str(n) for n in numbers)
    heading = f"*Run* `{escape(state.id)}` · step{'s' if len(numbers) != 1 else ''} {which}"
    return details_modal("Step details", details_text(state, numbers), heading=heading)
