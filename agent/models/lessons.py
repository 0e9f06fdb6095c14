"""Lessons: what a person's correction taught, kept beyond the run so the next plan starts from it."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import Field

from agent.models.base import _Model
from agent.models.policy import Anchor

LessonIntent = Literal["replan", "retry_step", "refine_output"]


class AddedStep(_Model):
    """A step a correction added to the plan: ``tool`` (with the same target), put ``before`` another tool's
    step (or ``after`` one, when it came last)."""

    tool: str
    before: str | None = None
    after: str | None = None


class Lesson(_Model):
    """One applied correction, as later planning uses it.

    ``tool`` and ``target`` say what it is about (``scale_service`` of ``{"service": "payments"}``);
    ``before`` and ``after`` are the parameters the correction changed, ``added`` the steps it
    added. ``text`` is what the person said. ``scope`` is the channel the run lived in (``""``
    for the terminal): a lesson is used only there.
    """

    id: str
    run_id: str
    scope: str = ""
    anchor: Anchor
    intent: LessonIntent
    tool: str | None = None
    target: dict[str, Any] = Field(default_factory=dict)
    before: dict[str, Any] = Field(default_factory=dict)
    after: dict[str, Any] = Field(default_factory=dict)
    added: list[AddedStep] = Field(default_factory=list)
    text: str
    by: str
    created_at: float
    forgotten_by: str | None = None
    forgotten_at: float | None = None
    replaced_by: str | None = None

    @property
    def key(self) -> str:
        """What a later lesson must share to replace this one: scope, tool, target and the parameters changed
        (or, with none, the steps added)."""
        about: list[str] = sorted(self.after) or sorted(f"+{a.tool}" for a in self.added)
        return json.dumps([self.scope, self.tool, self.target, about], sort_keys=True, default=str)

    @property
    def active(self) -> bool:
        return self.forgotten_at is None and self.replaced_by is None

    @property
    def line(self) -> str:
        """One line saying what it teaches."""
        target = " ".join(str(v) for v in self.target.values())
        where = f" for {target}" if target else ""
        if self.after:
            values = ", ".join(f"{k}={v}" for k, v in self.after.items())
            return f"use {values} in `{self.tool}`{where}"
        if self.added:
            added = self.added[0]
            place = f" before `{added.before}`" if added.before else f" after `{added.after}`" if added.after else ""
            return f"run `{added.tool}`{place}{where}"
        return self.text[:160]

    @property
    def words(self) -> str:
        """The text full-text search indexes: what was said, the tool and the target."""
        tools = " ".join([self.tool or "", *(a.tool for a in self.added)]).replace("_", " ")
        return " ".join([self.text, tools, *(str(v) for v in self.target.values())])


class LessonUse(_Model):
    """A lesson a plan was made with, as the run and its reviews show it."""

    id: str
    line: str
    by: str
    at: float
