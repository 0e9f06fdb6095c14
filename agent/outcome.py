"""How a finished run ended, in one word every surface uses (card, thread, home tab, ``tandem runs``
and ``show``, every chat): a run that is ``done`` but had a step fail, left planned steps unrun, or left a part
of its task undone (:mod:`agent.not_done`), says so.

The words are those the offline summary titles its result with, so the result's heading and the status
beside it never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agent.messages import plural
from agent.models import RunState, mention

Word = Literal["done", "problems", "partly", "nothing", "cancelled", "failed"]

_EN: dict[Word, str] = {
    "done": "✅ Done",
    "problems": "⚠️ Finished with problems",
    "partly": "🟡 Partly done",
    "nothing": "⚪ Nothing ran",
    "cancelled": "🛑 Cancelled",
    "failed": "❌ Failed",
}
_ZH: dict[Word, str] = {
    "done": "✅ 已完成",
    "problems": "⚠️ 已结束，有问题",
    "partly": "🟡 部分完成",
    "nothing": "⚪ 没有执行任何步骤",
    "cancelled": "🛑 已取消",
    "failed": "❌ 失败",
}


@dataclass(frozen=True)
class Outcome:
    word: Word
    ran: int = 0
    failed: int = 0
    not_run: int = 0
    missing: tuple[str, ...] = ()  # the task's words for each part no step did ("check errors")
    by: str | None = None  # who cancelled
    why: str = ""  # what they said with it

    def label(self, zh: bool = False) -> str:
        """``⚠️ Finished with problems``."""
        return (_ZH if zh else _EN)[self.word]

    def detail(self, zh: bool = False) -> str:
        """``1 of 3 steps failed`` / ``2 planned steps not run``; empty when the word says it all."""
        if self.word == "problems":
            return (
                f"{self.ran} 步中 {self.failed} 步失败" if zh else f"{self.failed} of {plural(self.ran, 'step')} failed"
            )
        if self.word == "partly" and self.missing:
            return ("未完成：" + "；".join(self.missing)) if zh else "not done: " + "; ".join(self.missing)
        if self.word == "partly":
            return f"{self.not_run} 个计划步骤未执行" if zh else f"{plural(self.not_run, 'planned step')} not run"
        return ""

    def line(self, zh: bool = False) -> str:
        """``⚠️ Finished with problems: 1 of 3 steps failed.``; ``🛑 Cancelled by @ana: wrong cluster.``"""
        if self.word == "cancelled" and (self.by or self.why):
            why = " ".join(self.why.split())[:300]
            if zh:
                return (
                    "🛑 "
                    + (f"已由 {mention(self.by)} 取消" if self.by else "已取消")
                    + (f"：{why}" if why else "")
                    + "。"
                )
            by = f" by {mention(self.by)}" if self.by else ""
            return f"🛑 Cancelled{by}" + (f": {why.rstrip('.')}" if why else "") + "."
        detail = self.detail(zh)
        joint = " — " if self.missing else ": "  # ``🟡 Partly done — not done: check errors.``
        return self.label(zh) + (f"{joint}{detail}" if detail else "") + ("。" if zh else ".")


def outcome(state: RunState) -> Outcome | None:
    """How ``state`` ended; None while it has not."""
    if not state.finished:
        return None
    if state.phase != "done":
        if state.phase == "cancelled":
            return Outcome("cancelled", by=state.cancelled_by, why=state.cancel_reason)
        return Outcome("failed")
    steps = [*state.history, *state.plan]
    ran = [s for s in steps if s.status in ("done", "failed")]
    failed = sum(1 for s in ran if s.status == "failed")
    not_run = sum(1 for s in state.plan if s.status not in ("done", "failed"))
    if not ran:
        return Outcome("nothing")
    if failed:
        return Outcome("problems", len(ran), failed, not_run)
    if not_run or state.not_done:
        return Outcome("partly", len(ran), 0, not_run, tuple(state.not_done))
    return Outcome("done", len(ran))
