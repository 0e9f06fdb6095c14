"""Wording people read, in one place."""

from __future__ import annotations

import json
from typing import assert_never

from agent.models import (
    AlwaysOffer,
    Anchor,
    PlannedStep,
    ReviewRecord,
    Rule,
    RunState,
    Step,
    mention,
    moment,
)
from agent.models.steps import TimeoutOutcome
from agent.plan_gate import PlanGate

_VERBS = {
    "approve": "approved",
    "cancel": "cancelled",
    "correct": "answered with changes",
    "instruct": "answered",
    "finish": "finished",
    "hand_back": "handed back",
}

ANCHOR_TITLES = {
    "after_plan": "Plan review",
    "before_risky_step": "Approval needed before a risky step",
    "after_risky_step": "Review of a risky step's outcome",
    "before_result": "Result review",
    "step_failed": "A step failed",
    "recovery": "Interrupted step",
    "takeover": "Human takeover",
    "takeover_step": "Proposed step (takeover)",
}


DECISION_SUBJECTS: dict[Anchor, str] = {  # what a decision line is about, e.g. "Step 2 approved by …"
    "handoff": "Question from step {n}",
    "after_plan": "Plan",
    "before_risky_step": "Step {n}",
    "after_risky_step": "Outcome of step {n}",
    "before_result": "Result",
    "step_failed": "Failed step {n}",
    "recovery": "Re-run of step {n}",
    "takeover": "Takeover",
    "takeover_step": "Proposed step {n}",
}


def plural(count: int, noun: str, many: str | None = None) -> str:
    """``1 step``, ``2 steps``, ``0 steps``; ``many`` for irregular nouns (``plural(n, "reply", "replies")``)."""
    return f"{count} {noun if count == 1 else many or noun + 's'}"


def decided_verb(answer: dict[str, object] | None) -> str:
    if (answer or {}).get("declined") is True:
        return "declined"
    return _VERBS.get(str((answer or {}).get("kind")), "answered")


def stale_decision(record: ReviewRecord, state: RunState) -> str:
    if record.status == "answered":
        return (
            f"Already {decided_verb(record.answer)} by {mention(record.answered_by or '?')} at "
            f"{moment(record.answered_at) if record.answered_at else '?'}; "
            "your click changed nothing."
        )
    if state.finished:
        return f"Run {state.id} is already {state.status}; this request is closed and your click changed nothing."
    return "This request is no longer open (the run has moved on); your click changed nothing."


def timeout_note(outcome: TimeoutOutcome) -> str:
    """What became of a step that ran out of time, for its failed-step review."""
    match outcome:
        case "cancelled":
            return "Tandem stopped it; it is not running any more."
        case "abandoned":
            return (
                "It is still running in the background and may yet take effect: check before retrying. "
                "Tandem will not start this step again while that call runs."
            )
        case _:
            assert_never(outcome)


def still_running(tool: str, since: float) -> str:
    """Why a retried step was not started: its earlier call is still running."""
    return f"Not started again: the call of {tool} that timed out at {moment(since)} is still running."


OFFER_SHOWN = 5  # approvals an offer names (newest first); the rest are counted


def offer_text(offer: AlwaysOffer) -> str:
    """The history a gate's "always allow" offer shows: who approved this call shape unchanged, and when."""
    n = len(offer.approvals)
    times = "once" if n == 1 else f"{n} times"
    people = {d.by for d in offer.approvals}
    shown = offer.approvals[:OFFER_SHOWN]
    more = f" and {n - len(shown)} earlier" if n > len(shown) else ""
    when = ", ".join(moment(d.at) for d in shown) + more
    what = scoped(offer.tool, offer.scope) if offer.tool else "it"
    tail = f"Approving it with always allow stops asking for {what} in this channel."
    if len(people) == 1:
        head = f"{mention(offer.approvals[0].by)} approved `{offer.shape}` unchanged {times} in a row here"
    else:
        who = ", ".join(f"{mention(d.by)} {moment(d.at)}" for d in shown) + more
        return f"`{offer.shape}` was approved unchanged {times} in a row here: {who}. {tail}"
    return f"{head}: {when}. {tail}"


# --- always-allow rules and their scope ------------------------------------------------------------


def scoped(tool: str, label: str) -> str:
    """```restart_service` for payments``; just the tool when there is nothing to name."""
    return f"`{tool}` for {label}" if label else f"`{tool}`"


def rule_what(rule: Rule) -> str:
    """What a rule covers, saying so when it is tool-wide."""
    return f"`{rule.tool}` for every target (tool-wide)" if rule.tool_wide else scoped(rule.tool, rule.label)


def always_label(tool: str, label: str) -> str:
    """The "always allow" choice on a gate: ``Always allow restart_service for payments here``."""
    return f"Always allow {tool} for {label} here" if label else f"Always allow {tool} here"


def rule_set(tool: str, label: str, by: str) -> str:
    """The line a new rule posts in the run's thread."""
    return f"From now on {scoped(tool, label)} runs without asking in this channel (set by {mention(by)})."


def rule_suspended(tool: str, label: str, by: str, verb: str, number: int) -> str:
    """The line a suspended rule posts: which rule (its scope), who, why, and what happens now."""
    what = scoped(tool, label) if label else f"`{tool}` (every target)"
    return (
        f"The always-allow rule for {what} in this channel is suspended: {mention(by)} {verb} "
        f"step {number}, which it let run. {scoped(tool, label)} asks again from now on; the rule is kept, "
        "marked suspended with who, when and why, and approving with always allow makes a new one."
    )


