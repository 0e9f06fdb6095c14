"""A Chinese requester's cards say the core's decision lines and run status in Chinese."""

from __future__ import annotations

import pytest

from agent.decision_lines import DecisionLine
from agent.messages import DECISION_SUBJECTS
from agent.refusal import Refusal
from feishu import zh
from feishu.lines import line_text


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("Plan approved", "计划已批准"),
        ("Step 2 approved by an always-allow rule", "第 2 步已批准（由始终允许规则）"),
        ("Outcome of step 3 approved (deadline passed)", "第 3 步的结果已批准（已过截止时间）"),
        ("Changes requested", "已请求修改"),
        ("Cancelled: nobody decided in time", "已取消：无人按时决定"),
        ("Something new the core says", "Something new the core says"),
    ],
)
def test_zh_verb_says_known_decisions_in_chinese_and_keeps_unknown_ones(english: str, chinese: str) -> None:
    assert zh.verb(english) == chinese


@pytest.mark.parametrize(
    ("english", "chinese"),
    [
        ("approval of step 2", "批准第 2 步"),
        ("running step 1 of 3", "正在运行第 1 步，共 3 步"),
        ("plan review", "计划审核"),
    ],
)
def test_zh_doing_says_what_a_run_does_in_chinese(english: str, chinese: str) -> None:
    assert zh.doing(english) == chinese


def test_line_text_for_a_chinese_requester_names_the_actor_after_the_verb() -> None:
    line = DecisionLine(actor="ou_bob", verb="Changes requested", at=0.0, detail="restart checkout", outcome="changes")
    assert line_text(line, "zh") == "❌ 已请求修改 · <at id=ou_bob></at> · 00:00 UTC：restart checkout"


@pytest.mark.parametrize("subject", sorted(DECISION_SUBJECTS.values()))
def test_zh_verb_knows_every_subject_the_core_approves(subject: str) -> None:
    said = zh.verb(f"{subject.format(n=2)} approved")
    assert said.endswith("已批准") and not any(c.isascii() and c.isalpha() for c in said)


@pytest.mark.parametrize(
    ("refusal", "chinese"),
    [
        (
            Refusal("ou_m", "approve deploy steps", ("ou_bob",)),
            "只有 <at id=ou_bob></at> 可以批准 deploy 步骤。未做任何更改。",
        ),
        (
            Refusal("ou_m", "forget this lesson", ("ou_a",), ("od-ops",), " (or an approver)"),
            "只有 <at id=ou_a></at> 或 @od-ops 的成员 可以忘掉这条经验（或审批人）。未做任何更改。",
        ),
        (Refusal("ou_m", "approve this plan"), "此处没有人可以批准此计划；请检查策略中的审批人。"),
        (Refusal("ou_m", "do something new", ("ou_bob",)), None),
    ],
)
def test_zh_refusal_says_who_may_in_chinese_or_leaves_unknown_words_to_the_core(
    refusal: Refusal, chinese: str | None
) -> None:
    assert zh.refusal(refusal) == chinese
