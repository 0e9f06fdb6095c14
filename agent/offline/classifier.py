"""The ``classify`` answer: a bilingual keyword reading of what a person said at a review."""

from __future__ import annotations

import re
from typing import Any

from agent.offline.vocabulary import JSON, PARAM_WORDS, as_words, find_word, rx, zh_number

_CANCEL = rx(
    r"\b(?:cancel|abort|stop|halt|forget (?:it|about it)|never ?mind|scrap (?:it|this|that)|call it off)\b",
    r"\bkill (?:it|this|the run)\b",
    "取消|停止|停下|中止|终止|算了|别做了|不做了|不要做了|放弃|别弄了",
)
_APPROVE = rx(
    r"\b(?:lgtm|looks? (?:good|fine|great|ok|okay|right)|sounds? good|good to go|go ahead|go for it|proceed|approved?"
    r"|ship it|do it|yes|yep|yeah|yup|sure|ok|okay|confirm(?:ed)?|continue|carry on|fine|perfect|great|agreed?"
    r"|all good|make it so|let'?s go|run it|execute|no problem|no objections?|not bad)\b",
    r"👍|✅|\+1|👌",
    "可以|执行|没问题|同意|好的|好|行|继续|批准|通过|确认|就这样|没毛病|冲|没意见|不错",
)
NOT = rx(
    r"\b(?:not|don'?t|do not|doesn'?t|no|never|isn'?t|aren'?t|can'?t|cannot|won'?t|shouldn'?t|wait|hold on|hold off)\b",
    "不|别|没|未|否",
)
_NOT_EXCUSED = rx(
    r"\bno (?:problems?|objections?|issues?|worries)\b|\bnot bad\b|\bdon'?t (?:cancel|stop|worry)\b",
    "没问题|不错|没毛病|没意见|不用改|不要取消|别取消|不用担心",
)
_REFINE = rx(
    r"\b(?:table|tabular|shorter|short|brief|briefer|concise|condense|summar(?:y|ise|ize)|tl;?dr|bullets?"
    r"|bullet points?|format(?:ted|ting)?|markdown|wording|rephrase|reword|longer|more details?|less detail"
    r"|in (?:chinese|english)|translate|headers?|readable|layout|presentation)\b",
    "表格|简短|简洁|精简|短一点|短点|太长|格式|总结|摘要|要点|列表|中文|英文|翻译|排版|措辞|详细|分点",
)
_REPLAN = rx(
    r"\b(?:wrong (?:approach|plan|direction|idea|strategy|service)|(?:different|another|other|new|better) "
    r"(?:approach|plan|way|strategy)|re-?plan|start over|rethink|instead|rather|makes? no sense|bad plan)\b",
    r"\bnot\s+[\w.-]+\s*[,;，]\s*(?:but\s+)?[\w.-]+",
    r"\b(?:don'?t|do not|no need to|skip|without)\s+"
    r"(?!proceed|go\b|do it|approve|continue|ship|execute|run it|cancel|stop|worry)\w+",
    "方向不对|换个方案|换个思路|换一个方案|重新规划|重新计划|重新做|思路不对|方案不对|计划不对|不是.+(?:而是|是)|而是"
    "|不要(?:重启|部署|发布|回滚|扩容|缩容|清)|别(?:重启|部署|发布|回滚|扩容|缩容|清)|跳过|不用(?:重启|部署|发布|回滚)",
)
_PARAM = rx(
    r"\b(?:param(?:eter)?s?|arguments?|args?|values?|replicas?|version|region|zone|channel|count|limit|minutes?"
    r"|typo|wrong (?:version|value|number|region|channel|count|param\w*|replicas?)|should (?:use|be)"
    r"|set \w+ to|change \w+ to|use)\b",
    r"\d",
    "参数|版本|副本|数量|区域|频道|改成|改为|换成|应该是|应该用|写错",
)
_COMPLAINT = rx(r"\b(?:wrong|bad|incorrect|no|nope|not|broken|hmm)\b", "不对|不行|不好|有问题|错")
_CHANGE = rx(
    r"\b(?:but|however|though|except|use|should|change|set|instead|wrong|fix)\b", "但是|不过|只是|但|改|换|应该|不对|错"
)
_DROP_STEP = rx(r"\b(?:skip|remove|drop|delete|without)\b", "去掉|删掉|删除|不要|跳过")
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7}
_ORDINALS |= {"eighth": 8, "ninth": 9, "tenth": 10}
_CARDINALS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
_STEP_REF = re.compile(
    r"\bstep\s*(?:#\s*)?(?P<num>\d+|one|two|three|four|five|six|seven|eight|nine|ten)\b"
    r"|\b(?P<ord>first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|last|\d+(?:st|nd|rd|th))\s+step\b"
    r"|第\s*(?P<zh>[0-9零一二两三四五六七八九十]+)\s*步|步骤\s*(?P<zh2>[0-9零一二两三四五六七八九十]+)|(?P<zhlast>最后一步)",
    re.I,
)
_FIX = re.compile(
    r"(?:should (?:use|be)|\buse|set \w+ to|change \w+ to|instead|改成|改为|换成|应该是|应该用|用)\s*(.+)$", re.I
)


