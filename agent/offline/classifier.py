"""The ``classify`` answer: a bilingual keyword reading of what a person said at a review.

The reading looks for evidence in a fixed order, each kind found with a handful of patterns run
once over the text (so reading stays linear in its length):

0. a question that asks for no change ("why restart it?", "为什么要重启？"): answered, nothing changes;
1. a cancel word; a plain approval (no change asked for, nothing negated);
2. a step named ("step 2", "第二步");
3. a presentation request (tables, sorting, length, language) at the result;
4. a change of direction: a new action, a negated one, a changed order, an added step;
5. a changed value: a number, version, channel or known value (an enum) the plan's steps take, and
   so the step it belongs to; a value most steps share (the service) changes the whole plan unless
   a step is under review;
6. "again", "retry", "再试一次" at a step;
7. anything else is vague and asked about first.

A reading that makes no sense where the reply was typed (see :data:`agent.readings.POSSIBLE`) becomes
the one the runtime would apply in its place.

``confidence`` says how much evidence there is, not a model's guess: :data:`CERTAIN` and above
(a plain approval or cancel, a value tied to one step) is sure enough to act on without asking a model.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from agent.offline.actions import ACTIONS, NEAR, concepts_of, tools_named
from agent.offline.asking import asks_why, only_asks
from agent.offline.vocabulary import JSON, PARAM_WORDS, as_words, find_word, rx, zh_number
from agent.readings import CERTAIN, impossible, nearest

_CANCEL = rx(
    r"\b(?:cancel|abort|stop|halt|forget (?:it|about it)|never ?mind|scrap (?:it|this|that)|call it off)\b",
    r"\bkill (?:it|this|the run)\b",
    "取消|停止|停下|中止|终止|算了|别做了|不做了|不要做了|放弃|别弄了",
)
_APPROVE = rx(
    r"\b(?:lgtm|looks? (?:good|fine|great|ok|okay|right|healthy)|sounds? good|good to go|go ahead|go for it|proceed"
    r"|approved?|ship(?: it)?|do it|yes|yep|yeah|yup|sure|ok|okay|confirm(?:ed)?|continue|carry on|fine|perfect"
    r"|great|good|nice|agreed?|all good|make it so|let'?s go|run it|execute|no problem|no objections?|not bad"
    r"|next|go on|move on|thanks|thx|done)\b",
    r"^\s*go\b",
    r"👍|✅|\+1|👌",
    "可以|执行|没问题|同意|好的|好|行|继续|批准|通过|确认|就这样|没毛病|冲|没意见|不错|收到|没关系|忽略",
    r"^\s*\w{1,3}吧\s*[!！。]?\s*$",
)
NOT = rx(
    r"\b(?:not|don'?t|do not|doesn'?t|no|never|isn'?t|aren'?t|can'?t|cannot|won'?t|shouldn'?t|wait|hold on|hold off)\b",
    "不|别|没|未|否",
)
_NOT_EXCUSED = rx(
    r"\bno (?:problems?|objections?|issues?|worries)\b|\bnot bad\b|\bdon'?t (?:cancel|stop|worry)\b",
    "没问题|不错|没毛病|没意见|不用改|不要取消|别取消|不用担心|没关系",
)
_QUESTION = re.compile(r"[?？]\s*$")
_HEDGE = rx(r"\b(?:hmm+|hm+|meh|huh|not sure|unsure|maybe|idk)\b|嗯|不确定|不太确定|也许|可能")
_REFINE = rx(
    r"\b(?:table|tabular|shorter|short|brief|briefer|concise|condense|summar(?:y|ise|ize)|tl;?dr|bullets?"
    r"|bullet points?|format(?:ted|ting)?|markdown|wording|rephrase|reword|longer|more details?|less detail"
    r"|in (?:chinese|english)|translate|headers?|readable|layout|presentation|sort(?:ed)?|order(?:ed)? by|group(?:ed)?"
    r"|highlight|emphasi[sz]e|bold|show only|only show|just (?:give|show) me|top|formal|status page|one-line|desc"
    r"|asc(?:ending)?|descending)\b",
    "表格|简短|简洁|精简|短一点|短点|太长|格式|总结|摘要|要点|列表|中文|英文|翻译|排版|措辞|详细|分点|排序|排|分组"
    "|突出|只显示|只看|正式|列出来|展示",
)
_APPROACH = rx(
    r"\b(?:wrong (?:approach|plan|direction|idea|strategy)|(?:different|another|other|new|better) "
    r"(?:approach|plan|way|strategy)|re-?plan|start over|rethink|makes? no sense|bad plan|add (?:a )?step)\b",
    "方向不对|方向错|换个方案|换个思路|换一个方案|重新规划|重新计划|思路不对|思路错|方案不对|方案错|计划不对|加一步|再加",
)
_ORDER = rx(r"\b(?:first|before|afterwards?)\b", "先|之前|然后|之后")
_MORE = rx(r"\b(?:also|too|as well)\b", "还要|也要|另外|顺便")
_TOO = rx(r"\b(?:too|as well)\b")
_NOUNS = frozenset({"logs", "metrics", "cache"})  # "warnings too" adds to what a step reads, not a step
_NEGATED_ACTION = rx(
    r"\b(?:don'?t|do not|dont|no need to|skip|without|never|not|instead of|rather than)\b",
    "不要|别|不用|不需要|跳过|不必|无需|而不是",
)
_CHANGE = rx(
    r"\b(?:but|however|though|except|use|should|change|set|instead|wrong|fix|make it|redo|not)\b",
    "但是|不过|只是|但|改|换|应该|不对|错|不是",
)
_AGAIN = rx(
    r"\b(?:again|retry|re-?try|re-?run|redo|one more time|once more)\b",
    "再试|重试|再来|再.{0,3}一次|重新(?!规划|计划)",
)
_DROP_STEP = rx(r"\b(?:skip|remove|drop|delete|without)\b", "去掉|删掉|删除|不要|跳过")
_EXCUSE_WITHOUT = rx(r"\bwithout (?:it|that|this)\b")
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
    r"(?:should (?:use|be)|\buse|set \w+ to|change \w+ to|make it|instead|改成|改为|换成|应该是|应该用|用)\s*(.+)$",
    re.I,
)
_VERSION = re.compile(r"(?<![A-Za-z0-9.])v?\d+\.\d+(?:\.\d+)?(?![A-Za-z0-9.])", re.I)
_CHANNEL = re.compile(r"(?<![A-Za-z0-9_#])#[A-Za-z0-9_-]+")
_NUMBER = re.compile(r"(?<![A-Za-z0-9.])\d+(?![\d.])|[零一二两三四五六七八九十]+(?=个|条|行|分钟|小时|副本)")
_AFTER_NUMBER = 12  # how far after a number its unit word may be ("5 replicas", "50 log lines")
_BEFORE_NUMBER = 32  # how far before it its parameter may be named ("replicas should be 5")


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


__all__ = ["CERTAIN", "NOT", "cancels", "classify_text", "step_reference"]


def _reading(intent: str, target: Any, reason: str, confidence: float, fix: str | None = None) -> JSON:
    return {"intent": intent, "target_step": target, "reason": reason, "confidence": confidence, "suggested_fix": fix}


def _vague(ctx: JSON, reason: str, confidence: float) -> JSON:
    anchor = ctx.get("anchor")
    if anchor == "before_result":
        return _reading("refine_output", None, f"{reason}; at the result, so reworking the result", confidence)
    if anchor in ("before_risky_step", "after_risky_step", "step_failed", "takeover_step"):
        return _reading("retry_step", ctx.get("step"), f"{reason}; about the step under review", confidence)
    return _reading("replan", None, f"{reason}; asking for a new plan", confidence)


def _steps(ctx: JSON) -> list[JSON]:
    return [s for s in ctx.get("steps") or [] if isinstance(s, dict)]


def _new_direction(text: str, ctx: JSON) -> str | None:
    """Why the text changes the plan's direction (None if it does not)."""
    if _APPROACH.search(text):
        return "asks for a different approach"
    named = tools_named(text)
    if not named:
        return None
    if _action_after(_NEGATED_ACTION, _EXCUSE_WITHOUT.sub(" ", text)):
        return "does not want one of the actions"
    if _ORDER.search(text):
        return "changes the order of the work"
    if _action_after(_MORE, text) or _too_after_action(text):
        return "adds to the work"
    planned: set[str] = set().union(set(), *(concepts_of(str(s.get("tool"))) for s in _steps(ctx)))
    if planned & {"logs", "metrics"}:
        planned.add("check")  # "restart it, then check the logs": reading them is the check
    if named - planned:
        return "asks for another action"
    return None


