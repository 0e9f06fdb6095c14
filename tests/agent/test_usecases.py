"""The use cases every channel calls, on a real SQLite file: each refusal comes back as an outcome."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from agent.commands import NoSuchRun
from agent.config import PolicyConfig
from agent.models import (
    Approve,
    AuditEvent,
    Cancel,
    ClarifyAsked,
    Reading,
    Rule,
    RunState,
)
from agent.review_view import review_view
from agent.usecases import (
    AlreadyDecided,
    Answered,
    Applied,
    Asked,
    NeedsButton,
    NotApplied,
    Refused,
    RuleRevoked,
)
from bot.origin import SlackThread
from storage.facade import AsyncStore
from tests.agent.service_tools import ALICE, BOB, CAROL, OPS, RAN, usecases


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    RAN.clear()
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


WHERE = SlackThread(channel_id="C0OPS", thread_ts="1.0")


async def test_approve_by_an_outsider_is_refused_and_changes_nothing(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    outcome = await uc.approve(state.pending.id, CAROL)
    assert isinstance(outcome, Refused) and "Only" in outcome.refusal.describe()
    after, _ = await store.load(state.id)
    assert after.pending == state.pending and RAN == []


async def test_approve_twice_tells_the_second_who_decided_first(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    first = await uc.approve(state.pending.id, ALICE)
    second = await uc.approve(state.pending.id, ALICE)
    assert isinstance(first, Applied) and first.state.pending is not None
    assert isinstance(second, AlreadyDecided) and second.by == ALICE


async def test_unknown_review_is_not_applied(store: AsyncStore) -> None:
    outcome = await usecases(store).approve("no-such-review", ALICE)
    assert isinstance(outcome, NotApplied) and outcome.why == "unknown_review"


async def test_group_member_approves_an_exec_gate_through_the_channel_directory(store: AsyncStore) -> None:
    uc = usecases(store, PolicyConfig(approvers={"exec": [OPS]}))
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    state = (await uc.approve(state.pending.id, ALICE)).state  # type: ignore[union-attr]
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    assert isinstance(await uc.approve(state.pending.id, CAROL), Refused)
    done = await uc.approve(state.pending.id, BOB)
    assert isinstance(done, Applied) and RAN == ["peek api", "bounce api"]


async def test_typed_yes_at_an_exec_gate_needs_the_button(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    state = (await uc.approve(state.pending.id, ALICE)).state  # type: ignore[union-attr]
    assert state.pending is not None and state.pending.anchor == "before_risky_step"
    outcome = await uc.say(state.id, "yes go", ALICE)
    assert isinstance(outcome, NeedsButton) and outcome.review_id == state.pending.id
    assert RAN == ["peek api"]


async def test_unsure_reading_asks_and_applies_nothing(store: AsyncStore) -> None:
    unsure = Reading(intent="replan", reason="maybe", confidence=0.2)
    uc = usecases(store, reading=unsure)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    outcome = await uc.say(state.id, "hmm, not sure about this", ALICE)
    assert isinstance(outcome, Asked) and outcome.reading == unsure
    after, _ = await store.load(state.id)
    assert after.pending == state.pending and after.retries == 0


QUESTION = Reading(intent="question", target_step=2, reason="asks", confidence=0.9)


async def test_question_at_a_gate_is_answered_in_the_thread_and_changes_nothing(store: AsyncStore) -> None:
    uc = usecases(store, reading=QUESTION)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    state = (await uc.approve(state.pending.id, ALICE)).state  # type: ignore[union-attr]
    assert state.pending is not None and state.pending.anchor == "before_risky_step"

    outcome = await uc.say(state.id, "why bounce it?", ALICE)

    assert isinstance(outcome, Answered)
    assert outcome.answer.startswith("Step 2 `bounce` service=api: r. It has not run yet.")
    assert "Step 1 `peek` returned: api ok" in outcome.answer
    after, _ = await store.load(state.id)
    assert after.pending == state.pending and after.retries == 0 and after.feedback == []
    assert RAN == ["peek api"]
    posted = [d.message for d in await store.due_deliveries("slack", 10**10, 60) if d.message.kind == "notify"]
    assert len(posted) == 1 and "asked: “why bounce it?”" in posted[0].text and outcome.answer in posted[0].text
    assert [e.kind for e in await store.events(state.id)][-1] == "question_answered"


async def test_question_from_an_outsider_is_refused_and_nothing_is_posted(store: AsyncStore) -> None:
    uc = usecases(store, reading=QUESTION)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)

    outcome = await uc.say(state.id, "why bounce it?", CAROL)

    assert isinstance(outcome, Refused)
    posted = [d.message for d in await store.due_deliveries("slack", 10**10, 60) if d.message.kind == "notify"]
    assert posted == []


async def test_cancel_from_an_outsider_is_refused_and_the_requester_may(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert isinstance(await uc.cancel(state.id, CAROL), Refused)
    done = await uc.cancel(state.id, ALICE, "not now")
    assert isinstance(done, Applied) and done.state.status == "cancelled"


async def test_find_sees_only_the_runs_of_the_place_it_is_asked_from(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert await uc.find(state.id[:6], "C0OPS") == state.id
    assert await uc.find(f"`{state.id}`", "C0OPS") == state.id
    assert await uc.find(state.id[:6], "C0OTHER") == NoSuchRun(state.id[:6])
    assert await uc.find(state.id[:2], "C0OPS") == NoSuchRun(state.id[:2])  # too short in a chat
    assert await uc.find(state.id[:6], None) == state.id  # the terminal sees every run


async def test_waiting_for_lists_the_runs_a_person_may_decide(store: AsyncStore) -> None:
    uc = usecases(store, PolicyConfig(approvers={"exec": [OPS]}))
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert [s.id for s in await uc.waiting_for(ALICE)] == [state.id]  # the plan is the requester's
    assert state.pending is not None
    await uc.approve(state.pending.id, ALICE)
    assert [s.id for s in await uc.waiting_for(BOB, "C0OPS")] == [state.id]
    assert await uc.waiting_for(CAROL) == []


async def test_revoke_rule_by_a_stranger_is_refused_and_by_its_setter_revokes(store: AsyncStore) -> None:
    uc = usecases(store, PolicyConfig(approvers={"exec": [BOB]}))
    await store.add_rule(Rule(id="r1", channel="C0OPS", tool="bounce", created_by=BOB, created_at=1.0))
    refused = await uc.revoke_rule("r1", CAROL, "C0OPS")
    assert isinstance(refused, Refused) and refused.refusal.users == (BOB,)
    assert isinstance(await uc.revoke_rule("r1", BOB, "C0OTHER"), NotApplied)  # not a rule of that channel
    revoked = await uc.revoke_rule("r1", BOB, "C0OPS")
    assert isinstance(revoked, RuleRevoked) and await store.rules("C0OPS") == []


async def test_history_returns_the_run_and_its_events(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    again, events = await uc.history(state.id)
    assert again == state and [e.kind for e in events][:2] == ["started", "plan_proposed"]


async def test_review_view_offers_always_allow_only_where_the_policy_lets(store: AsyncStore) -> None:
    for config, offered in [
        (PolicyConfig(), True),
        (PolicyConfig(approvers={"exec": [BOB, CAROL]}, quorum={"exec": 2}), False),
    ]:
        uc = usecases(store, config)
        state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
        assert state.pending is not None
        gate = (await uc.decide(state.pending.id, Approve(), ALICE)).state  # type: ignore[union-attr]
        assert gate.pending is not None and gate.pending.anchor == "before_risky_step"
        view = review_view(gate, gate.pending, uc.runtime.safety)
        assert ("approve_always" in view.choices) is offered
        assert view.text_approves is False  # an exec gate is approved by its button only
        await uc.decide(gate.pending.id, Cancel(), ALICE)


async def test_review_view_names_who_the_gate_waits_on(store: AsyncStore) -> None:
    uc = usecases(store, PolicyConfig(approvers={"exec": [BOB, OPS]}))
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    assert review_view(state, state.pending, uc.runtime.safety).waiting_on == (ALICE, BOB, OPS)
    gate = (await uc.approve(state.pending.id, ALICE)).state  # type: ignore[union-attr]
    assert gate.pending is not None
    assert review_view(gate, gate.pending, uc.runtime.safety).waiting_on == (BOB, OPS)


async def test_request_changes_read_as_approval_asks_and_never_approves(store: AsyncStore) -> None:
    uc = usecases(store)  # the brain reads every reply as a sure "approve"
    state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
    assert state.pending is not None
    outcome = await uc.say(state.id, "looks fine but use the canary", ALICE, rejecting=True)
    assert isinstance(outcome, Asked) and outcome.reading.intent == "approve"
    after, _ = await store.load(state.id)
    assert after.pending == state.pending, "nothing was approved"
    rows = await store.due_deliveries("slack", 10**10, 60)
    asked = [d.message for d in rows if isinstance(d.message, ClarifyAsked)]
    assert asked and asked[-1].can_approve is False, "the question offers no Approve"
    # the same words as a plain thread reply are an approval
    assert isinstance(await uc.say(state.id, "looks fine", ALICE), Applied)


# --- a stop that loses a race to another process ---------------------------------------------


class RacedStore(AsyncStore):
    """A store whose first commit of a stop lets ``rival`` (another process's runtime on the same file)
    commit to the run first: the stop was read at a version that is gone by the time it writes."""

    rival: Callable[[], Awaitable[object]] | None = None

    async def commit(self, state: RunState, version: int, events: list[AuditEvent], **writes: Any) -> int:
        rival, self.rival = self.rival, None
        if rival is not None and any(e.kind == "cancel_requested" for e in events):
            await rival()
        return await super().commit(state, version, events, **writes)


async def test_cancel_that_loses_a_race_to_another_process_stops_the_run_as_it_is_now(tmp_path: Path) -> None:
    RAN.clear()
    mine = RacedStore(tmp_path / "t.db")
    async with mine, AsyncStore(tmp_path / "t.db") as theirs:
        uc, other = usecases(mine), usecases(theirs)
        state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
        assert state.pending is not None and state.pending.anchor == "after_plan"
        plan = state.pending.id
        mine.rival = lambda: other.approve(plan, ALICE)  # the other process approves the plan first
        outcome = await uc.cancel(state.id, ALICE, "not now")
        assert isinstance(outcome, Applied), outcome
        assert outcome.state.status == "cancelled"
        assert RAN == ["peek api"], "the approved plan went on to its gate in the other process, and stopped there"
        kinds = [e.kind for e in await mine.events(state.id)]
        assert kinds.count("cancel_requested") == 1 and "refused" not in kinds


async def test_cancel_after_another_process_ended_the_run_says_who_stopped_it(tmp_path: Path) -> None:
    config = PolicyConfig(approvers={"write": [BOB]})
    mine = RacedStore(tmp_path / "t.db")
    async with mine, AsyncStore(tmp_path / "t.db") as theirs:
        uc, other = usecases(mine, config), usecases(theirs, config)
        state = await uc.runtime.start("bounce api", ALICE, origin=WHERE)
        mine.rival = lambda: other.cancel(state.id, BOB, "stopped elsewhere")
        outcome = await uc.cancel(state.id, ALICE, "not now")
        assert isinstance(outcome, AlreadyDecided), outcome
        assert (outcome.by, outcome.verb) == (BOB, "cancelled")
        after, _ = await mine.load(state.id)
        assert after.status == "cancelled"
        assert [e.actor for e in await mine.events(state.id) if e.kind == "cancel_requested"] == [BOB]
