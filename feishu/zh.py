"""The core's short phrases as a Chinese requester's cards say them: who decided what, and what a run does.

The core writes these lines in English from structured data (:mod:`agent.decision_lines`,
:func:`agent.card_view.status_detail`); a Feishu card follows the requester's language
(:func:`feishu.wording.lang_of`), so here each known phrase has its Chinese form. A phrase not
known here is shown as the core wrote it (never dropped).
"""

from __future__ import annotations

import re

from agent.plan_gate import PlanGate
from agent.refusal import Refusal
from feishu.wording import escape, who

_SUBJECTS: tuple[tuple[str, str], ...] = (
    (r"Question from step (\S+)", r"第 \1 步的问题"),
    (r"Outcome of step (\S+)", r"第 \1 步的结果"),
    (r"Failed step (\S+)", r"失败的第 \1 步"),
    (r"Re-run of step (\S+)", r"第 \1 步的重新运行"),
    (r"Proposed step (\S+)", r"提议的第 \1 步"),
    (r"Step (\S+)", r"第 \1 步"),
    (r"Plan", "计划"),
    (r"Result", "结果"),
    (r"Takeover", "接管"),
    (r"Review", "审核"),
)
_VERBS: dict[str, str] = {
    "Changes requested": "已请求修改",
    "Noted for the result": "已记下，留待结果",
    "Cancelled": "已取消",
    "Cancelled: nobody decided in time": "已取消：无人按时决定",
    "Continued with the default": "已按默认值继续",
    "Continued past failed step": "已越过失败的步骤继续",
    "Instruction": "指令",
    "Asked to finish": "已要求结束",
    "Handed back": "已交还给 Tandem",
    "Answered": "已回答",
    "Reopened": "已重新打开",
    "No longer open: the run moved on": "已关闭：运行已继续",
}
_SUFFIXES = ((" by an always-allow rule", "（由始终允许规则）"), (" (deadline passed)", "（已过截止时间）"))
_DOING: tuple[tuple[str, str], ...] = (
    (r"an answer to step (\S+)'s question", r"回答第 \1 步的问题"),
    (r"an answer to the planner's question", "回答规划者的问题"),
    (r"plan review", "计划审核"),
    (r"approval of step (\S+)", r"批准第 \1 步"),
    (r"check of step (\S+)'s outcome", r"检查第 \1 步的结果"),
    (r"result review", "结果审核"),
    (r"decision on failed step (\S+)", r"决定如何处理失败的第 \1 步"),
    (r"decision on interrupted step (\S+)", r"决定如何处理中断的第 \1 步"),
    (r"instructions in the thread", "话题中的指令"),
    (r"approval of proposed step (\S+)", r"批准提议的第 \1 步"),
    (r"drafting a plan", "正在制定计划"),
    (r"drafting a new plan after feedback", "正在根据反馈重新制定计划"),
    (r"retrying step (\S+)", r"正在重试第 \1 步"),
    (r"retrying", "正在重试"),
    (r"writing up the result", "正在撰写结果"),
    (r"reworking the result", "正在修改结果"),
    (r"running step (\S+) of (\S+)", r"正在运行第 \1 步，共 \2 步"),
)


def verb(text: str) -> str:
    """A decision line's verb in Chinese: ``Step 2 approved by an always-allow rule`` →
    ``第 2 步已批准（由始终允许规则）``."""
    suffix = ""
    for en, zh in _SUFFIXES:
        if text.endswith(en):
            text, suffix = text[: -len(en)], zh
    if text in _VERBS:
        return _VERBS[text] + suffix
    if text.endswith(" approved"):
        subject = text[: -len(" approved")]
        for pattern, zh in _SUBJECTS:
            if re.fullmatch(pattern, subject):
                return re.sub(pattern, zh, subject) + "已批准" + suffix
    return text + suffix


def doing(text: str) -> str:
    """What a run does now, in Chinese: ``approval of step 2`` → ``等待批准第 2 步``."""
    for pattern, zh in _DOING:
        if re.fullmatch(pattern, text):
            return re.sub(pattern, zh, text)
    return text


