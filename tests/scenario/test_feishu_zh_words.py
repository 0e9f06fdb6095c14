"""A Chinese requester reads Chinese beyond the cards' chrome: why each planned step is there, the result's
headline, the ``列表`` and ``规则`` answers, and reminders."""

from __future__ import annotations

from pathlib import Path

from tests.scenario.feishu_env import OPS, FEnv, running_feishu, text
from tests.scenario.harness import THREE_ANCHORS, policy_file
from workspace.feishu_fake import Posted, card_text

TASK = "重启 payments 服务，然后检查错误日志"


def told(env: FEnv, person: str) -> list[str]:
    return [card_text(card) for _, who, card in env.fake.ephemerals if who == person]


async def test_feishu_chinese_run_plan_reasons_and_result_headline_are_chinese(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        root, review = await env.plan_of(TASK)
        assert "↳ 来自任务：“重启 payments 服务”。" in text(review), text(review)
        assert "From the task" not in text(review)
        while "结果审核" not in text(review):
            await env.fake.click("alice", review.message_id, "approve")
            review = await env.next_review(root, after=review)
        assert "**已完成：运行了 restart_service（payments）和 read_logs（payments，error）。**" in text(review)
        assert "任务：重启 payments 服务" in text(review)


async def test_feishu_chinese_list_answers_in_chinese_rows(tmp_path: Path) -> None:
    async with running_feishu(tmp_path) as env:
        await env.fake.say("carol", OPS, "列表")
        await env.wait(lambda: any("本群没有进行中的运行。" in t for t in told(env, "ou_carol")))
        await env.plan_of(TASK)
        run_id = (await env.bot.deps.store.list_runs())[0].id
        await env.fake.say("alice", OPS, "列表")
        row = f"• `{run_id}` {TASK} · ✋ 等待审核 · 👉 等待你处理"
        await env.wait(lambda: any(row in t for t in told(env, "ou_alice")))


async def _chinese_gate(env: FEnv, approver: str = "alice") -> Posted:
    await env.fake.say("alice", OPS, TASK)
    await env.wait(env.cards)
    root = env.cards()[-1]
    review = await env.next_review(root)
    while "高风险步骤执行前需要批准" not in text(review):
        await env.fake.click(approver, review.message_id, "approve")
        review = await env.next_review(root, after=review)
    return review


async def test_feishu_chinese_rules_lists_the_rule_in_chinese(tmp_path: Path) -> None:
    async with running_feishu(tmp_path, config=policy_file(tmp_path, THREE_ANCHORS)) as env:
        await env.fake.say("carol", OPS, "规则")
        await env.wait(
            lambda: any("本群没有始终允许规则：每个高风险步骤都会询问。" in t for t in told(env, "ou_carol"))
        )
        gate = await _chinese_gate(env)
        root = next(c for c in env.cards() if c.message_id == gate.root_id)
        await env.fake.click("alice", gate.message_id, "approve_always")
        [rule] = await env.bot.deps.store.rules(OPS)
        set_line = "从现在起，`restart_service`（payments）在本群无需询问即可运行（由 <at id=ou_alice></at> 设置）。"
        await env.wait(lambda: any(set_line in text(p) for p in env.bot_thread(root)))
        await env.fake.say("carol", OPS, "规则")
        row = f"• `restart_service`（payments） 无需询问即可运行（由 <at id=ou_alice></at> 设置；规则 `{rule.id}`）"
        await env.wait(lambda: any(row in t for t in told(env, "ou_carol")), within=5)
        assert any("`rules widen " in t and "可覆盖所有目标" in t for t in told(env, "ou_carol"))


async def _tick_past(env: FEnv, moment: str) -> None:
    """The scheduler's tick a second after the pending review's ``remind_at`` or ``deadline``."""
    [run] = await env.bot.deps.store.list_runs()
    state, _ = await env.bot.deps.store.load(run.id)
    assert state.pending is not None
    at = getattr(state.pending, moment)
    assert isinstance(at, float)
    env.bot.deps.runtime.clock = lambda: at + 1
    await env.bot.deps.runtime.tick()


async def test_feishu_chinese_run_reminder_is_chinese(tmp_path: Path) -> None:
    policy = '[timeouts.after_plan]\nafter = "1h"\nremind_before = "30m"\n'
    async with running_feishu(tmp_path, config=policy_file(tmp_path, policy)) as env:
        root, review = await env.plan_of(TASK)
        await _tick_past(env, "remind_at")
        await env.wait(lambda: any("⏰" in text(p) for p in env.bot_thread(root)))
        [line] = [text(p) for p in env.bot_thread(root) if "⏰" in text(p)]
        assert "仍在等待决定（已等 30 分钟）。" in line and "Still waiting" not in line, line


async def test_feishu_chinese_plan_approval_says_in_chinese_that_the_restart_was_approved_with_it(
    tmp_path: Path,
) -> None:
    async with running_feishu(tmp_path) as env:
        root, plan = await env.plan_of(TASK)
        await env.fake.click("alice", plan.message_id, "approve")
        line = "<at id=ou_alice></at> 随计划批准了第 1 步（`restart_service`）：除非参数改变，执行前不会再次询问。"
        await env.wait(lambda: any(line in text(p) for p in env.bot_thread(root)))


async def test_feishu_chinese_review_passed_on_says_whom_it_waits_on_in_chinese(tmp_path: Path) -> None:
    policy = '[approvers]\nexec = ["ou_bob", "ou_carol"]\n'
    policy += '[timeouts.before_risky_step]\nafter = "1h"\nstrategy = "reassign"\n'
    async with running_feishu(tmp_path, config=policy_file(tmp_path, policy + THREE_ANCHORS)) as env:
        gate = await _chinese_gate(env)
        await _tick_past(env, "deadline")
        root = next(c for c in env.cards() if c.message_id == gate.root_id)
        await env.wait(
            lambda: any("👉 <at id=ou_alice></at> 现在等待你处理。" in text(p) for p in env.bot_thread(root))
        )
        assert any("1 小时 内无人决定；改为询问其他人。" in text(p) for p in env.bot_thread(root))


async def test_feishu_chinese_rules_widen_and_revoke_answer_in_chinese(tmp_path: Path) -> None:
    policy = '[approvers]\nexec = ["ou_bob"]\n' + THREE_ANCHORS
    async with running_feishu(tmp_path, config=policy_file(tmp_path, policy)) as env:
        gate = await _chinese_gate(env, approver="bob")
        assert "第 1 步，共 2 步： `restart_service`" in text(gate)
        assert "**原因：** 来自任务：“重启 payments 服务”。" in text(gate), text(gate)
        await env.fake.click("bob", gate.message_id, "approve_always")
        [rule] = await env.bot.deps.store.rules(OPS)
        await env.fake.say("carol", OPS, f"规则 widen {rule.id}")
        refused = "只有 <at id=ou_bob></at>（设置者）或审批人可以扩大此规则。未做任何更改。"
        await env.wait(lambda: any(refused in t for t in told(env, "ou_carol")))
        await env.fake.say("bob", OPS, f"规则 widen {rule.id}")
        widened = "从现在起，`restart_service` 在本群对所有目标无需询问即可运行（由 <at id=ou_bob></at> 扩大）。"
        await env.wait(lambda: any(widened in t for t in told(env, "ou_bob")))
        await env.fake.say("bob", OPS, f"规则 revoke {rule.id}")
        revoked = "已撤销：`restart_service`（所有目标，整个工具） 在本群会再次请求批准。"
        await env.wait(lambda: any(revoked in t for t in told(env, "ou_bob")))
        await env.fake.say("bob", OPS, "规则 forget")
        await env.wait(lambda: any("说 `规则` 列出本群的始终允许规则" in t for t in told(env, "ou_bob")))


async def test_feishu_chinese_plan_approved_by_default_at_its_deadline_says_so_in_chinese(tmp_path: Path) -> None:
    policy = '[timeouts.after_plan]\nafter = "1h"\nstrategy = "use_default"\ndefault = "approve"\n'
    async with running_feishu(tmp_path, config=policy_file(tmp_path, policy)) as env:
        root, _ = await env.plan_of(TASK)
        await _tick_past(env, "deadline")
        line = "1 小时 内无人决定；已按默认值批准并继续。"
        await env.wait(lambda: any(line in text(p) for p in env.bot_thread(root)))


async def test_feishu_chinese_gate_skipped_at_its_deadline_says_so_in_chinese(tmp_path: Path) -> None:
    policy = '[timeouts.before_risky_step]\nafter = "1h"\nstrategy = "degrade"\n' + THREE_ANCHORS
    async with running_feishu(tmp_path, config=policy_file(tmp_path, policy)) as env:
        gate = await _chinese_gate(env)
        await _tick_past(env, "deadline")
        root = next(c for c in env.cards() if c.message_id == gate.root_id)
        line = "1 小时 内无人批准：已跳过第 1 步（restart_service）；只读步骤继续执行。"
        await env.wait(lambda: any(line in text(p) for p in env.bot_thread(root)))
