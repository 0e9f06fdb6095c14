"""Who decided what, as one neutral line for every channel."""

from __future__ import annotations

from agent.decision_lines import MOVED_ON, closing_line, decision_lines, line_for, record_line
from agent.models import (
    Approve,
    AuditEvent,
    CancelRequested,
    Correct,
    Decided,
    ReviewClosed,
    ReviewDecided,
    ReviewRecord,
    TimedOut,
)

T0 = 1_000.0


def test_line_for_an_always_allow_rule_names_the_rule_not_a_person() -> None:
    line = line_for(Decided(at=T0, review_id="rv1", decision=Approve(), by="rule:ru1"), "before_risky_step", 2)
    assert (line.actor, line.verb) == (None, "Step 2 approved by an always-allow rule")


def test_line_for_a_deadline_says_the_deadline_passed() -> None:
    line = line_for(Decided(at=T0, review_id="rv1", decision=Approve(), by="tandem"), "after_plan")
    assert (line.actor, line.verb) == (None, "Plan approved (deadline passed)")


def test_closing_line_of_each_closing_row_says_what_closed_it() -> None:
    decided = Decided(at=T0, review_id="rv1", decision=Correct(intent="replan", feedback="use eu"), by="U1")
    cancel = CancelRequested(at=T0, nonce="n", by="U2", reason="wrong region")
    late = TimedOut(at=T0, review_id="rv1")
    lines = [
        closing_line(ReviewDecided(review_id="rv1", event=decided), "after_plan", None, T0 + 9),
        closing_line(ReviewDecided(review_id="rv1", event=cancel), "after_plan", None, T0 + 9),
        closing_line(ReviewDecided(review_id="rv1", event=late), "after_plan", None, T0 + 9),
        closing_line(ReviewClosed(review_id="rv1"), "after_plan", None, T0 + 9),
    ]
    assert [(x.actor, x.verb, x.detail, x.at) for x in lines] == [
        ("U1", "Changes requested", "use eu", T0),
        ("U2", "Cancelled", "wrong region", T0),
        (None, "Decided by the deadline: nobody answered in time", "", T0),
        (None, MOVED_ON, "", T0 + 9),
    ]


def test_record_line_without_an_answer_says_the_run_moved_on() -> None:
    record = ReviewRecord(id="rv1", run_id="r1", anchor="after_plan", status="closed", created_at=T0)
    assert record_line(record).verb == MOVED_ON


def test_decision_lines_rebuilt_from_the_audit_know_each_reviews_step() -> None:
    events = [
        AuditEvent(
            at=T0, actor="tandem", kind="ask_human", payload={"review": "rv2", "anchor": "before_risky_step", "step": 2}
        ),
        AuditEvent(
            at=T0 + 1, actor="U1", kind="decided", payload={"review_id": "rv2", "decision": {"kind": "approve"}}
        ),
        AuditEvent(at=T0 + 2, actor="U2", kind="cancel_requested", payload={"reason": "enough"}),
    ]
    assert [(x.actor, x.verb, x.outcome) for x in decision_lines(events)] == [
        ("U1", "Step 2 approved", "approved"),
        ("U2", "Cancelled", "cancelled"),
    ]