def _too_after_action(text: str) -> bool:
    """True when "too" or "as well" closely follows an action word ("tell #releases too")."""
    lowered = as_words(text)
    actions = (m for m in ACTIONS.finditer(lowered) if str(m.lastgroup).removesuffix("_zh") not in _NOUNS)
    return any(_TOO.search(lowered, m.end(), m.end() + NEAR) for m in actions)


def _action_after(words: re.Pattern[str], text: str) -> bool:
    """True when an action word follows one of ``words`` closely ("don't restart", "also check")."""
    lowered = as_words(text)
    return any(ACTIONS.search(lowered, m.end(), m.end() + NEAR) for m in words.finditer(text))


def _values(text: str, ctx: JSON) -> list[tuple[str, str]]:
    """The (parameter, value) pairs the text names that a planned step could take, in the text's order."""
    found: list[tuple[int, str, str]] = []
    lowered = as_words(text)
    params = {str(k) for s in _steps(ctx) for k in (s.get("params") or {})}
    known = tuple((str(p), str(v)) for p, values in (ctx.get("known") or {}).items() if p in params for v in values)
    if known:
        pattern, spelled = _known_pattern(known)
        for m in pattern.finditer(lowered):
            param, value = spelled[" ".join(str(m.group(m.lastindex or 0)).split())]
            found.append((m.start(), param, value))
    if "version" in params:
        found += [(m.start(), "version", m.group()) for m in _VERSION.finditer(text)]
    if "channel" in params:
        found += [(m.start(), "channel", m.group()) for m in _CHANNEL.finditer(text)]
    numeric = [p for p in sorted(params) if _is_number_param(p, ctx)]
    for match in _NUMBER.finditer(_VERSION.sub(" ", _STEP_REF.sub(" ", text))):
        near = lowered[match.end() : match.end() + _AFTER_NUMBER]
        before = lowered[max(0, match.start() - _BEFORE_NUMBER) : match.start()]
        named = [p for p in numeric if any(find_word(near, w) >= 0 or find_word(before, w) >= 0 for w in _words(p))]
        if not named and any(find_word(near, w) >= 0 for p in PARAM_WORDS if p not in numeric for w in _words(p)):
            continue  # "2 replicas still starting" in a plan that sets no replicas: not a value for it
        held = [p for p in numeric if p in _params_of(ctx.get("step"), ctx)]
        options = named or (numeric if len(numeric) == 1 else held if len(held) == 1 else [])
        if options:
            param = options[0]
            found.append((match.start(), param, str(zh_number(match.group()) or match.group())))
    return [(param, value) for _, param, value in sorted(found)]


