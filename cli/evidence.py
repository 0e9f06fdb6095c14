"""A review's evidence in the terminal: what the steps since the last review returned.

At the review, each step's first lines (an error in full); ``tandem show RUN`` prints every line.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.evidence import StepEvidence
from agent.messages import plural


def evidence_lines(evidence: Sequence[StepEvidence], run_id: str, *, full: bool = False) -> list[str]:
    if not evidence:
        return []
    lines = [f"Since the last review ({plural(len(evidence), 'step')} ran):"]
    for item in evidence:
        mark = "✗" if item.status == "failed" else "✓"
        params = "  ".join(c.text for c in item.params)
        lines.append(f"  {mark} {item.number}. {item.tool}  {params}".rstrip())
        shown = item.text.rstrip("\n").splitlines() if full else list(item.first_lines)
        lines += [f"      {line}" for line in shown] or ["      (no output)"]
        if not full and item.more_lines > 0:
            lines.append(f"      … {plural(item.more_lines, 'more line')} · tandem show {run_id} prints them all")
    return lines
