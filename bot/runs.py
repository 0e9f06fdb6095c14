"""Run rows for lists (``/tandem list``, the Home tab): what each run waits on, and for whom."""

from __future__ import annotations

from agent.models import RunState
from blocks.help import RunRow
from blocks.text import waiting_for


def run_row(state: RunState) -> RunRow:
    return RunRow(
        id=state.id,
        task=state.task,
        status=state.status,
        requester=state.requester,
        updated_at=state.updated_at,
        waiting_on=waiting_for(state.pending) if state.pending else None,
    )
