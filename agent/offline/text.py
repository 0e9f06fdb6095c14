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


def render_summary(task: str, steps: list[JSON], notes: list[str]) -> str:
    """A readable markdown result from executed steps (tool, params, result or error)."""
    counts = {s: sum(1 for step in steps if step.get("status") == s) for s in ("done", "failed", "skipped")}
    title = "Finished with problems" if counts["failed"] else "Done"
    tally = f"{plural(len(steps), 'step')}: {counts['done']} succeeded, {counts['failed']} failed"
    tally += f", {counts['skipped']} skipped." if counts["skipped"] else "."
    lines = [f"*{title}: {task}*", tally, ""]
    for step in steps:
        mark = _MARKS.get(str(step.get("status")), "•")
        params = _params_text(step.get("params"))
        lines.append(f"{step.get('number', '?')}. {mark} `{step.get('tool')}`" + (f" ({params})" if params else ""))
        if step.get("status") == "failed":
            lines.append(f"   failed: {step.get('error') or 'no error message'}")
        body = _result_lines(step.get("result"))
        if body:
            lines += ["```", *body, "```"]
    if notes:
        lines += ["", "*Notes:*", *(f"- {n}" for n in notes)]
    return "\n".join(lines).strip()


_WANTS: dict[str, re.Pattern[str]] = {
    "table": rx(r"\btable|tabular\b", "表格"),
    "short": rx(r"\b(?:short|shorter|brief|concise|condense|tl;?dr|too long)\b", "简短|简洁|精简|短一点|短点|太长"),
    "bullets": rx(r"\bbullets?\b|\bbullet points?\b|\blist\b", "要点|分点|列表"),
    "chinese": rx(r"\bchinese\b|\bmandarin\b", "中文"),
    "summary": rx(r"\bsummar(?:y|ise|ize)\b", "总结|摘要"),
}
_ZH_WORDS = {"Finished with problems": "完成（有问题）", "Done": "完成", "succeeded": "成功", "failed": "失败"}
_ZH_WORDS |= {"skipped": "跳过", "Notes": "备注"}
_ZH_STEPS = re.compile(r"\b(\d+) steps?\b")


def _clip_line(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _table(steps: list[JSON], body: list[str], width: int) -> list[str]:
    if not steps:
        rows = [line.strip().lstrip("-• ") for line in body if line.strip() and not line.startswith("```")]
        return ["| Result |", "| --- |", *(f"| {_clip_line(r, width).replace('|', '/')} |" for r in rows)]
    rows = ["| # | Tool | Parameters | Outcome |", "| --- | --- | --- | --- |"]
    for s in steps:
        outcome = _clip_line(_outcome(s), width)
        cells = [str(s.get("number", "")), f"`{s.get('tool')}`", _params_text(s.get("params")), outcome]
        rows.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    return rows


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


def apply_refinement(task: str, output: str, feedback: str, steps: list[JSON]) -> str:
    """``output`` reworked as the feedback asks (format, length, language), using only facts already there."""
    wants = {name for name, pattern in _WANTS.items() if pattern.search(feedback)}
    lines = output.strip().splitlines()
    header = lines[0] if lines and lines[0].startswith("*") else f"*Result: {task}*"
    body = lines[1:] if lines and lines[0] == header else lines
    brief = bool(wants & {"short", "summary"})
    if "table" in wants:
        body = _table(steps, body, 60 if brief else 160)
    elif brief:
        body = _digest(steps, body)
    elif "bullets" in wants:
        body = _bullets(body)
    if "summary" in wants:
        failed = [s for s in steps if s.get("status") == "failed"]
        gist = f"{plural(len(steps), 'step')}, {len(failed)} failed" + (
            f" ({', '.join(str(s.get('tool')) for s in failed)})." if failed else "."
        )
        body = [f"In short: {gist}", *body]
    text = "\n".join([header, *body]).strip()
    if "chinese" in wants:
        text = _ZH_STEPS.sub(r"\1 步", text)
        for en, zh in _ZH_WORDS.items():
            text = text.replace(en, zh)
        text = f"*结果摘要*（任务：{task}）\n{text}"
    if not wants or text.strip() == output.strip():
        text = f"{text}\n\n_Revised per feedback: “{feedback.strip()}”._"
    return text
