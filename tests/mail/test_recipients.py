"""Who a mail goes to: an ``email:`` handoff's question to its address alone; a reminder to the people the review
waits on whose address the policy knows (a policy group as its members) and the handoff's address; an
escalation to those and the requester."""

from __future__ import annotations

import cli.platforms  # noqa: F401 - registers the platforms whose ids a policy names
from agent.config import PolicyConfig
from agent.config_mail import MailRule
from agent.machine import asked
from agent.models import Handoff, Origin, Policy, RunState, Terminal
from agent.policy import SafetyPolicy
from mail.origin import MailTo
from mail.sender import recipients

ADDRESSES = {"U0ALICE": "alice@example.com", "U0BOB": "bob@example.com", "U0REQ": "req@example.com"}
CONFIG = PolicyConfig(groups={"S0ONCALL": ["U0ALICE", "U0BOB", "U0CAROL"]}, mail=MailRule(people=ADDRESSES))
SAFETY = SafetyPolicy(CONFIG)


def _asked(assignees: list[str], origin: Origin, requester: str = "U0REQ") -> RunState:
    question = Handoff(prompt="Roll back checkout?", input_type="confirm")
    state, _, _ = asked.start(
        "h1", requester, origin, question, 0.0, SAFETY, limits=Policy(), assignees=assignees, quorum=1,
        timeout=None, on_timeout=None,
    )  # fmt: skip
    return state


def test_question_of_an_email_handoff_goes_to_its_address_alone() -> None:
    state = _asked(["U0ALICE"], MailTo(address="oncall@example.com"))

    assert recipients(CONFIG, SAFETY, state, "asked") == ["oncall@example.com"]


def test_question_of_a_chat_handoff_is_not_mailed() -> None:
    assert recipients(CONFIG, SAFETY, _asked(["U0ALICE"], Terminal()), "asked") == []


def test_reminder_goes_to_the_members_of_a_policy_group_with_a_known_address() -> None:
    state = _asked(["S0ONCALL"], Terminal())

    assert recipients(CONFIG, SAFETY, state, "remind") == ["alice@example.com", "bob@example.com"]


def test_reminder_of_an_email_handoff_also_goes_to_its_address_first() -> None:
    state = _asked(["U0BOB"], MailTo(address="oncall@example.com"))

    assert recipients(CONFIG, SAFETY, state, "remind") == ["oncall@example.com", "bob@example.com"]


def test_escalation_also_goes_to_the_requester_and_nobody_twice() -> None:
    state = _asked(["U0BOB", "U0REQ"], Terminal())

    assert recipients(CONFIG, SAFETY, state, "escalate") == ["bob@example.com", "req@example.com"]


def test_nobody_with_a_known_address_gets_no_mail() -> None:
    assert recipients(CONFIG, SAFETY, _asked(["U0CAROL"], Terminal(), requester="token:ci"), "escalate") == []