def rule_kept(tool: str, label: str, by: str, verb: str, number: int) -> str:
    """A policy-file rule whose step was corrected or rejected: it is not Tandem's to suspend."""
    return (
        f"{mention(by)} {verb} step {number}, which the policy file's always-allow rule for {scoped(tool, label)} "
        "let run. That rule stays in force until the policy file's [rules] always_allow changes."
    )


RULE_IN_POLICY = "That rule is set in the policy file ([rules] always_allow); change it there. Nothing changed."


def rule_widened(rule: Rule, by: str) -> str:
    return f"From now on `{rule.tool}` runs without asking in this channel for every target (widened by {mention(by)})."


def asked_line(by: str, question: str, answer: str) -> str:
    """A question asked at a review and its answer, as the run's thread shows it."""
    flat = " ".join(question.split())
    quoted = flat if len(flat) <= 300 else flat[:299] + "…"
    return f"❓ {mention(by)} asked: “{quoted}”\n{answer}"


# --- a reply in the thread of a finished run (see agent.follow_up) ---


def nothing_pending(state: RunState) -> str:
    status = state.status.replace("_", " ")
    return (
        f"Nothing in run `{state.id}` is waiting for a decision right now (it is {status}); nothing changed. "
        "Say it again when Tandem asks, or cancel the run."
    )


FOLLOW_UP_NOTED = "Run `{run}` is done, so that changes nothing. To change the result, say what should be different."
FOLLOW_UP_NOTHING_TO_STOP = "Run `{run}` is already done; there is nothing to stop."
FOLLOW_UP_UNSURE = (
    "Not sure what you meant (best guess {intent}, {confidence:.0%} sure), so run `{run}` stays done. "
    "Say it in other words, e.g. “show it as a table” or “check auth instead”."
)
FOLLOW_UP_NOT_A_CORRECTION = (
    "A request for changes never approves, so run `{run}` stays done. Say what should be different."
)


def takeover_example(state: RunState) -> str | None:
    """An instruction the run's own tools can do (its latest step, as words), for the takeover card's example."""
    steps: list[Step | PlannedStep] = [*(state.rejected_plans[-1] if state.rejected_plans else [])]
    steps += [*state.history, *state.plan]
    if not steps:
        return None
    step = steps[-1]
    value = next((str(v) for v in step.params.values() if isinstance(v, str) and v and len(v) <= 40), "")
    return f"{step.tool.replace('_', ' ')} {value}".strip()


def _anyone_of(people: tuple[str, ...]) -> str:
    names = [mention(p) for p in people[:5]]
    if len(people) > 5:
        names.append(f"{len(people) - 5} more")
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def plan_gate_lines(gates: tuple[PlanGate, ...]) -> list[str]:
    """What approving a plan does to its risky steps: which it approves too, and which still ask whom."""
    lines = []
    kept = [g for g in gates if g.apart]  # the policy keeps every gate on its own
    if kept:
        numbers = [str(g.step.number) for g in kept]
        head = (
            f"Step {numbers[0]} asks" if len(numbers) == 1 else f"Steps {', '.join(numbers[:-1])} and {numbers[-1]} ask"
        )
        lines.append(f"✋ {head} for approval again right before {'it runs' if len(kept) == 1 else 'they run'}.")
    for gate in gates:
        step, who = gate.step, _anyone_of(gate.approvers) if gate.approvers else "an approver"
        what = f"step {step.number} `{step.tool}` `{gate.params}`"  # exact: never read as markup
        if gate.everyone:
            lines.append(
                f"✋ Approving this plan also approves {what} ({step.risk.label}): it runs without asking again "
                "unless its parameters change."
            )
        elif gate.merges:
            lines.append(
                f"✋ Approved by {who} (who may approve {step.risk.label} steps), this plan also approves {what}; "
                f"approved by anyone else, step {step.number} still asks {who} right before it runs."
            )
        elif not gate.apart:
            lines.append(f"✋ Step {step.number} `{step.tool}` still asks {who} right before it runs ({gate.held}).")
    return lines


def approved_with_plan(steps: list[Step], by: str) -> str:
    """The thread's line when approving a plan approved risky steps too."""
    what = ", ".join(f"step {s.number} (`{s.tool}`)" for s in steps)
    it, runs, its = ("it", "runs", "its") if len(steps) == 1 else ("they", "run", "their")
    return (
        f"{mention(by)} approved {what} with the plan: {it} {runs} without asking again unless {its} parameters change."
    )


def risky_outcome(step: Step, limit: int = 300) -> str:
    """What a risky step that ran did, for the result review (where no review of its own showed it)."""
    said = step.error if step.status == "failed" else step.result
    text = " ".join((said if isinstance(said, str) else json.dumps(said, ensure_ascii=False, default=str)).split())
    text = text if len(text) <= limit else text[: limit - 1] + "…"
    verb = "failed" if step.status == "failed" else "ran"
    return f"Step {step.number} {step.tool} ({step.risk.label}) {verb}: {text if said is not None else 'no output'}"


def card_not_posted(error: str) -> str:
    """Why a run whose card could never be posted was stopped (its cancel reason, in its trail and ``tandem show``)."""
    return f"its card could not be posted ({error[:200] or 'unknown error'}), so nobody could follow or approve it"
