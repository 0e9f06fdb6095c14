"""Result text: the markdown summary of executed steps and its rework as feedback asks."""

from __future__ import annotations

import json
import re
from typing import Any

from agent.messages import plural
from agent.offline.vocabulary import JSON, rx

_MARKS = {"done": "✅", "failed": "❌", "skipped": "⏭️", "running": "⏳", "pending": "⏸️"}


def _params_text(params: Any) -> str:
    if not isinstance(params, dict) or not params:
        return ""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _result_lines(result: Any, limit: int = 8) -> list[str]:
    if result is None or result == "":
        return []
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… ({plural(len(lines) - limit, 'more line')})"]
    return [line if len(line) <= 200 else line[:199] + "…" for line in lines]


def _outcome(step: JSON) -> str:
    if step.get("status") == "failed":
        return f"failed: {step.get('error') or 'no error message'}"
    lines = _result_lines(step.get("result"), 1)
    return lines[0] if lines else str(step.get("status", ""))


_CJK = re.compile(r"[\u3400-\u9fff]")


def is_chinese(text: str) -> bool:
    """Whether a person wrote in Chinese (answers follow the requester's language)."""
    return bool(_CJK.search(text))


_TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "done": "Done",
        "problems": "Finished with problems",
        "partly": "Partly done",
        "nothing": "Nothing ran",
        "asked": "Asked",
        "not_done": "Not done",
        "not_run": "not run",
        "changed": "Changed on the way",
        "notes": "Notes",
        "failed": "failed",
        "no_error": "no error message",
    },
    "zh": {
        "done": "已完成",
        "problems": "已结束，有问题",
        "partly": "部分完成",
        "nothing": "没有执行任何步骤",
        "asked": "任务",
        "not_done": "未完成",
        "not_run": "未执行",
        "changed": "过程中的修改",
        "notes": "备注",
        "failed": "失败",
        "no_error": "没有错误信息",
    },
}


def _tally(steps: list[JSON], zh: bool) -> str:
    n = len(steps)
    done = sum(1 for s in steps if s.get("status") == "done")
    failed = n - done
    if zh:
        return f"执行了 {n} 步：{done} 步成功，{failed} 步失败。"
    ran = f"{n} step{'s' if n != 1 else ''} ran"
    return f"{ran}: {done} succeeded, {failed} failed."


def _gist(steps: list[JSON], zh: bool, limit: int = 3) -> str:
    """``read the payments logs and restarted payments``: what ran, in its tools' words where they have them
    (a tool's name and main values where not, and in a Chinese result)."""
    if zh:
        return _gist_zh(steps, limit)
    parts = []
    for s in steps[:limit]:
        params = s.get("params") if isinstance(s.get("params"), dict) else {}
        values = " ".join(str(v) for v in list(params.values())[:2]) if params else ""
        said = str(s.get("did") or "") if s.get("status") == "done" else ""
        failed = " failed" if s.get("status") == "failed" else ""
        parts.append(said or f"{s.get('tool')} {values}".strip() + failed)
    if len(steps) > limit:
        parts.append(plural(len(steps) - limit, "more step"))
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]


def _gist_zh(steps: list[JSON], limit: int) -> str:
    """``运行了 restart_service（payments）和 read_logs（payments，error，失败）``: a sentence, the tools' own
    words being English."""
    parts = []
    for s in steps[:limit]:
        params = s.get("params")
        values = list(params.values())[:2] if isinstance(params, dict) else []
        said = [str(v) for v in values] + (["失败"] if s.get("status") == "failed" else [])
        parts.append(f"{s.get('tool')}" + (f"（{'，'.join(said)}）" if said else ""))
    if len(steps) > limit:
        parts.append(f"另外 {len(steps) - limit} 步")
    if len(parts) == 1:
        return "运行了 " + parts[0]
    head = "、".join(parts[:-1])
    return f"运行了 {head}{'和' if head.endswith('）') else ' 和'} {parts[-1]}"


