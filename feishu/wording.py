"""What Feishu cards say, in English and Chinese, and the small text helpers every card uses.

The language follows the requester: a task written with CJK characters gets Chinese
card chrome (titles, buttons, labels). Prose the core writes (notes, refusals, errors)
stays as the core wrote it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Literal

from agent.models import Principal, render_mentions
from feishu.origin import FEISHU

Lang = Literal["en", "zh"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af]")


def lang_of(text: str) -> Lang:
    """Chinese when ``text`` has any CJK character (the requester wrote in it), else English."""
    return "zh" if _CJK.search(text) else "en"


WORDS: dict[str, tuple[str, str]] = {
    # anchors
    "after_plan": ("Plan review", "计划审核"),
    "before_risky_step": ("Approval needed before a risky step", "高风险步骤执行前需要批准"),
    "after_risky_step": ("Review of a risky step's outcome", "高风险步骤结果审核"),
    "before_result": ("Result review", "结果审核"),
    "step_failed": ("A step failed", "步骤失败"),
    "recovery": ("Interrupted step", "中断的步骤"),
    "takeover": ("Human takeover", "人工接管"),
    "takeover_step": ("Proposed step (takeover)", "提议的步骤（接管）"),
    "handoff": ("A question for you", "需要你的回答"),
    # buttons
    "approve": ("Approve", "批准"),
    "approve_always": ("Always allow {tool} for {scope} here", "在此始终允许 {tool}（{scope}）"),
    "approve_always_tool": ("Always allow {tool} here", "在此始终允许 {tool}"),
    "continue_anyway": ("Continue anyway", "仍然继续"),
    "rerun": ("Re-run", "重新运行"),
    "request_changes": ("Request changes", "请求修改"),
    "cancel": ("Cancel run", "取消运行"),
    "send": ("Send", "发送"),
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    "open_link": ("Open link", "打开链接"),
    "decline": ("Decline", "拒绝回答"),
    "finish": ("Finish", "结束"),
    "hand_back": ("Hand back", "交还给 Tandem"),
    "not_meant": ("Not what I meant", "不是这个意思"),
    # labels
    "waiting_on": ("Waiting on {who}", "等待 {who} 处理"),
    "approved_so_far": ("Approved so far by {who} · {n} more needed", "已批准：{who} · 还需 {n} 人"),
    "why": ("Why:", "原因："),
    "step_of": ("Step {n} of {total}:", "第 {n} 步，共 {total} 步："),
    "plan": ("Plan", "计划"),
    "forget": ("Forget", "忘掉这条经验"),
    "forgotten_by": ("Forgotten by {who}", "已由 {who} 忘掉"),
    "lessons": ("Lessons here · {n}", "本群的经验 · {n}"),
    "output": ("Output", "输出"),
    "since_last_review": ("Since the last review · {n} ran", "自上次审核以来 · 运行了 {n} 个步骤"),
    "earlier_steps": ("… {n} · Show details", "… 另有 {n} 个更早的步骤 · 查看详情"),
    "more_lines": ("… {n} · Show details", "… 还有 {n} 行 · 查看详情"),
    "step_n": ("Step {n}", "第 {n} 步"),
    "show_details": ("Show details", "查看详情"),
    "no_output": ("returned no output", "没有输出"),
    "result": ("Result", "结果"),
    "done_so_far": ("Done so far", "已完成"),
    "nothing_ran": ("Nothing has run yet.", "尚未执行任何步骤。"),
    "feedback": ("What should change?", "需要修改什么？"),
    "answer": ("Your answer", "你的回答"),
    "instruction": ("Your next instruction", "下一条指令"),
    "intent": ("How to apply it", "如何处理"),
    "intent_auto": ("Let Tandem read it", "由 Tandem 判断"),
    "intent_replan": ("Change the plan", "修改计划"),
    "intent_retry_step": ("Retry the step", "重试该步骤"),
    "intent_change_step": ("Change a step's values (before it runs)", "修改步骤参数（执行之前）"),
    "intent_refine_output": ("Rework the output", "重做结果"),
    "intent_approve": ("Approve", "批准"),
    "intent_cancel": ("Cancel the run", "取消运行"),
    "asked_by": ("asked by {who}", "提问者：{who}"),
    "requested_by": ("Requested by {who} · run `{run}`", "发起人：{who} · 运行 `{run}`"),
    "read_as": ("Read as: **{what}**", "理解为：**{what}**"),
    "read_change_step": ("Change step {n} before it runs", "在第 {n} 步执行前修改它"),
    "read_retry_step": ("Run step {n} again with changes", "修改后重新运行第 {n} 步"),
    "read_as_later": (
        "A later reply was read after this one: its card applies now.",
        "之后的回复已被理解，以其卡片为准。",
    ),
    "moved": (
        "⏭️ Moved: a card can be used for 14 days, so this review goes on in a fresh card posted in this thread "
        "at {at}.",
        "⏭️ 已移至新卡片：卡片只能在 14 天内操作，此审核在本话题 {at} 发布的新卡片中继续。",
    ),
    "read_as_closed": ("The run has ended: nothing waits for a correction.", "运行已结束，无需再修改。"),
    "unsure": (
        "Not sure what you meant by “{text}” (best guess: **{guess}**, {sure}% sure). Nothing changed yet.",
        "不确定“{text}”的意思（最可能：**{guess}**，把握 {sure}%）。尚未做任何更改。",
    ),
    "decisions": ("Decisions", "决定记录"),
    "outcome": ("Outcome", "结果"),
    "failed": ("Failed", "失败"),
    "working": ("Got it; working on it.", "已收到，正在处理。"),
    "applied": ("Done.", "已完成。"),
    # shorter forms of a review Feishu refused in full
    "shortened": (
        "✂️ Shortened: the whole review did not fit in one card. Everything: `tandem show {run}`.",
        "✂️ 已缩短：完整的审核内容超出卡片限制。查看全部：`tandem show {run}`。",
    ),
    "as_text": (
        "This review could not be shown as a card, so here it is as text.",
        "此审核无法以卡片显示，以下为文字版本。",
    ),
    "answer_by_reply": (
        "To answer, reply in this thread: approve, cancel, or say what to change. Or: {cli}",
        "回复本话题即可作答：批准、取消，或说明需要修改什么。也可以：{cli}",
    ),
    "answer_by_cli": ("To answer: {cli}", "作答方式：{cli}"),
    "now_yours": ("👉 {who} this now waits on you.", "👉 {who} 现在等待你处理。"),
    # list and rules
    "no_open_runs": ("No open runs here.", "本群没有进行中的运行。"),
    "waits_on_you": (" · 👉 waits on you", " · 👉 等待你处理"),
    "no_rules": (
        "No always-allow rules here: every risky step asks.",
        "本群没有始终允许规则：每个高风险步骤都会询问。",
    ),
    "rule_what": ("{tool} for {label}", "{tool}（{label}）"),
    "rule_tool_wide": ("{tool} for every target (tool-wide)", "{tool}（所有目标，整个工具）"),
    "rule_from_policy": (
        "• {what} runs without asking (set in the policy file, [rules] always_allow)",
        "• {what} 无需询问即可运行（在策略文件的 [rules] always_allow 中设置）",
    ),
    "rule_set_by": (
        "• {what} runs without asking (set by {who}; rule `{id}`)",
        "• {what} 无需询问即可运行（由 {who} 设置；规则 `{id}`）",
    ),
    "rule_widened": (" · widened to every target by {who}", " · 已由 {who} 扩大到所有目标"),
    "rule_old": (" · made before rules named their targets", " · 创建于规则区分目标之前"),
    "rule_widen_hint": (" · `rules widen {id}` covers every target", " · `rules widen {id}` 可覆盖所有目标"),
    "rules_usage": (
        "Say `rules` to list this chat's always-allow rules, `rules widen <id>` or `rules revoke <id>`.",
        "说 `规则` 列出本群的始终允许规则，或 `rules widen <id>`、`rules revoke <id>`。",
    ),
    "rule_revoked": ("Revoked: {what} asks for approval again in this chat.", "已撤销：{what} 在本群会再次请求批准。"),
    "rule_not_yours": (
        "Only {user} (who set it) or an approver can {verb} this rule. Nothing changed.",
        "只有 {user}（设置者）或审批人可以{verb}此规则。未做任何更改。",
    ),
    "rule_widened_to_all": (
        "From now on `{tool}` runs without asking in this channel for every target (widened by {who}).",
        "从现在起，`{tool}` 在本群对所有目标无需询问即可运行（由 {who} 扩大）。",
    ),
    "verb_widen": ("widen", "扩大"),
    "verb_revoke": ("revoke", "撤销"),
    # run status
    "status_planning": ("📝 Planning", "📝 规划中"),
    "status_awaiting_review": ("✋ Awaiting review", "✋ 等待审核"),
    "status_executing": ("⚙️ Executing", "⚙️ 执行中"),
    "status_done": ("✅ Done", "✅ 已完成"),
    "status_human_takeover": ("🧑‍💻 Human takeover", "🧑‍💻 人工接管"),
    "status_cancelled": ("🛑 Cancelled", "🛑 已取消"),
    "status_failed": ("❌ Failed", "❌ 失败"),
}


def say(key: str, lang: Lang, **values: object) -> str:
    """The card wording for ``key`` in ``lang``, with ``values`` filled in."""
    en, zh = WORDS[key]
    return (zh if lang == "zh" else en).format(**values)


def escape(text: str) -> str:
    """Untrusted text for a markdown element: no tags (``<at id=all>`` stays text), no stray entities."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, with a marker saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = max(limit - 24, 0)
    return f"{text[:cut]}… ({len(text) - cut} more chars)"


def at(principal: Principal) -> str:
    """A mention as Feishu card markdown shows it: a person by ``open_id``; anything else by name."""
    if principal.platform == FEISHU and principal.kind == "user":
        return f"<at id={principal.id}></at>"
    return f"@{escape(principal.id)}"


def who(entry: str) -> str:
    """A stored id (``ou_…``, a department, a terminal name) as a card mention."""
    return at(Principal.parse(entry))


def prose(text: str, limit: int = 2000) -> str:
    """Core prose for a card: escaped, clipped, its ``mention`` markers rendered as Feishu mentions."""
    return render_mentions(escape(clip(text, limit)), at)


_AT = re.compile(r"<at id=([^>\s]{1,64})></at>")


def mentioned(markdown: str) -> list[str]:
    """The ``open_id``s card markdown mentions, in order."""
    return _AT.findall(markdown)


def plain(markdown: str, names: Mapping[str, str] | None = None) -> str:
    """Card markdown as plain text (a toast shows no mentions or entities): a mention becomes ``@`` and the
    person's name where ``names`` knows it, else their id."""
    known = names or {}
    text = _AT.sub(lambda m: f"@{known.get(m.group(1), m.group(1))}", markdown)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&").replace("**", "").replace("`", "")
