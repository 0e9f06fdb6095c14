"""The read commands (list, status, rules) as use cases, on a real SQLite file: a place sees only its own runs
and rules, another place's run is answered as an unknown one, and asking writes nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.commands import BadPeriod, Commands, NoSuchRun, RunStatus
from agent.config import PolicyConfig, RulesRule
from agent.config_rules import AlwaysAllow
from agent.models import Rule
from agent.policy import SafetyPolicy
from agent.report import Report
from agent.usecases import Applied
from bot.origin import SlackThread
from storage.facade import AsyncStore
from tests.agent.service_tools import ALICE, BOB, CAROL, OPS, usecases

OPS_ROOM = SlackThread(channel_id="C0OPS", thread_ts="1.0")
OTHER_ROOM = SlackThread(channel_id="C0OTHER", thread_ts="2.0")


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[AsyncStore]:
    async with AsyncStore(tmp_path / "t.db") as s:
        yield s


async def test_list_runs_shows_only_the_places_open_runs_and_marks_those_waiting_on_the_asker(
    store: AsyncStore,
) -> None:
    uc = usecases(store, PolicyConfig(approvers={"exec": [OPS]}))
    here = await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    elsewhere = await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    ended = await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    await uc.cancel(ended.id, ALICE)
    by_alice = await uc.list_runs(ALICE, "C0OPS")
    assert [s.id for s in by_alice.runs] == [here.id]  # not the other room's, not the cancelled one
    assert [s.id for s in by_alice.mine()] == [here.id]  # its plan waits on its requester
    assert (await uc.list_runs(CAROL, "C0OPS")).mine() == ()
    assert {s.id for s in (await uc.list_runs(CAROL, None)).runs} == {here.id, elsewhere.id}  # the terminal


async def test_status_of_another_places_run_is_unknown_there_and_writes_nothing(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    before = await store.events(state.id)
    shown = await uc.status(state.id, "C0OPS")
    assert shown == NoSuchRun(state.id)
    assert await store.events(state.id) == before and (await store.load(state.id))[0] == state


async def test_status_in_its_own_place_shows_the_run_and_its_history(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    shown = await uc.status(f"`{state.id[:6]}`", "C0OPS")
    assert isinstance(shown, RunStatus) and shown.state == state
    assert [e.kind for e in shown.events][:2] == ["started", "plan_proposed"]
    assert await uc.status(state.id[:2], "C0OPS") == NoSuchRun(state.id[:2])  # too short a prefix in a chat


async def test_commands_from_the_terminal_need_only_the_store_and_see_every_run(store: AsyncStore) -> None:
    state = await usecases(store).runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    commands = Commands(store, SafetyPolicy(PolicyConfig()))
    shown = await commands.status(state.id[:2], None)
    assert isinstance(shown, RunStatus) and shown.state.id == state.id
    assert await commands.status("nosuchrun", None) == NoSuchRun("nosuchrun")


async def test_rule_list_shows_the_policys_rules_then_only_this_places_own(store: AsyncStore) -> None:
    uc = usecases(
        store,
        PolicyConfig(
            approvers={"exec": [BOB]},
            rules=RulesRule(
                always_allow=[
                    AlwaysAllow(channel="C0OPS", tool="peek", every_target=True),
                    AlwaysAllow(channel="C0OTHER", tool="peek", every_target=True),
                ]
            ),
        ),
    )
    await store.add_rule(Rule(id="r1", channel="C0OPS", tool="bounce", created_by=BOB, created_at=1.0))
    await store.add_rule(Rule(id="r2", channel="C0OTHER", tool="bounce", created_by=BOB, created_at=2.0))
    listed = await uc.rule_list("C0OPS")
    assert [(r.tool, r.from_policy) for r in listed.rules] == [("peek", True), ("bounce", False)]  # one each
    assert [r.id for r in listed.rules if not r.from_policy] == ["r1"]


async def test_report_counts_only_the_places_own_runs_and_the_terminal_counts_all(store: AsyncStore) -> None:
    uc = usecases(store)
    await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    await uc.runtime.start("bounce api", BOB, origin=OTHER_ROOM)
    here, everywhere, bobs = (
        await uc.report("", "C0OPS"),
        await uc.report("30d", None),
        await uc.report("7d", None, requester=BOB),
    )
    assert isinstance(here, Report) and isinstance(everywhere, Report) and isinstance(bobs, Report)
    assert (here.current.runs, everywhere.current.runs, bobs.current.runs) == (1, 3, 1)


async def test_report_narrowed_to_a_channel_from_the_terminal_but_a_chat_sees_only_its_own(store: AsyncStore) -> None:
    uc = usecases(store)
    await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    await uc.runtime.start("bounce api", BOB, origin=OTHER_ROOM)
    narrowed, asked_elsewhere = (
        await uc.report("7d", None, channel="C0OTHER"),
        await uc.report("7d", "C0OPS", channel="C0OTHER"),
    )
    assert isinstance(narrowed, Report) and isinstance(asked_elsewhere, Report)
    assert (narrowed.current.runs, asked_elsewhere.current.runs) == (2, 1)


async def test_runs_lists_a_places_runs_ended_or_not_with_why_a_stopped_one_stopped(store: AsyncStore) -> None:
    uc = usecases(store)
    here = await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    elsewhere = await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    stopped = await uc.runtime.start("bounce api", ALICE, origin=OPS_ROOM)
    await uc.cancel(stopped.id, ALICE, "not now")
    rows = {row.run.id: row for row in (await uc.runs("C0OPS")).rows}
    assert set(rows) == {here.id, stopped.id}  # not the other room's
    assert (rows[stopped.id].stopped_because, rows[here.id].stopped_because) == ("not now", "")
    assert {row.run.id for row in (await uc.runs(None)).rows} == {here.id, elsewhere.id, stopped.id}  # the terminal
    assert [row.run.id for row in (await uc.runs(None, status="cancelled")).rows] == [stopped.id]


async def test_report_of_an_unreadable_period_says_what_is_wrong(store: AsyncStore) -> None:
    shown = await usecases(store).report("last tuesday", "C0OPS")
    assert isinstance(shown, BadPeriod) and "last tuesday" in shown.error


async def test_cancel_named_from_another_place_is_unknown_there_and_changes_nothing(store: AsyncStore) -> None:
    uc = usecases(store)
    state = await uc.runtime.start("bounce api", ALICE, origin=OTHER_ROOM)
    before = await store.events(state.id)
    assert await uc.cancel_named(state.id, "C0OPS", ALICE) == NoSuchRun(state.id)
    assert await store.events(state.id) == before and (await store.load(state.id))[0].status == state.status
    done = await uc.cancel_named(f"`{state.id[:6]}`", "C0OTHER", ALICE, "not now")
    assert isinstance(done, Applied) and done.state.status == "cancelled"