def render_summary(task: str, steps: list[JSON], notes: list[str]) -> str:
    """A readable (standard) Markdown result written from what actually ran.

    The title names the steps that ran, not the task; steps that did not run are listed
    as not done; parameters changed on the way are said. Chinese when the task is Chinese.
    """
    zh = is_chinese(task)
    t = _TEXTS["zh" if zh else "en"]
    ran = [s for s in steps if s.get("status") in ("done", "failed")]
    not_run = [s for s in steps if s.get("status") not in ("done", "failed")]
    failed = [s for s in ran if s.get("status") == "failed"]
    if not ran:
        title = t["nothing"]
    elif failed:
        title = t["problems"]
    elif not_run:
        title = t["partly"]
    else:
        title = t["done"]
    colon = "：" if zh else ": "
    head = f"**{title}{colon}{_gist(ran, zh)}{'。' if zh else '.'}**" if ran else f"**{title}**"
    lines = [head, f"{t['asked']}{colon}{task}", _tally(ran, zh) if ran else "", ""]
    for step in ran:
        mark = _MARKS.get(str(step.get("status")), "•")
        params = _params_text(step.get("params"))
        lines.append(f"{step.get('number', '?')}. {mark} `{step.get('tool')}`" + (f" ({params})" if params else ""))
        if step.get("status") == "failed":
            lines.append(f"   {t['failed']}: {step.get('error') or t['no_error']}")
        body = _result_lines(step.get("result"))
        if body:
            lines += ["```", *body, "```"]
    if not_run:
        lines += ["", f"**{t['not_done']}:**"]
        for step in not_run:
            params = _params_text(step.get("params"))
            status = str(step.get("status") or "")
            why = status if status == "skipped" else t["not_run"]
            lines.append(
                f"- {step.get('number', '?')}. `{step.get('tool')}`" + (f" ({params})" if params else "") + f": {why}"
            )
    changed = [s for s in ran if str(s.get("reason") or "").startswith("Changed ")]
    if changed:
        lines += ["", f"**{t['changed']}:**", *(f"- {s.get('number')}. {s.get('reason')}" for s in changed)]
    if notes:
        lines += ["", f"**{t['notes']}:**", *(f"- {n}" for n in notes)]
    return "\n".join(line for i, line in enumerate(lines) if line or i > 2).strip()


_WANTS: dict[str, re.Pattern[str]] = {
    "table": rx(r"\btable|tabular\b", "表格"),
    "short": rx(r"\b(?:short|shorter|brief|concise|condense|tl;?dr|too long)\b", "简短|简洁|精简|短一点|短点|太长"),
    "bullets": rx(r"\bbullets?\b|\bbullet points?\b|\blist\b", "要点|分点|列表"),
    "chinese": rx(r"\bchinese\b|\bmandarin\b", "中文"),
    "summary": rx(r"\bsummar(?:y|ise|ize)\b", "总结|摘要"),
}
_ZH_WORDS = {en: _TEXTS["zh"][key] for key, en in _TEXTS["en"].items()} | {"succeeded": "成功"}