@cache
def _known_pattern(known: tuple[tuple[str, str], ...]) -> tuple[re.Pattern[str], dict[str, tuple[str, str]]]:
    """One pattern for every known value (``error_rate`` also as "error rate", "error-rate"; a plural also
    as its singular) in lowercased text, and which (parameter, value) each spelling stands for."""
    spelled: dict[str, tuple[str, str]] = {}
    for param, value in known:
        low = value.lower()
        for form in (
            low,
            low.replace("_", " "),
            low.replace("_", "-"),
            low[:-1] if low.endswith("s") and len(low) > 4 else low,
        ):
            spelled.setdefault(form, (param, value))
    ascii_forms = sorted((f for f in spelled if f.isascii()), key=len, reverse=True)
    other = sorted((f for f in spelled if not f.isascii()), key=len, reverse=True)
    forms = "|".join(re.escape(f).replace(r"\ ", r"\s+") for f in ascii_forms)
    parts = [rf"(?<![a-z0-9])({forms})(?:s|es|ed|d|ing)?(?![a-z0-9])"] if ascii_forms else []
    parts += [f"({'|'.join(re.escape(f) for f in other)})"] if other else []
    return re.compile("|".join(parts) or "(?!)"), spelled


def _params_of(number: Any, ctx: JSON) -> set[str]:
    return {str(k) for s in _steps(ctx) if s.get("number") == number for k in (s.get("params") or {})}


def _words(param: str) -> tuple[str, ...]:
    return (param.replace("_", " "), *PARAM_WORDS.get(param, ()))


def _is_number_param(param: str, ctx: JSON) -> bool:
    return any(
        isinstance(v, int) and not isinstance(v, bool)
        for s in _steps(ctx)
        for k, v in (s.get("params") or {}).items()
        if k == param
    )


def _value_change(values: list[tuple[str, str]], ctx: JSON) -> tuple[int | None, str | None]:
    """The step a changed value belongs to (None: the whole plan), and the new value."""
    steps = _steps(ctx)
    current = {str(v).lower() for s in steps for v in (s.get("params") or {}).values()}
    fresh = [(p, v) for p, v in values if v.lower() not in current] or values
    param, value = fresh[-1] if len(fresh) > 1 and fresh[0][1].lower() in current else fresh[0]
    holders = [int(s["number"]) for s in steps if param in (s.get("params") or {})]
    focus = ctx.get("step")
    if focus is not None and focus in holders and ctx.get("anchor") != "before_result":
        return int(focus), value
    if len(holders) == 1:
        return holders[0], value
    return None, value


