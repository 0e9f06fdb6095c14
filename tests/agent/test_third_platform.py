"""A third chat platform, registered from this module alone: the core takes its origins, ids and
report channel without an edit, and its runs are stored and loaded back on SQLite.

"Toy" names users ``tu-…``, groups ``tg-…`` and rooms ``tr-…``; a run lives in a room, under a post.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import pytest

from agent.config import PolicyConfig, ReportRule, load_config
from agent.errors import PolicyError
from agent.models import (
    Origin,
    Policy,
    RunState,
    ScheduledPost,
    WeeklyReport,
)
from agent.models.platforms import Platform, PrincipalKind, register
from agent.runtime import Runtime
from agent.tools import Risk, ToolRegistry, tool
from agent.usecases import Applied, Refused, UseCases
from agent.weekly import post_message, report_outbound
from storage.facade import AsyncStore
from tests.fakes.brain import FixedBrain

TOY = "toy"


class ToyRoom(Origin):
    """A run started in a Toy room: its card is the post people reply under."""

    kind: Literal["toy"] = "toy"
    room: str
    post: str

    @property
    def channel(self) -> str | None:
        return TOY

    @property
    def scope(self) -> str | None:
        return self.room

    @property
    def thread(self) -> str | None:
        return f"{self.room}/{self.post}"


def toy_id(entry: str) -> PrincipalKind | None:
    if re.fullmatch(r"tu-[a-z]+", entry):
        return "user"
    return "group" if re.fullmatch(r"tg-[a-z]+", entry) else None


def toy_room(entry: str) -> bool:
    return re.fullmatch(r"tr-[a-z]+", entry) is not None


register(
    Platform(
        name=TOY,
        origins=(ToyRoom,),
        parse_id=toy_id,
        is_place=toy_room,
        id_hint="Toy users tu-… and groups tg-…",
        report_destination=lambda entry: ToyRoom(room=entry, post="") if toy_room(entry) else None,
        report_hint="a Toy room tr-…",
    )
)

ALICE, BOB, CAROL, OPS = "tu-alice", "tu-bob", "tu-carol", "tg-ops"
ROOM = ToyRoom(room="tr-ops", post="p1")


@tool(risk=Risk.READ)
def peek(service: str) -> str:
    """Read a service's state."""
    return f"{service} ok"


@tool(risk=Risk.EXEC)
def bounce(service: str) -> str:
    """Restart a service."""
    return f"{service} restarted"


STEPS = [("peek", {"service": "api"}), ("bounce", {"service": "api"})]
TOOLS = ToolRegistry()
for fn in (peek, bounce):
    TOOLS.add_function(fn)


def usecases(store: AsyncStore, config: PolicyConfig) -> UseCases:
    runtime = Runtime(store, FixedBrain(STEPS), TOOLS, policy=Policy(), config=config)

    async def groups_of(user: str) -> Sequence[str]:
        return [OPS] if user == BOB else []

    return UseCases(runtime, store, groups_of)


def test_policy_naming_toy_people_and_rooms_loads(tmp_path: Path) -> None:
    policy = tmp_path / "tandem.toml"
    policy.write_text(
        f'[approvers]\nexec = ["{OPS}", "U0BOB"]\n[groups]\n"{OPS}" = ["{BOB}"]\n'
        f'[rules]\nalways_allow = [{{channel = "tr-ops", tool = "peek", service = "api"}}]\n'
        '[report]\nchannel = "tr-ops"\n'
    )
    config = load_config(policy, {})
    assert (config.approvers["exec"], config.groups[OPS], config.report.channel) == ([OPS, "U0BOB"], [BOB], "tr-ops")


def test_policy_naming_a_toy_person_by_name_is_refused_with_the_toy_hint() -> None:
    with pytest.raises(PolicyError, match=r'approvers.exec: "carol" is not a user or group id.*Toy users tu-…'):
        load_config(None, {"TANDEM_POLICY__APPROVERS__EXEC": "carol"})


async def test_run_started_in_a_toy_room_is_decided_through_the_use_cases_and_loads_back(tmp_path: Path) -> None:
    config = PolicyConfig(approvers={"exec": [OPS, "U0BOB"]})
    async with AsyncStore(tmp_path / "toy.db") as store:
        uc = usecases(store, config)
        state = await uc.runtime.start("bounce api", ALICE, origin=ROOM)
        assert state.pending is not None
        planned = await uc.approve(state.pending.id, ALICE)
        assert isinstance(planned, Applied) and planned.state.pending is not None
        gate = planned.state.pending.id
        refused = await uc.approve(gate, CAROL)
        assert isinstance(refused, Refused)
        assert refused.refusal.describe() == f"Only members of @{OPS} can approve exec steps. Nothing changed."
        done = await uc.approve(gate, BOB)
        assert isinstance(done, Applied)
        assert [s.result for s in done.state.plan] == ["api ok", "api restarted"]
    async with AsyncStore(tmp_path / "toy.db") as again:
        loaded, _ = await again.load(state.id)
        assert loaded.origin == ROOM and [s.result for s in loaded.plan] == ["api ok", "api restarted"]
        assert await again.run_for_thread("tr-ops/p1") == state.id
        assert [r.id for r in await again.list_runs(channel="tr-ops")] == [state.id]
        handed = await again.due_deliveries(TOY, time.time() + 60, lease=30)  # what a Toy delivery worker gets
        assert {d.run_id for d in handed} == {state.id} and {"review", "card"} <= {d.message.kind for d in handed}


def test_run_of_a_toy_room_survives_a_round_trip_through_json() -> None:
    state = RunState(id="r1", task="t", requester=ALICE, created_at=1, updated_at=1, origin=ROOM)
    assert RunState.model_validate_json(state.model_dump_json()).origin == ROOM


def test_report_for_a_toy_room_goes_to_the_toy_delivery_worker() -> None:
    rule = ReportRule(channel="tr-ops")
    post = ScheduledPost(key="tr-ops@1", channel="tr-ops", since=0.0, until=1.0)
    outbound = report_outbound(post_message(post, rule, 1.0))
    assert (
        outbound is not None
        and outbound.channel == TOY
        and outbound.messages[0] == WeeklyReport(key=post.key, channel="tr-ops", since=post.since, until=post.until)
    )