def _clip_line(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(steps: list[JSON], body: list[str], width: int, *, full: bool = True) -> list[str]:
    """One row per step; with ``full``, the outputs a cell cannot hold follow the table, so nothing is lost."""
    if not steps:
        rows = [line.strip().lstrip("-• ") for line in body if line.strip() and not line.startswith("```")]
        return ["| Result |", "| --- |", *(f"| {r.replace('|', '/')} |" for r in rows)]
    rows = ["| # | Tool | Parameters | Outcome |", "| --- | --- | --- | --- |"]
    for s in steps:
        outcome = _clip_line(_outcome(s), width)
        cells = [str(s.get("number", "")), f"`{s.get('tool')}`", _params_text(s.get("params")), outcome]
        rows.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    if full:
        for s in steps:
            lines = _result_lines(s.get("result"), 10_000)
            if len(lines) > 1 or (lines and len(lines[0]) > width):
                rows += ["", f"{s.get('number', '?')}. `{s.get('tool')}`:", "```", *lines, "```"]
    return rows


def _around_steps(body: list[str]) -> tuple[list[str], list[str]]:
    """The lines before the step list (who asked, the tally) and the sections after it (not done, notes):
    a table replaces only the steps."""
    first = next((i for i, line in enumerate(body) if re.match(r"\d+\. ", line)), len(body))
    last = next((i for i in range(first, len(body)) if body[i].startswith("**") and body[i].endswith(":**")), len(body))
    lead = [line for line in body[:first] if line.strip()]
    tail = body[last:]
    return lead + ([""] if lead else []), ([""] if tail else []) + tail


def _digest(steps: list[JSON], body: list[str]) -> list[str]:
    """One line per step (or the key lines of the text): what ran and how it went."""
    if not steps:
        return [line for line in _key_lines(["", *body])[1:]]
    lines = []
    for s in steps:
        mark = _MARKS.get(str(s.get("status")), "•")
        lines.append(_clip_line(f"{s.get('number', '?')}. {mark} `{s.get('tool')}`: {_outcome(s)}", 140))
    return lines


def _bullets(body: list[str]) -> list[str]:
    items: list[str] = []
    for line in body:
        stripped = line.strip()
        if not stripped or stripped.startswith("```"):
            continue
        heading = len(stripped) > 2 and stripped.startswith("*") and stripped.endswith("*")
        items.append(stripped if heading else "- " + re.sub(r"^(?:\d+\.|[-•])\s*", "", stripped))
    return items


def _key_lines(lines: list[str]) -> list[str]:
    body = [line for line in lines if line.strip() and not line.startswith("```")]
    key = [line for line in body if re.match(r"\s*(?:\d+\.|[-*•|]|[✅❌⏭⏳⏸])", line)] or body[1:]
    return [_clip_line(line, 120) for line in [*body[:1], *key[:5]]]


def _left_out(steps: list[JSON], zh: bool) -> str | None:
    """What a shortened result no longer shows, so nobody takes the short one for all of it."""
    cut = [s for s in steps if len(_result_lines(s.get("result"), 10_000)) > 1]
    if not cut:
        return None
    lines = sum(len(_result_lines(s.get("result"), 10_000)) - 1 for s in cut)
    which = ", ".join(str(s.get("number", "?")) for s in cut)
    if zh:
        return f"_省略了步骤 {which} 的其余输出（{lines} 行）；说“完整结果”可再看。_"
    steps_word = "steps" if len(cut) != 1 else "step"
    return f"_Left out: the rest of the output of {steps_word} {which} ({lines} lines); ask for the full result._"


def apply_refinement(task: str, output: str, feedback: str, steps: list[JSON]) -> str:
    """``output`` reworked as the feedback asks (format, length, language), using only facts already there:
    nothing is dropped unless less was asked for, and then the answer says what was left out."""
    wants = {name for name, pattern in _WANTS.items() if pattern.search(feedback)}
    zh = "chinese" in wants or is_chinese(feedback) or is_chinese(task)  # the requester's language
    lines = output.strip().splitlines()
    header = lines[0] if lines and lines[0].startswith("*") else (f"**结果：{task}**" if zh else f"**Result: {task}**")
    body = lines[1:] if lines and lines[0] == header else lines
    brief = bool(wants & {"short", "summary"})
    if "table" in wants:
        lead, tail = _around_steps(body) if steps else ([], [])
        body = [*lead, *_table(steps, body, 60 if brief else 160, full=not brief), *tail]
    elif brief:
        body = _digest(steps, body)
    elif "bullets" in wants:
        body = _bullets(body)
    if brief:
        left = _left_out(steps, zh)
        body = [*body, *([left] if left else [])]
    if "summary" in wants:
        failed = [s for s in steps if s.get("status") == "failed"]
        names = ", ".join(str(s.get("tool")) for s in failed)
        if zh:
            gist = f"简而言之：{len(steps)} 步，{len(failed)} 步失败" + (f"（{names}）。" if failed else "。")
        else:
            gist = f"In short: {len(steps)} step{'s' if len(steps) != 1 else ''}, {len(failed)} failed" + (
                f" ({names})." if failed else "."
            )
        body = [gist, *body]
    text = "\n".join([header, *body]).strip()
    if "chinese" in wants:
        for en, zh_word in sorted(_ZH_WORDS.items(), key=lambda kv: -len(kv[0])):
            text = text.replace(en, zh_word)
    if not wants or text.strip() == output.strip():
        said = feedback.strip()
        text = f"{text}\n\n" + (f"_已按反馈修改：“{said}”。_" if zh else f"_Revised per feedback: “{said}”._")
    return text