_UNITS = (
    (r"(\d+) s\b", r"\1 秒"),
    (r"(\d+) min\b", r"\1 分钟"),
    (r"(\d+) h\b", r"\1 小时"),
    (r"([\d.]+) days\b", r"\1 天"),
)
_STEPS = r"((?:step \d+ \(`[^`]+`\)(?:, )?)+)"
_NEWS: tuple[tuple[str, str], ...] = (
    (r"Still waiting for a decision \((.+)\)\.", r"仍在等待决定（已等 \1）。"),
    (r"No decision after (.+); Tandem keeps waiting\.", r"\1 内无人决定；Tandem 继续等待。"),
    (r"No decision after (.+); asking someone else\.", r"\1 内无人决定；改为询问其他人。"),
    (r"No decision after (.+); escalated\.", r"\1 内无人决定；已上报。"),
    (r"No decision after (.+); continued with the default \(approve\)\.", r"\1 内无人决定；已按默认值批准并继续。"),
    (r"No decision after (.+); continued with the default \((\w+)\)\.", r"\1 内无人决定；已按默认值（\2）继续。"),
    (
        r"No approval after (.+): skipped ((?:step \d+ \([^)]+\)(?:, )?)+); the read-only steps go on\.",
        r"\1 内无人批准：已跳过\2；只读步骤继续执行。",
    ),
    (
        rf"(⟦@[^⟧]+⟧) approved {_STEPS} with the plan: (?:it runs|they run) without asking again unless "
        r"(?:its|their) parameters change\.",
        r"\1 随计划批准了\2：除非参数改变，执行前不会再次询问。",
    ),
    (
        r"From now on (`[^`]+`)(?: for (.+?))? runs without asking in this channel \(set by (⟦@[^⟧]+⟧)\)\.",
        r"从现在起，\1（\2）在本群无需询问即可运行（由 \3 设置）。",
    ),
)


def said(text: str) -> str:
    """A reminder or a line of news in Chinese where its words are known here (``Still waiting for a decision
    (5 min).`` → ``仍在等待决定（已等 5 分钟）。``), else as the core wrote it."""
    for pattern, zh in _NEWS:
        if re.fullmatch(pattern, text):
            text = re.sub(pattern, zh, text)
            for unit, zh_unit in _UNITS:
                text = re.sub(unit, zh_unit, text)
            text = text.replace("（）", "")  # a rule with no target names none
            return re.sub(
                r"step (\d+) \(([^)]+)\)(, )?", lambda m: f"第 {m[1]} 步（{m[2]}）{'、' if m[3] else ''}", text
            )
    return text


def gate_lines(gates: tuple[PlanGate, ...]) -> list[str]:
    """What approving a plan does to its risky steps, in Chinese (as :func:`agent.messages.plan_gate_lines`
    says it in English, from the same gates)."""
    lines = []
    kept = [str(g.step.number) for g in gates if g.apart]
    if kept:
        lines.append(f"✋ 第 {'、'.join(kept)} 步在执行前会再次请求批准。")
    for gate in gates:
        step = gate.step
        anyone = "或".join(who(p) for p in gate.approvers[:5]) if gate.approvers else "审批人"
        what = f"第 {step.number} 步 `{escape(step.tool)}` `{escape(gate.params)}`（{step.risk.label}）"
        if gate.everyone:
            lines.append(f"✋ 批准此计划也会批准{what}：除非参数改变，它执行前不会再次询问。")
        elif gate.merges:
            lines.append(
                f"✋ 若由 {anyone}（可批准 {step.risk.label} 步骤）批准，此计划也会批准{what}；"
                f"若由其他人批准，第 {step.number} 步执行前仍会请 {anyone} 批准。"
            )
        elif not gate.apart:
            held = f"（{escape(gate.held)}）" if gate.held else ""
            lines.append(f"✋ 第 {step.number} 步 `{escape(step.tool)}` 执行前仍会请 {anyone} 批准{held}。")
    return lines


_ACTIONS: tuple[tuple[str, str], ...] = (
    (r"answer this question", "回答这个问题"),
    (r"approve this plan", "批准此计划"),
    (r"approve this result", "批准此结果"),
    (r"approve (\w+) steps", r"批准 \1 步骤"),
    (r"decide here", "在此做决定"),
    (r"steer or stop this run", "指挥或停止此运行"),
    (r"revoke this rule", "撤销此规则"),
    (r"widen this rule", "扩大此规则"),
    (r"forget this lesson", "忘掉这条经验"),
)
_NOTES = {
    "": "",
    " (or an approver)": "（或审批人）",
    " (the policy does not let requesters approve their own run here)": "（此处的策略不允许发起人批准自己的运行）",
}


def refusal(ref: Refusal) -> str | None:
    """Why a person may not do something, in Chinese (None when the core's words are not known here)."""
    action = next((re.sub(p, zh, ref.action) for p, zh in _ACTIONS if re.fullmatch(p, ref.action)), None)
    note = _NOTES.get(ref.note)
    if action is None or note is None:
        return None
    names = [who(u) for u in ref.users] + [f"{who(g)} 的成员" for g in ref.groups]
    if not names:
        return f"此处没有人可以{action}{note}；请检查策略中的审批人。"
    joined = names[0] if len(names) == 1 else "、".join(names[:-1]) + " 或 " + names[-1]
    return f"只有 {joined} 可以{action}{note}。未做任何更改。"
