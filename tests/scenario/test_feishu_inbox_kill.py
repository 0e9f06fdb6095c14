"""A real ``tandem serve`` (or ``tandem feishu-ws``) serving Feishu, killed with SIGKILL right after it answered a
thread reply or a card click; the next process (a restart, or another replica) applies it, once.

To kill it after the answer and before the decision is stored, Feishu is slow to say who alice is: a
decision is checked against the departments of whoever made it (read from Feishu's contact API), and the
fake holds that call until the process is dead. A thread reply is answered at once (its work runs after);
a card click is answered "working on it" once its own wait for the decision has run out.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from feishu import messages
from tests.agent.waiting import eventually
from tests.pgserver import PgServer
from tests.scenario.feishu_env import OPS, text
from tests.scenario.processes import feishu_process
from workspace.feishu_fake import FeishuFake, Posted, button_values, run_feishu

QUICK = {"TANDEM_INBOX_LEASE": "1", "TANDEM_INBOX_POLL": "0.2", "TANDEM_CARD_UPDATE_INTERVAL": "0.02"}
ALICE = "/contact/v3/users/ou_alice"
"""Where the bot asks Feishu for alice's departments."""


def thread_of(fake: FeishuFake, root: Posted) -> list[str]:
    """What the bot wrote in the run's thread, as people read it."""
    return [m.text or text(m) for m in fake.thread(root.message_id) if m.sender.startswith("ou_tandem")]


def plan_review(fake: FeishuFake, root: Posted) -> Posted | None:
    return next(
        (
            m
            for m in fake.thread(root.message_id)
            if "Plan" in text(m) and "approve" in {str(v.get("action")) for v in button_values(m.card)}
        ),
        None,
    )


async def a_plan(fake: FeishuFake) -> tuple[Posted, Posted]:
    """alice asks for a task in the chat: the run's card and its plan review, waiting for her."""
    await fake.say("alice", OPS, "restart payments and check errors after")
    await eventually(lambda: fake.roots(OPS), "the run's card")
    root = fake.roots(OPS)[0]
    await eventually(lambda: plan_review(fake, root) is not None, "the plan review")
    review = plan_review(fake, root)
    assert review is not None
    return root, review


@asynccontextmanager
async def alice_unknown_for_now(fake: FeishuFake) -> AsyncIterator[None]:
    """Feishu does not answer who alice is until the block ends."""
    answered = fake.slow[ALICE] = asyncio.Event()
    try:
        yield
    finally:
        answered.set()


async def killed(bot: asyncio.subprocess.Process) -> None:
    bot.send_signal(signal.SIGKILL)
    await bot.wait()


async def reply_and_die(fake: FeishuFake, bot: asyncio.subprocess.Process) -> Posted:
    """alice replies "approve" in the run's thread; ``bot`` answers, and is killed before it stores her decision."""
    root, _ = await a_plan(fake)
    async with alice_unknown_for_now(fake):
        answered = await fake.say("alice", OPS, "approve", root_id=root.message_id, mention_bot=False)

        assert answered.status == 200  # acked: Feishu will not push it again
        await eventually(lambda: any(ALICE in c for c in fake.held), "the bot asking Feishu who alice is")
        await killed(bot)
    assert "Plan approved" not in text(root), "nothing was applied before the kill"
    return root


async def in_thread(fake: FeishuFake, root: Posted, words: str) -> None:
    """Wait until the bot wrote ``words`` in the run's thread."""
    await eventually(lambda: any(words in t for t in thread_of(fake, root)), words)


async def approved_once(fake: FeishuFake, root: Posted) -> None:
    """The run card shows alice's approval, the run went on to its next review, and her reply was read once."""
    await eventually(lambda: "Plan approved by <at id=ou_alice></at>" in text(root), "the approval on the run card")
    await in_thread(fake, root, "Approval needed before a risky step")
    read = [t for t in thread_of(fake, root) if "Read as: **Approve**" in t]
    assert len(read) == 1, thread_of(fake, root)


async def test_feishu_thread_reply_acked_by_a_serve_process_killed_right_after_is_applied_by_the_next_one(
    tmp_path: Path,
) -> None:
    db = tmp_path / "tandem.db"
    async with run_feishu() as fake:
        async with feishu_process(fake, db, **QUICK) as first:
            root = await reply_and_die(fake, first)

        async with feishu_process(fake, db, **QUICK):
            await approved_once(fake, root)


@pytest.mark.parametrize("transport", ["webhook", "ws"])  # tandem serve, tandem feishu-ws
async def test_feishu_click_answered_working_by_a_process_killed_right_after_is_applied_by_the_next_one(
    tmp_path: Path, transport: str
) -> None:
    db = tmp_path / "tandem.db"
    async with run_feishu(transport=transport) as fake:
        async with feishu_process(fake, db, **QUICK) as first:
            root, review = await a_plan(fake)
            async with alice_unknown_for_now(fake):
                answered = await fake.click("alice", review.message_id, "approve")

                # Its wait for the decision ran out: alice is told Tandem is on it, and her click is acked.
                assert answered.status == 200 and answered.body["toast"]["content"] == messages.WORKING
                assert any(ALICE in call for call in fake.held)  # the decision still waits on Feishu
                await killed(first)
            assert "approved by" not in text(review), "nothing was applied before the kill"

        async with feishu_process(fake, db, **QUICK):
            await eventually(lambda: "approved by <at id=ou_alice></at>" in text(review), "the decided review card")
            await eventually(lambda: "Plan approved by <at id=ou_alice></at>" in text(root), "the run card")
            await in_thread(fake, root, "Result review")  # the run went on
            told = "<at id=ou_alice></at> approved step 1 (`restart_service`) with the plan"
            assert sum(told in t for t in thread_of(fake, root)) == 1, thread_of(fake, root)


async def test_feishu_thread_reply_acked_by_a_replica_killed_right_after_is_applied_by_another_replica(
    pg_server: PgServer,
) -> None:
    db = pg_server.schema()
    async with run_feishu() as fake, feishu_process(fake, db, **QUICK):  # the replica that stays up
        async with feishu_process(fake, db, **QUICK) as dying:  # Feishu sends to this one now
            root = await reply_and_die(fake, dying)

        await approved_once(fake, root)