def classify_text(text: str, ctx: JSON) -> JSON:
    """The heuristic reading of a person's words at a review (the classifier's JSON), possible at its anchor."""
    reading = _classify(text, ctx)
    anchor, step = str(ctx.get("anchor")), ctx.get("step")
    numbers = [int(s["number"]) for s in _steps(ctx) if isinstance(s.get("number"), int)]
    target = reading["target_step"]
    if target is not None and target not in numbers:
        reading["target_step"] = target = None
    if impossible(reading["intent"], target, anchor, step, numbers) is not None:
        kind = nearest(reading["intent"], anchor, step)
        if kind == "retry_step" and target is None and step is None:
            kind = "replan"
        reading["intent"] = kind
        reading["target_step"] = (target or step) if kind == "retry_step" else None
    return reading


def _question(clean: str, ctx: JSON, values: list[tuple[str, str]]) -> JSON | None:
    """A question that asks for no change, about the step it names (or the one under review)."""
    current = {str(v).lower() for s in _steps(ctx) for v in (s.get("params") or {}).values()}
    fresh = any(v.lower() not in current for _, v in values)
    if not (asks_why(clean) or (only_asks(clean) and not fresh)):
        return None
    steps = _steps(ctx)
    target = step_reference(clean, len(steps))
    if target is None:
        named = tools_named(clean)
        about = [int(s["number"]) for s in steps if named & concepts_of(str(s.get("tool")))]
        holding = {int(s["number"]) for s in steps for p, v in values if str((s.get("params") or {}).get(p)) == v}
        about = about or sorted(holding)
        target = about[0] if len(about) == 1 else ctx.get("step")
    sure = 0.9 if _QUESTION.search(clean) else 0.8
    return _reading("question", target, "asks about the run; nothing changes", sure)


def _classify(text: str, ctx: JSON) -> JSON:
    clean = " ".join(text.strip().split())
    steps = _steps(ctx)
    anchor = ctx.get("anchor")
    at_step = anchor in ("before_risky_step", "after_risky_step", "step_failed", "takeover_step", "recovery")
    target = step_reference(clean, len(steps))
    fix_match = _FIX.search(clean)
    fix = fix_match.group(1).strip(" .。") if fix_match else None
    approves = _approves(clean)
    changes = bool(_CHANGE.search(_NOT_EXCUSED.sub(" ", clean)))
    again = bool(_AGAIN.search(clean))
    refine = bool(_REFINE.search(clean))
    direction = _new_direction(clean, ctx)
    values = _values(clean, ctx)
    hedged = bool(_HEDGE.search(clean)) or bool(_QUESTION.search(clean))

    if (asked := _question(clean, ctx, values)) is not None:
        return asked
    if cancels(clean) and target is None and direction is None:
        return _reading("cancel", None, "asked to stop the run", 0.95)
    if approves and not (changes or again or refine or direction or values or target or hedged):
        return _reading("approve", None, "agrees to go on", 0.95)
    if target is not None:
        if _DROP_STEP.search(clean):
            return _reading("replan", target, f"wants step {target} out of the plan", 0.85, fix)
        if direction and not values:
            return _reading("replan", None, f"changes the plan around step {target}", 0.85, fix)
        value = _value_change(values, ctx)[1] if values else None
        return _reading("retry_step", target, f"names step {target}", 0.9, value or fix)
    if refine and (anchor == "before_result" or not (values or direction or again)):
        sure = 0.9 if anchor == "before_result" else 0.8
        return _reading("refine_output", None, "asks to change how the result is presented", sure, fix)
    if direction:
        return _reading("replan", None, direction, 0.85, fix)
    if values:
        step, value = _value_change(values, ctx)
        if step is None:
            return _reading("replan", None, f"changes {value} across the plan", 0.85, value)
        return _reading("retry_step", step, f"asks for {value} in step {step}", 0.9, value)
    if again and (at_step or ctx.get("step") is not None):
        return _reading("retry_step", ctx.get("step"), "asks to run the step again", 0.9, fix)
    if approves and not hedged and not changes:
        return _reading("approve", None, "agrees to go on", 0.8)
    if hedged and not changes:
        return _vague(ctx, "unsure what is asked", 0.3)
    if _APPROVE.search(clean) or changes or NOT.search(clean):
        return _vague(ctx, "disagrees without saying what to change", 0.45)
    return _vague(ctx, "no clear instruction found", 0.3)
