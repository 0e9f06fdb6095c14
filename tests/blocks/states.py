"""Run states for block tests, built straight from agent.models."""

from __future__ import annotations

from typing import Any, get_args

from agent.models import Anchor, Handoff, Phase, Review, Risk, RunState, Step, StepStatus
from blocks.limits import check_message, check_view, validate_view_with_sdk, validate_with_sdk
from blocks.text import Blocks

T0 = 1_700_000_000.0  # 2023-11-14 22:13:20 UTC
ANCHORS: tuple[Anchor, ...] = get_args(Anchor)
RISKS = (Risk.READ, Risk.WRITE, Risk.EXEC, Risk.DEPLOY)


def step(number: int = 1, **fields: Any) -> Step:
    defaults: dict[str, Any] = {
        "tool": "restart_service",
        "params": {"service": "payments", "region": "eu-west-1"},
        "risk": Risk.EXEC,
        "reason": "Pods are crash-looping after the config push.",
    }
    return Step(number=number, **(defaults | fields))


def state(phase: Phase = "awaiting_review", review: Review | None = None, **fields: Any) -> RunState:
    plan = fields.pop("plan", [step(1, tool="check_health", risk=Risk.READ, status="done"), step(2)])
    defaults: dict[str, Any] = {
        "id": "run-1",
        "task": "Restart payments in eu-west-1",
        "requester": "U1",
        "created_at": T0,
        "updated_at": T0,
    }
    return RunState(phase=phase, plan=plan, pending=review, **(defaults | fields))


def review(anchor: Anchor = "after_plan", step_number: int | None = None, **fields: Any) -> Review:
    if step_number is None and anchor not in ("after_plan", "before_result", "takeover"):
        step_number = 2
    if anchor == "handoff" and "handoff" not in fields:
        fields["handoff"] = Handoff(
            prompt="Which region should payments move to? <!channel> & co",
            input_type="choice",
            options=["eu-west-1", "us-east-1", "other"],
            reason="ambiguous intent",
            context={"current": "us-east-1"},
        )
    return Review(id="rv1", anchor=anchor, step=step_number, created_at=T0, **fields)


def reviewing(anchor: Anchor, **fields: Any) -> tuple[RunState, Review]:
    """A state waiting on ``anchor``, with a plausible step status and output for it."""
    rv = review(anchor)
    statuses: dict[Anchor, StepStatus] = {
        "after_risky_step": "done",
        "step_failed": "failed",
        "recovery": "running",
        "handoff": "waiting",
    }
    status = statuses.get(anchor, "pending")
    second = step(2, status=status, result={"restarted": 3}, error="timeout after 30s" if status == "failed" else None)
    plan = fields.pop("plan", [step(1, tool="check_health", risk=Risk.READ, status="done"), second])
    extra: dict[str, Any] = {"output": "*Payments* restarted; error rate back to 0.1%."} | fields
    if anchor in ("takeover", "takeover_step"):
        extra |= {"takeover": True, "takeover_reason": "Three retries failed."}
    return state("awaiting_review", rv, plan=plan, **extra), rv


def long_plan(n: int = 10, chars: int = 2000) -> list[Step]:
    return [
        step(
            i,
            tool=f"tool_number_{i}",
            params={"script": "x" * chars, "target": f"host-{i}", "notes": "y " * (chars // 2)},
            risk=RISKS[i % 4],
            reason="because " * (chars // 8),
            status="failed" if i == 3 else "done" if i < 3 else "pending",
            error="E" * chars if i == 3 else None,
        )
        for i in range(1, n + 1)
    ]


def assert_valid_message(blocks: Blocks, text: str | None = None) -> None:
    validate_with_sdk(blocks)
    check_message(blocks, text)


def assert_valid_view(view: dict[str, Any]) -> None:
    validate_view_with_sdk(view)
    check_view(view)


def action_elements(blocks: Blocks) -> list[dict[str, Any]]:
    return [el for b in blocks if b["type"] == "actions" for el in b["elements"]]


def action_ids(blocks: Blocks) -> list[str]:
    return [el["action_id"] for el in action_elements(blocks)]


def all_text(blocks: Blocks) -> str:
    """Every mrkdwn/plain text in the blocks, joined (for substring checks)."""
    out: list[str] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") in ("mrkdwn", "plain_text", "markdown", "raw_text"):
                out.append(node["text"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(blocks)
    return "\n".join(out)
