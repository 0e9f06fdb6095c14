"""Evidence on Slack reviews: first lines, errors in full, chips, cut to fit with Show details, never refused."""

from __future__ import annotations

import json

import pytest

from agent.models import Anchor, Risk, RunState
from blocks import ids, review_blocks
from blocks.evidence import evidence_modal
from blocks.limits import check_view, validate_view_with_sdk
from tests.blocks.states import action_elements, all_text, assert_valid_message, review, state, step

LOGS = "\n".join(f"03:0{i % 10}:00 ERROR payments: connection pool exhausted (#{i})" for i in range(20))
HUGE_LINE = "q" * 60_000
HUGE_LOG = "\n".join(f"line {i} " + "w" * 80 for i in range(5000))


def gate(logs: str = LOGS, **params: object) -> RunState:
    """A run at the restart gate, after check_service and read_logs ran."""
    plan = [
        step(1, tool="check_service", risk=Risk.READ, params={"service": "payments"}, status="done", result="degraded"),
        step(2, tool="read_logs", risk=Risk.READ, params={"service": "payments", **params}, status="done", result=logs),
        step(3, tool="restart_service", params={"service": "payments"}),
    ]
    return state(plan=plan, review=review("before_risky_step", 3, evidence=[1, 2]))


def blocks_of(run: RunState) -> list[dict[str, object]]:
    assert run.pending is not None
    return review_blocks(run, run.pending)


def details(blocks: list[dict[str, object]]) -> list[dict[str, object]]:
    return [el for el in action_elements(blocks) if el["action_id"] == ids.EVIDENCE]


def test_gate_evidence_shows_first_log_lines_with_chips() -> None:
    blocks = blocks_of(gate(level="error"))
    text = all_text(blocks)
    assert_valid_message(blocks)
    assert "connection pool exhausted (#0)" in text and "connection pool exhausted (#5)" in text
    assert "(#6)" not in text
    assert "… 14 more lines · Show details" in text
    assert "*Step 2* `read_logs` `service=payments` `level=error`" in text
    assert '"service"' not in text


def test_gate_evidence_show_details_names_the_run_and_its_steps() -> None:
    (button,) = details(blocks_of(gate()))
    assert button["text"]["text"] == "Show details"  # type: ignore[index]
    assert json.loads(str(button["value"])) == {"run": "run-1", "steps": [1, 2, 3]}


def test_gate_evidence_short_outputs_offer_no_details() -> None:
    assert details(blocks_of(gate(logs="no errors"))) == []


@pytest.mark.parametrize(
    ("logs", "params"),
    [(HUGE_LINE, {}), (HUGE_LOG, {}), (LOGS, {"query": "p" * 50_000}), (HUGE_LOG, {"query": "x\n" * 20_000})],
    ids=["one-huge-line", "5000-lines", "huge-param", "huge-output-and-param"],
)
def test_gate_evidence_huge_output_or_params_is_cut_not_refused(logs: str, params: dict[str, object]) -> None:
    blocks = blocks_of(gate(logs, **params))
    assert_valid_message(blocks)
    assert "Show details" in all_text(blocks)
    assert len(details(blocks)) == 1


def test_step_failed_evidence_error_is_shown_in_full() -> None:
    error = "\n".join(f"Traceback frame {i}: payments.pool.acquire" for i in range(30))
    plan = [step(1, status="failed", error=error)]
    blocks = review_blocks(state(plan=plan), review("step_failed", 1, evidence=[1]))
    text = all_text(blocks)
    assert_valid_message(blocks)
    assert "Traceback frame 0:" in text and "Traceback frame 29:" in text
    assert "more line" not in text


@pytest.mark.parametrize(
    "anchor", ["before_risky_step", "recovery", "after_risky_step", "step_failed", "before_result"]
)
def test_every_evidence_review_with_many_huge_steps_stays_within_limits(anchor: Anchor) -> None:
    plan = [
        step(i, tool=f"tool_{i}", risk=Risk.READ, status="done", result=HUGE_LOG, params={"blob": "b" * 5000})
        for i in range(1, 16)
    ]
    plan.append(step(16, status="failed" if anchor == "step_failed" else "done", error="E\n" * 3000, result="ok"))
    evidence = list(range(1, 17)) if anchor in ("after_risky_step", "step_failed") else list(range(1, 16))
    rv = review(anchor, None if anchor == "before_result" else 16, evidence=evidence)
    blocks = review_blocks(state(plan=plan, output="written " * 2000), rv)
    assert_valid_message(blocks)
    text = all_text(blocks)
    assert "earlier steps · Show details" in text
    assert "Show details" in [el["text"]["text"] for el in action_elements(blocks)]  # type: ignore[index]


def test_evidence_modal_has_exact_params_and_the_whole_output() -> None:
    run = gate(level="error")
    view = evidence_modal(run, [2, 3])
    check_view(view)
    validate_view_with_sdk(view)
    text = all_text(view["blocks"])
    assert "connection pool exhausted (#19)" in text
    assert '"level": "error"' in text
    assert "Step 3 · restart_service · exec · not run yet" in text
