"""The reader-quality benchmark, on a slice: every figure is printed and every labeled line is usable.

Behaviour only; the figures are ``python -m bench.quality``'s business.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.offline import OfflineModel
from bench.context import ANCHORS as CONTEXT_ANCHORS
from bench.context import HOLDOUT, REPLIES, load_replies, run_context
from bench.context import context as context_of
from bench.quality import ANCHORS, INTENTS, context, load_items, load_plans, run
from bench.refines import load_cases as load_refines
from bench.refines import problems, run_refines
from bench.replans import load_cases, run_replans
from tests.fakes.openai_server import serve_openai


async def test_quality_bench_offline_slice_prints_every_figure() -> None:
    lines = await run(limit=12, model_name="offline")
    assert lines[0] == "reader: offline, 12 replies"
    labels = [line.split("  ")[0].strip() for line in lines]
    for label in (
        "right overall",
        "approvals misread",
        "corrections as approval",
        "asked first (clear)",
        "model calls per reply",
        "seconds per call",
    ):
        assert label in labels, f"{label!r} missing from the report"


def test_quality_set_covers_every_anchor_intent_and_language() -> None:
    items = load_items()
    plans = load_plans()
    assert len(items) >= 200
    assert {i.anchor for i in items} == set(ANCHORS)
    assert {i.intent for i in items} == set(INTENTS)
    assert {i.lang for i in items} == {"en", "zh", "mix"}
    for item in items:
        ctx = context(item, plans)
        numbers = [s.number for s in ctx.steps]
        assert item.target is None or item.target in numbers, f"#{item.id} targets a step the plan lacks"
        assert ctx.step is None or ctx.step in numbers


async def test_replan_bench_offline_prints_every_figure_and_names_what_was_not_kept() -> None:
    cases = load_cases()
    assert len(cases) >= 10 and all(c.feedback and c.want for c in cases)
    # a case whose wanted plan is wrong on purpose must show up as not kept
    wrong = cases[0].__class__(id=99, task=cases[0].task, feedback=cases[0].feedback, want=[("list_services", {})])

    lines = await run_replans(OfflineModel(), [cases[0], wrong])

    assert lines[0] == "replans: offline, 2 multi-part tasks, 4 plans"
    assert lines[1].startswith("task kept after replans") and "1/2" in lines[1]
    assert any(line.startswith("model calls per plan") for line in lines)
    assert lines[-1].startswith("  #99")


async def test_refine_bench_offline_prints_every_case_and_fails_a_case_that_cannot_pass() -> None:
    cases = load_refines()
    assert len(cases) >= 20 and {c.lang for c in cases} == {"en", "zh"}
    assert {c.shape for c in cases} >= {"table", "bullets"} and any(c.less for c in cases)
    assert all(c.facts for c in cases)
    # an error nobody ran into cannot be in the reworked text: that case must fail, and say why
    impossible = cases[0].__class__(**{**cases[0].__dict__, "id": 99, "errors": ["disk full on node-7"]})

    lines = await run_refines(OfflineModel(), [cases[0], impossible])

    assert lines[0] == "refines: offline, 2 results reworked"
    assert lines[1].startswith("facts and shape kept") and "1/2" in lines[1]
    assert any(line.startswith("model calls per case") for line in lines)
    assert lines[-1].startswith("  FAIL #99") and "dropped: disk full on node-7" in lines[-1]


def test_refine_check_allows_less_only_when_the_answer_says_what_was_left_out() -> None:
    case = next(c for c in load_refines() if c.less and c.shape is None)
    short = "payments: restart failed."

    assert problems(case, short) and "asked for less" in problems(case, short)[0]
    assert problems(case, short + " Left out: the metrics and the log lines.") == []
    table = next(c for c in load_refines() if c.shape == "table")
    everything = " ".join(table.facts)
    assert problems(table, everything) == ["no table"]
    assert problems(table, f"| fact |\n| --- |\n| {everything} |") == []


async def test_context_bench_offline_slice_prints_right_asked_and_wrong() -> None:
    lines = await run_context(limit=10, model_name="offline")

    assert lines[0] == "replies in context: offline, context_replies.jsonl, 10 replies"
    labels = [line.split("  ")[0].strip() for line in lines]
    for label in ("right", "asked first", "wrong", "corrections/cancels as approval", "questions acted on as a change"):
        assert label in labels, f"{label!r} missing from the report"


@pytest.mark.parametrize("path", [REPLIES, HOLDOUT])
def test_context_sets_cover_each_anchor_question_and_both_languages(path: Path) -> None:
    replies = load_replies(path)
    assert len(replies) >= 70
    assert {r.anchor for r in replies} == set(CONTEXT_ANCHORS)
    assert {r.intent for r in replies} >= {"approve", "cancel", "replan", "retry_step", "refine_output", "question"}
    assert {r.lang for r in replies} == {"en", "zh"}
    gated = {r.plan[r.step - 1]["tool"] for r in replies if r.anchor == "before_risky_step" and r.step}
    assert gated >= {"restart_service", "deploy_service", "scale_service", "rollback_service", "drop_cache"}
    for reply in replies:
        numbers = [s.number for s in context_of(reply).steps]
        assert reply.target is None or reply.target in numbers, f"#{reply.id} targets a step the plan lacks"


async def test_context_bench_through_litellm_keeps_the_offline_figures_against_impossible_readings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A model (a local OpenAI-compatible fake, through litellm) that names a step no plan has: every
    reading it gives is impossible, so the offline readings stand and the figures do not move."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-dummy")
    monkeypatch.setenv("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    offline = await run_context(limit=16, model_name="offline", holdout=True)
    async with serve_openai() as server:
        server.reply(*[json.dumps({"intent": "approve", "target_step": 99, "reason": "r"})] * 16)

        lines = await run_context(limit=16, model_name="openai/test-model", api_base=server.base_url, holdout=True)

    assert lines[0] == "replies in context: openai/test-model, context_holdout.jsonl, 16 replies"
    assert len(server.requests) > 0 and server.unscripted == 0
    figures = ("right", "asked first", "wrong", "corrections/cancels as approval")
    assert [line for line in lines if line.startswith(figures)] == [
        line for line in offline if line.startswith(figures)
    ]
