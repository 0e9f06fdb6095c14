"""Thread replies, double clicks, forged requests, retries and limits, against the running app."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from blocks import ids
from blocks.limits import check_message, check_view
from tests.scenario.harness import OPS, THREE_ANCHORS, Env, button_value, policy_file, running, text_of
from workspace.models import Message


async def _start(env: Env, task: str = "restart payments and check errors after") -> tuple[Message, Message]:
    card = await env.start(task)
    return card, await env.next_review(card)


def _bot_replies(env: Env, card: Message) -> list[str]:
    return [text_of(m) for m in env.thread(card) if m.bot_id and not m.blocks or "Read as" in text_of(m)]


@pytest.mark.parametrize(
    ("reply", "expect"),
    [
        ("Looks good, proceed", "approve"),
        ("可以，执行吧", "approve"),
        ("restart checkout instead of payments", "change the plan"),
        ("方向不对，重新规划：重启 checkout", "change the plan"),
    ],
)
async def test_thread_reply_is_classified_and_applied(tmp_path: Path, reply: str, expect: str) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.ws.reply_in_thread("alice", OPS, card.ts, reply)
        await env.wait(lambda: any("Read as" in text_of(m) for m in env.thread(card)))
        answer = next(m for m in env.thread(card) if "Read as" in text_of(m))
        assert expect in text_of(answer)
        assert button_value(answer, ids.OVERRIDE)
        nxt = await env.next_review(card, after=plan)
        if expect == "approve":
            assert "approval" in text_of(nxt).lower()
        else:
            assert "checkout" in text_of(nxt)


async def test_reply_to_a_cancelled_run_explains_and_does_not_reopen_it(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.click("alice", plan, ids.CANCEL)
        await env.wait(lambda: "Cancelled" in text_of(env.ws.state.message(OPS, card.ts)))
        await env.ws.reply_in_thread("alice", OPS, card.ts, "wait, also check auth")
        told = "is cancelled, so a reply does not reopen it; start a new run"
        await env.ws.wait_until(lambda s: any(told in m.text for m in s.ephemerals_for("U0ALICE")))
        state, _ = await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id)
        assert state.status == "cancelled" and not any("Reopened" in text_of(m) for m in env.thread(card))


async def test_bot_messages_in_thread_are_ignored(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        event = {
            "type": "message",
            "channel": OPS,
            "text": "Looks good, proceed",
            "ts": "1.000001",
            "thread_ts": card.ts,
            "bot_id": "B0OTHER",
            "user": "U0OTHERBOT",
        }
        run_id = (await env.bot.deps.store.list_runs())[0].id
        before = await env.bot.deps.store.events(run_id)
        delivery = await env.ws.deliver(event)
        assert delivery.status == 200
        await env.handled(delivery)
        assert env.open_review(card) is not None and env.open_review(card).ts == plan.ts  # type: ignore[union-attr]
        assert not any("Read as" in text_of(m) for m in env.thread(card))
        assert await env.bot.deps.store.events(run_id) == before


async def test_double_click_applies_once_and_tells_the_second_person(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        value = button_value(plan, ids.APPROVE)
        await asyncio.gather(
            env.ws.click("alice", OPS, plan.ts, ids.APPROVE, value),
            env.ws.click("bob", OPS, plan.ts, ids.APPROVE, value),
        )
        await env.idle()
        told = env.ws.state.ephemerals_for("U0ALICE") + env.ws.state.ephemerals_for("U0BOB")
        assert len(told) == 1
        assert "Already approved by" in text_of(told[0])  # type: ignore[arg-type]
        state = await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id)
        decided = [e for e in await env.bot.deps.store.events(state[0].id) if e.kind == "decided"]
        assert len(decided) == 1


async def test_click_on_finished_run_changes_nothing_and_says_who_decided(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        stale_blocks = list(plan.blocks)
        value = button_value(plan, ids.APPROVE)
        await env.click("alice", plan, ids.CANCEL)
        await env.wait(lambda: "Cancelled" in text_of(env.ws.state.message(OPS, card.ts)))
        await env.idle()
        # bob's client still shows the old buttons
        env.ws.state.message(OPS, plan.ts).blocks = stale_blocks
        before = await env.bot.deps.store.load((await env.bot.deps.store.list_runs())[0].id)
        await env.ws.click("bob", OPS, plan.ts, ids.APPROVE, value)
        await env.idle()
        told = env.ws.state.ephemerals_for("U0BOB")
        assert told and "Already cancelled by <@U0ALICE>" in text_of(told[-1])  # type: ignore[arg-type]
        assert await env.bot.deps.store.load(before[0].id) == before


@pytest.mark.parametrize("forge", ["bad_signature", "stale_timestamp", "unsigned"])
async def test_forged_requests_get_401_and_change_nothing(tmp_path: Path, forge: str) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        value = button_value(plan, ids.APPROVE)
        delivery = await env.ws.click("alice", OPS, plan.ts, ids.APPROVE, value, forge=forge)  # type: ignore[arg-type]
        assert delivery.status == 401
        command = await env.ws.slash_command("alice", OPS, "deploy auth 9.9", forge=forge)  # type: ignore[arg-type]
        assert command.status == 401
        await env.start("check api")  # a genuine request after them, handled: the forged ones were not
        await env.idle()
        record = await env.bot.deps.store.get_review(value)
        assert record is not None and record.status == "pending"
        assert sorted(r.task for r in await env.bot.deps.store.list_runs()) == [
            "check api",
            "restart payments and check errors after",
        ]


async def test_event_retry_is_processed_once(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        first = await env.ws.reply_in_thread("alice", OPS, card.ts, "Looks good, proceed")
        retries = [await env.ws.retry(first, retry_num=n) for n in (1, 2)]
        # a retry is known by its key before it is acked (the inbox): its 200 is all that happens to it
        assert [r.status for r in retries] == [200, 200]
        await env.handled(first)
        assert first.event_id is not None and env.finished[first.event_id] == 1  # no retry reached a listener
        readings = [m for m in env.thread(card) if "Read as" in text_of(m)]
        assert len(readings) == 1
        assert env.ws.state.ephemerals_for("U0ALICE") == []  # no retry was read again ("Already approved")
        runs = await env.bot.deps.store.list_runs()
        decided = [e for e in await env.bot.deps.store.events(runs[0].id) if e.kind == "decided"]
        assert len(decided) == 1


async def test_empty_feedback_shows_an_inline_error_and_keeps_the_modal(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.click("alice", plan, ids.REJECT)
        await env.wait(lambda: bool(env.ws.state.open_modals("U0ALICE")))  # opened once the review is read
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        blank = {
            ids.INTENT_BLOCK: {ids.INTENT_ACTION: {"type": "radio_buttons", "selected_option": {"value": "auto"}}},
            ids.FEEDBACK_BLOCK: {ids.FEEDBACK_ACTION: {"type": "plain_text_input", "value": "   "}},
        }
        await env.ws.submit_view("alice", modal.id, state_values=blank)
        view = env.ws.state.view(modal.id)
        assert view.open and ids.FEEDBACK_BLOCK in view.errors
        await env.idle()
        record = await env.bot.deps.store.get_review(button_value(plan, ids.APPROVE))
        assert record is not None and record.status == "pending"


async def test_unknown_review_button_gets_a_clear_ephemeral(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.ws.click("alice", OPS, plan.ts, ids.APPROVE, "not-a-review")
        await env.idle()
        told = env.ws.state.ephemerals_for("U0ALICE")
        assert told and "does not know this button" in text_of(told[-1])  # type: ignore[arg-type]


async def test_help_and_unknown_subcommand_show_help(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        for text in ("", "help", "stauts"):
            await env.ws.slash_command("alice", OPS, text)
        told = env.ws.state.ephemerals_for("U0ALICE")
        assert len(told) == 3 and all("/tandem list" in text_of(t) for t in told)  # type: ignore[arg-type]
        assert "not a Tandem command" in text_of(told[-1])  # type: ignore[arg-type]
        assert not env.cards()


async def test_list_status_and_cancel_subcommands(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        await env.ws.slash_command("alice", OPS, "list")
        await env.ws.slash_command("alice", OPS, f"status {run_id[:6]}")
        await env.idle()
        told = env.ws.state.ephemerals_for("U0ALICE")
        assert run_id in text_of(told[0]) and "Waiting on you" in text_of(told[0])  # type: ignore[arg-type]
        link = f"{env.ws.base_url}/#/{OPS}/{card.ts}"
        assert f"<{link}|restart payments" in text_of(told[0]), "the list links to the run's thread"  # type: ignore[arg-type]
        assert "restart payments" in text_of(told[1])  # type: ignore[arg-type]
        # bob is neither the requester nor an approver: refused, and the run waits on
        await env.ws.slash_command("bob", OPS, f"cancel {run_id}")
        await env.idle()
        assert "Only <@U0ALICE> can steer or stop this run" in text_of(env.ws.state.ephemerals_for("U0BOB")[-1])  # type: ignore[arg-type]
        assert (await env.bot.deps.store.load(run_id))[0].status == "awaiting_review"
        # from another channel the run is not even found; too short a prefix finds nothing either
        await env.ws.slash_command("alice", "C0GENERAL", f"cancel {run_id}")
        await env.ws.slash_command("alice", OPS, f"status {run_id[:1]}")
        await env.idle()
        assert "No run" in text_of(env.ws.state.ephemerals_for("U0ALICE")[-2])  # type: ignore[arg-type]
        assert "No run" in text_of(env.ws.state.ephemerals_for("U0ALICE")[-1])  # type: ignore[arg-type]
        assert (await env.bot.deps.store.load(run_id))[0].status == "awaiting_review"
        await env.ws.slash_command("alice", OPS, f"cancel {run_id[:6]}")
        await env.idle()
        assert (await env.bot.deps.store.load(run_id))[0].status == "cancelled"
        assert "Cancelled" in text_of(env.ws.state.message(OPS, plan.ts))


async def test_every_message_and_view_the_bot_sends_is_within_limits(tmp_path: Path) -> None:
    async with running(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        card, plan = await _start(env)
        await env.click("alice", plan, ids.DETAILS) if "tandem.details" in str(plan.blocks) else None
        await env.click("alice", plan, ids.APPROVE)
        gate = await env.next_review(card, after=plan)
        await env.click("alice", gate, ids.APPROVE)
        await env.next_review(card, after=gate)
        await env.idle()
        sent = 0
        for call in env.ws.state.calls:
            if call.method in ("chat.postMessage", "chat.update", "chat.postEphemeral") and "blocks" in call.params:
                check_message(call.params["blocks"], call.params.get("text"))
                sent += 1
            if call.method in ("views.open", "views.update"):
                check_view(call.params["view"])
        assert sent >= 6
        assert all(c.ok for c in env.ws.state.calls), [c for c in env.ws.state.calls if not c.ok]


async def test_unclear_reply_asks_instead_of_guessing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "hmm")
        await env.wait(lambda: any("Not sure what you meant" in text_of(m) for m in env.thread(card)))
        await env.idle()
        assert ids.APPROVE in str(env.ws.state.message(OPS, plan.ts).blocks), "nothing was applied"
        question = next(m for m in env.thread(card) if "Not sure what you meant" in text_of(m))
        await env.ws.click(
            "alice", OPS, question.ts, f"{ids.CLARIFY}.approve", button_value(question, f"{ids.CLARIFY}.approve")
        )
        await env.wait(lambda: "Plan approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, plan.ts)))
        # the question is answered: no buttons, no "Nothing changed yet", and who decided
        await env.wait(lambda: "approved by <@U0ALICE>" in text_of(env.ws.state.message(OPS, question.ts)))
        resolved = env.ws.state.message(OPS, question.ts)
        assert ids.CLARIFY not in str(resolved.blocks) and "Nothing changed yet" not in text_of(resolved)


async def test_second_unclear_reply_retires_the_first_question(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "hmm")
        await env.wait(lambda: any("Not sure what you meant" in text_of(m) for m in env.thread(card)))
        first = next(m for m in env.thread(card) if "Not sure what you meant" in text_of(m))
        await env.ws.reply_in_thread("alice", OPS, card.ts, "erm")
        await env.wait(lambda: "Asked again below" in text_of(env.ws.state.message(OPS, first.ts)))
        questions = [m for m in env.thread(card) if "Not sure what you meant" in text_of(m)]
        assert len(questions) == 2 and ids.CLARIFY not in str(env.ws.state.message(OPS, first.ts).blocks)
        assert ids.CLARIFY in str(questions[-1].blocks), "the newest question is the live one"


async def test_not_what_i_meant_on_a_finished_run_says_so_and_opens_nothing(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.ws.reply_in_thread("alice", OPS, card.ts, "Looks good, proceed")
        await env.wait(lambda: any("Read as" in text_of(m) for m in env.thread(card)))
        read_as = next(m for m in env.thread(card) if "Read as" in text_of(m))
        state = (await env.bot.deps.store.list_runs())[0]
        await env.bot.deps.runtime.cancel(state.id, "U0ALICE")
        await env.idle()
        await env.ws.click("alice", OPS, read_as.ts, ids.OVERRIDE, button_value(read_as, ids.OVERRIDE))
        await env.wait(lambda: any("already cancelled" in text_of(e) for e in env.ws.state.ephemerals_for("U0ALICE")))  # type: ignore[arg-type]
        assert env.ws.state.open_modals("U0ALICE") == [], "no modal that could only fail"


async def test_long_output_is_truncated_with_details_in_a_modal(tmp_path: Path) -> None:
    async with running(tmp_path, tools="tests.scenario.big_tools") as env:
        await env.ws.slash_command("alice", OPS, "dump config payments")
        await env.wait(env.cards)
        card = env.cards()[0]
        # it only reads: done with no result review; the thread's last post has the result, cut, and the
        # full result is behind "Show details" under it (the card says it in one line)
        await env.wait(lambda: any(ids.DETAILS in str(m.blocks) for m in env.thread(card)))
        result = next(m for m in env.thread(card) if ids.DETAILS in str(m.blocks))
        shown = text_of(result)
        assert "setting_00000" in shown and "END-OF-CONFIG" not in shown
        await env.wait(lambda: "*Result:*" in text_of(env.ws.state.message(OPS, card.ts)))  # the card follows
        assert "setting_00000" not in text_of(env.ws.state.message(OPS, card.ts))
        await env.click("alice", result, ids.DETAILS)
        await env.wait(lambda: any("setting_00500" in str(v.spec) for v in env.ws.state.open_modals("U0ALICE")))
        await env.idle()
        assert all(c.ok for c in env.ws.state.calls), [c for c in env.ws.state.calls if not c.ok]
        for call in env.ws.state.calls:
            if call.method in ("chat.postMessage", "chat.update") and "blocks" in call.params:
                check_message(call.params["blocks"], call.params.get("text"))
            if call.method in ("views.open", "views.update"):
                check_view(call.params["view"])


async def test_request_changes_with_a_note_read_as_approval_asks_without_approve(tmp_path: Path) -> None:
    async with running(tmp_path) as env:
        card, plan = await _start(env)
        await env.click("alice", plan, ids.REJECT)
        await env.wait(lambda: bool(env.ws.state.open_modals("U0ALICE")))  # opened once the review is read
        modal = env.ws.state.open_modals("U0ALICE")[-1]
        note = {
            ids.INTENT_BLOCK: {ids.INTENT_ACTION: {"type": "radio_buttons", "selected_option": {"value": "auto"}}},
            ids.FEEDBACK_BLOCK: {ids.FEEDBACK_ACTION: {"type": "plain_text_input", "value": "Looks good, proceed"}},
        }
        await env.ws.submit_view("alice", modal.id, state_values=note)
        await env.wait(lambda: any("Not sure what you meant" in text_of(m) for m in env.thread(card)))
        await env.idle()
        question = next(m for m in env.thread(card) if "Not sure what you meant" in text_of(m))
        assert f"{ids.CLARIFY}.approve" not in str(question.blocks), "Request changes never turns into Approve"
        assert f"{ids.CLARIFY}.replan" in str(question.blocks)
        assert ids.APPROVE in str(env.ws.state.message(OPS, plan.ts).blocks), "the plan is still waiting"