def step_reference(text: str, total: int) -> int | None:
    found = _STEP_REF.search(text)
    if not found:
        return None
    if found.group("zhlast"):
        return total or None
    if found.group("num"):
        raw = found.group("num").lower()
        return int(raw) if raw.isdigit() else _CARDINALS.get(raw, 10)
    if found.group("ord"):
        raw = found.group("ord").lower()
        if raw == "last":
            return total or None
        return _ORDINALS.get(raw) or int(re.sub(r"\D", "", raw))
    return zh_number(found.group("zh") or found.group("zh2") or "")


def _approves(text: str) -> bool:
    if not _APPROVE.search(text):
        return False
    return not NOT.search(_NOT_EXCUSED.sub(" ", text))


def cancels(text: str) -> bool:
    """A cancel word ("stop", "取消") that is not negated just before it ("don't stop")."""
    found = _CANCEL.search(text)
    if not found:
        return False
    return not NOT.search(text[max(0, found.start() - 12) : found.start()])


def _param_target(text: str, ctx: JSON) -> int | None:
    if ctx.get("step") is not None and ctx.get("anchor") in ("before_risky_step", "after_risky_step", "step_failed"):
        return int(ctx["step"])
    lowered = as_words(text)
    for step in ctx.get("steps", []):
        for key in step.get("params") or {}:
            name = str(key).lower()
            if any(find_word(lowered, w) >= 0 for w in (name.replace("_", " "), *PARAM_WORDS.get(name, ()))):
                return int(step["number"])
    step = ctx.get("step")
    return int(step) if step is not None else None


def _vague(ctx: JSON, reason: str, confidence: float) -> JSON:
    anchor = ctx.get("anchor")
    if anchor == "before_result":
        return _reading("refine_output", None, f"{reason}; at the result, so reworking the result", confidence)
    if anchor in ("before_risky_step", "after_risky_step", "step_failed", "takeover_step"):
        return _reading("retry_step", ctx.get("step"), f"{reason}; about the step under review", confidence)
    return _reading("replan", None, f"{reason}; asking for a new plan", confidence)


def _reading(intent: str, target: Any, reason: str, confidence: float, fix: str | None = None) -> JSON:
    return {"intent": intent, "target_step": target, "reason": reason, "confidence": confidence, "suggested_fix": fix}


def classify_text(text: str, ctx: JSON) -> JSON:
    """The heuristic reading of a person's words at a review (the classifier's JSON)."""
    clean = " ".join(text.strip().split())
    steps = ctx.get("steps") or []
    target = step_reference(clean, len(steps))
    fix_match = _FIX.search(clean)
    fix = fix_match.group(1).strip(" .。") if fix_match else None
    replan = bool(_REPLAN.search(_NOT_EXCUSED.sub(" ", clean)))
    refine = bool(_REFINE.search(clean))
    approves = _approves(clean)
    changes = approves and bool(_CHANGE.search(clean))  # "looks good, but use 3 replicas"
    if cancels(clean) and target is None and not replan:
        return _reading("cancel", None, "asked to stop the run", 0.9)
    if target is not None and not (approves and not changes):
        if _DROP_STEP.search(clean):
            return _reading("replan", target, f"wants step {target} out of the plan", 0.8, fix)
        return _reading("retry_step", target, f"names step {target}", 0.85, fix)
    if refine and ctx.get("anchor") == "before_result":
        return _reading("refine_output", None, "asks to change how the result is presented", 0.85, fix)
    if replan:
        return _reading("replan", None, "asks for a different approach", 0.8, fix)
    if _PARAM.search(clean) and (not approves or changes):
        return _reading("retry_step", _param_target(clean, ctx), "asks for different parameter values", 0.7, fix)
    if refine:
        return _reading("refine_output", None, "asks to change how the result is presented", 0.8, fix)
    if approves:
        return _reading("approve", None, "agrees to go on", 0.9)
    if _APPROVE.search(clean) or _COMPLAINT.search(clean):
        return _vague(ctx, "disagrees without saying what to change", 0.45)
    return _vague(ctx, "no clear instruction found", 0.3)
