"""``report`` after the mention: the chat's collaboration report as a card, in the asker's language.

The figures are the same :class:`agent.report.Report` that ``tandem report`` and Slack's
``/tandem report`` show, for this chat's runs only (a chat never sees another's).
"""

from __future__ import annotations

from agent.commands import BadPeriod
from agent.durations import spoken
from agent.models.metrics import AnchorLatency
from agent.report import Report, percent, review_waits, stamp
from feishu.deps import FeishuDeps
from feishu.elements import Card, card, md, note
from feishu.wording import Lang, escape

LABELS: dict[str, tuple[str, str]] = {
    "title": ("Tandem report", "Tandem 协作报告"),
    "period": ("This chat · {since} to {until}", "本群 · {since} 至 {until}"),
    "runs": ("**Runs:** {n} (previous period {p})", "**运行：** {n}（上一周期 {p}）"),
    "corrected": ("**Corrected runs:** {n} · {rate} ({change})", "**被纠正的运行：** {n} · {rate}（{change}）"),
    "corrections": (
        "**Corrections:** replan {a} · retry step {b} · refine output {c}",
        "**纠正：** 修改计划 {a} · 重试步骤 {b} · 重做结果 {c}",
    ),
    "retries": ("**Retries per run:** {n}", "**每次运行的重试：** {n}"),
    "takeovers": ("**Takeovers:** {n} · {rate} ({change})", "**人工接管：** {n} · {rate}（{change}）"),
    "misread": ("**Replies misread:** {n} of {of} ({rate})", "**误读的回复：** {of} 条中 {n} 条（{rate}）"),
    "rated": ("**Results rated:** 👍 {up} · 👎 {down}", "**结果评价：** 👍 {up} · 👎 {down}"),
    "wait": ("**Approval wait:** {waits}", "**等待批准：** {waits}"),
    "no_warnings": ("No warnings.", "没有警告。"),
    "too_few": (
        "Too few runs to judge: {n} this period, and warnings need at least {min}.",
        "运行次数太少，无法判断：本周期 {n} 次，警告至少需要 {min} 次。",
    ),
    "same": ("no change", "持平"),
    "up": ("up {n} points", "上升 {n} 个百分点"),
    "down": ("down {n} points", "下降 {n} 个百分点"),
    "bad_since": (
        "{error}. Try `report 7d`, `report 30d` or `report 2026-11-20`.",
        "{error}。可以试试 `report 7d`、`report 30d` 或 `report 2026-11-20`。",
    ),
    "warn_takeover": (
        "Takeover rate is {rate} ({n} of {runs} runs), over the warning level: the agent does not fit this "
        "task domain.",
        "人工接管率为 {rate}（{runs} 次运行中 {n} 次），超过警告线：这类任务不适合交给 agent。",
    ),
    "warn_correction": (
        "Correction rate is {rate} ({n} of {runs} runs), over the warning level: initial planning needs work.",
        "纠正率为 {rate}（{runs} 次运行中 {n} 次），超过警告线：初始计划需要改进。",
    ),
}


def _say(key: str, lang: Lang, **values: object) -> str:
    en, zh = LABELS[key]
    return (zh if lang == "zh" else en).format(**values)


def _change(now: float, before: float, lang: Lang) -> str:
    delta = (now - before) * 100
    if abs(delta) < 0.5:
        return _say("same", lang)
    return _say("up" if delta > 0 else "down", lang, n=f"{abs(delta):.0f}")


_REVIEWS_ZH = {
    "after_plan": "计划审核",
    "before_risky_step": "高风险步骤前的批准",
    "after_risky_step": "高风险步骤结果的检查",
    "before_result": "结果审核",
    "step_failed": "失败的步骤",
    "recovery": "中断的步骤",
    "handoff": "工具的提问",
    "takeover": "人工接管",
    "takeover_step": "接管中提议的步骤",
}


def _wait(x: AnchorLatency, lang: Lang) -> str:
    """How long one kind of review waited for its approval, in the asker's language."""
    if lang != "zh":
        return escape(review_waits(x))
    name = _REVIEWS_ZH.get(x.anchor, x.anchor)
    return f"{name}：一半在 {spoken(x.p50)} 内，九成在 {spoken(x.p90)} 内（{x.approvals} 次批准）"


def _warning(text: str, report: Report, lang: Lang) -> str:
    """A core warning in the asker's language (the core words its warnings in English)."""
    m = report.current
    if lang == "zh" and text.startswith("Takeover rate"):
        return _say("warn_takeover", lang, rate=percent(m.takeover_rate), n=m.takeovers, runs=m.runs)
    if lang == "zh" and text.startswith("Correction rate"):
        return _say("warn_correction", lang, rate=percent(m.correction_rate), n=m.corrected_runs, runs=m.runs)
    return escape(text)


def report_card(report: Report, lang: Lang) -> Card:
    """The figures, the trend against the previous period and the warnings, as a card."""
    m, p = report.current, report.previous
    c = m.corrections
    figures = [
        _say("runs", lang, n=m.runs, p=p.runs),
        _say(
            "corrected",
            lang,
            n=m.corrected_runs,
            rate=percent(m.correction_rate),
            change=_change(m.correction_rate, p.correction_rate, lang),
        ),
        _say("corrections", lang, a=c.replan, b=c.retry_step, c=c.refine_output),
        _say("retries", lang, n=f"{m.avg_retries:.2f}"),
        _say(
            "takeovers",
            lang,
            n=m.takeovers,
            rate=percent(m.takeover_rate),
            change=_change(m.takeover_rate, p.takeover_rate, lang),
        ),
    ]
    if m.free_text_decisions:
        figures.append(_say("misread", lang, n=m.overrides, of=m.free_text_decisions, rate=percent(m.misread_rate)))
    if m.results_liked or m.results_disliked:
        figures.append(_say("rated", lang, up=m.results_liked, down=m.results_disliked))
    waits = ("；" if lang == "zh" else "; ").join(_wait(x, lang) for x in m.approval_latency)
    if waits:
        figures.append(_say("wait", lang, waits=waits))
    warnings = [md(f"⚠️ **{_warning(w, report, lang)}**") for w in report.warnings]
    period = _say("period", lang, since=stamp(m.query.since), until=stamp(m.query.until))
    quiet = _say("too_few", lang, n=m.runs, min=report.min_runs) if report.too_few else _say("no_warnings", lang)
    tail = [] if report.warnings else [note(quiet)]
    template = "orange" if report.warnings else "blue"
    return card(_say("title", lang), [note(period), *warnings, md("\n".join(figures)), *tail], template=template)


async def chat_report(deps: FeishuDeps, chat: str, since: str, lang: Lang) -> Card | str:
    """``report [7d|30d|DATE]``: this chat's runs over the period, or what is wrong with the period."""
    report = await deps.usecases.report(since, chat)
    if isinstance(report, BadPeriod):
        return _say("bad_since", lang, error=escape(report.error))
    return report_card(report, lang)
