"""Feishu review cards: evidence with chips, the rest in a collapsed panel, errors in full, within the size limit."""

from __future__ import annotations

import json

from agent.models import Review, Risk, RunState, Step
from agent.policy import SafetyPolicy
from agent.review_view import review_view
from feishu.cards import review_card
from feishu.elements import CARD_LIMIT, size, walk
from workspace.feishu_fake import card_text

LOGS = "\n".join(f"03:{i:02d}:00 ERROR payments: connection pool exhausted (#{i})" for i in range(20))


def run_at(anchor: str, plan: list[Step], evidence: list[int], step: int | None) -> tuple[RunState, Review]:
    review = Review(id="rv1", anchor=anchor, step=step, created_at=1.0, evidence=evidence)  # type: ignore[arg-type]
    state = RunState(id="run-1", task="restart payments", requester="ou_alice", created_at=1.0, updated_at=1.0)
    state.plan, state.pending, state.phase = plan, review, "awaiting_review"
    return state, review


def card_of(state: RunState, review: Review) -> dict[str, object]:
    return review_card(review_view(state, review, SafetyPolicy()))


def read(result: str, number: int = 1, **params: object) -> Step:
    return Step(number=number, tool="read_logs", params={"service": "payments", **params}, status="done", result=result)


def restart(number: int = 2) -> Step:
    return Step(number=number, tool="restart_service", params={"service": "payments"}, risk=Risk.EXEC)


def test_feishu_gate_card_shows_first_lines_chips_and_the_rest_in_a_panel() -> None:
    card = card_of(*run_at("before_risky_step", [read(LOGS, level="error"), restart()], [1], 2))
    text = card_text(card)
    assert "`service=payments` `level=error`" in text and '"service"' not in text
    panels = [e for e in walk(card["body"]["elements"]) if e.get("tag") == "collapsible_panel"]  # type: ignore[index]
    assert len(panels) == 1 and panels[0]["header"]["title"]["content"] == "… 14 more lines · Show details"
    assert "(#19)" in card_text({"body": {"elements": panels}}) and "(#5)" in text


def test_feishu_plan_card_params_are_chips_not_json() -> None:
    state, review = run_at("after_plan", [read(""), restart()], [], None)
    text = card_text(card_of(state, review))
    assert "`service=payments`" in text and "{" not in text


def test_feishu_failed_step_card_error_in_full() -> None:
    error = "\n".join(f"Traceback frame {i}" for i in range(30))
    failed = Step(number=1, tool="restart_service", risk=Risk.EXEC, status="failed", error=error)
    text = card_text(card_of(*run_at("step_failed", [failed], [1], 1)))
    assert "Traceback frame 0" in text and "Traceback frame 29" in text


def test_feishu_gate_card_huge_output_and_params_fits_the_card_limit() -> None:
    plan = [read("x" * 40_000 + "\n" + "y\n" * 5000, query="q" * 30_000), restart()]
    card = card_of(*run_at("before_risky_step", plan, [1], 2))
    assert size(card) <= CARD_LIMIT
    assert len(json.dumps(card, ensure_ascii=False).encode()) <= 30 * 1024
    assert "Show details" in card_text(card)
