"""Lessons: what a person's correction taught, kept beyond the run so the next plan starts from it."""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import Field

from agent.models.base import Model
from agent.models.policy import Anchor

LessonIntent = Literal["replan", "retry_step", "refine_output"]
LessonKind = Literal["values", "steps", "presentation", "words"]

_WORD = re.compile(r"\w+", re.UNICODE)
_FILLER = frozenset("a an and the of to in on for at by with it its is be this that please as".split())


class StepPlace(Model):
    """A step a correction added, removed or moved: ``tool`` (with the same target), next to another tool's
    step: ``before`` it (or ``after`` it, when it came last)."""

    tool: str
    before: str | None = None
    after: str | None = None

    @property
    def next_to(self) -> str | None:
        return self.before or self.after

    @property
    def where(self) -> str:
        return f" before `{self.before}`" if self.before else f" after `{self.after}`" if self.after else ""


def says(text: str, value: Any) -> bool:
    """Whether ``text`` says ``value`` as a word of its own (``"scale payments to 2 replicas"`` says 2)."""
    said = str(value).strip()
    return bool(said) and re.search(rf"(?<!\w){re.escape(said)}(?!\w)", text, re.IGNORECASE) is not None


def wish(text: str) -> str:
    """The normalized words of a wish: ``"Show it as a TABLE, please"`` → ``"show table"``."""
    words = {w for w in _WORD.findall(text.lower()) if w not in _FILLER}
    return " ".join(sorted(words))


class Lesson(Model):
    """One thing a correction taught, as later planning uses it. A correction that changed several
    things teaches one lesson per change (see :attr:`key`).

    ``tool`` and ``target`` say what it is about (``scale_service`` of ``{"service": "payments"}``);
    ``before`` and ``after`` are the parameter the correction changed (``named``: those whose old
    value the task itself had said, so the lesson stands even where a task says that value again);
    ``added``, ``removed`` and ``moved`` the steps it put in, took out or moved. A lesson with none
    of these is a presentation wish (``intent`` ``refine_output``) or only words. ``text`` is what
    the person said. ``scope`` is the channel the run lived in (``""`` for the terminal): a lesson is
    used only there.
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
    named: list[str] = Field(default_factory=list)
    added: list[StepPlace] = Field(default_factory=list)
    removed: list[StepPlace] = Field(default_factory=list)
    moved: list[StepPlace] = Field(default_factory=list)
    text: str
    by: str
    created_at: float
    forgotten_by: str | None = None
    forgotten_at: float | None = None
    replaced_by: str | None = None

    @property
    def kind(self) -> LessonKind:
        if self.after:
            return "values"
        if self.added or self.removed or self.moved:
            return "steps"
        return "presentation" if self.intent == "refine_output" else "words"

    @property
    def places(self) -> list[StepPlace]:
        return [*self.added, *self.removed, *self.moved]

    @property
    def key(self) -> str:
        """What a later lesson must share to replace this one (in the same scope): the tool, target and
        parameter of a value; the step and the step it goes next to (added, removed or moved alike: the
        latest word on that step's place wins); the normalized words of a presentation wish."""
        about: list[Any]
        match self.kind:
            case "values":
                about = ["set", self.tool, self.target, sorted(self.after)]
            case "steps":
                about = ["step", sorted([p.tool, p.next_to or ""] for p in self.places)]
            case "presentation":
                about = ["show", wish(self.text)]
            case "words":
                about = ["said", self.tool, self.target, wish(self.text)]
        return json.dumps([self.scope, *about], sort_keys=True, default=str)

    @property
    def active(self) -> bool:
        return self.forgotten_at is None and self.replaced_by is None

    @property
    def line(self) -> str:
        """One line saying what it teaches."""
        target = " ".join(str(v) for v in self.target.values())
        where = f" for {target}" if target else ""
        if self.after:
            # "(not 2)": the value the person corrected although their task had said it, and a task may say again
            values = ", ".join(
                f"{k}={v}" + (f" (not {self.before.get(k)})" if k in self.named else "") for k, v in self.after.items()
            )
            return f"use {values} in `{self.tool}`{where}"
        if self.added:
            return f"run `{self.added[0].tool}`{self.added[0].where}{where}"
        if self.moved:
            return f"run `{self.moved[0].tool}`{self.moved[0].where}{where}"
        if self.removed:
            return f"leave out `{self.removed[0].tool}`{self.removed[0].where}{where}"
        if self.kind == "presentation":
            return f"present the result: “{self.text[:150]}”"
        return self.text[:160]

    @property
    def words(self) -> str:
        """The text full-text search indexes: what was said, the tools and the target."""
        tools = " ".join([self.tool or "", *(p.tool for p in self.places)]).replace("_", " ")
        return " ".join([self.text, tools, *(str(v) for v in self.target.values())])


class LessonUse(Model):
    """A lesson that shaped a plan, as the run and its reviews show it (and who forgot it, once forgotten)."""

    id: str
    line: str
    by: str
    at: float
    forgotten_by: str | None = None
    forgotten_at: float | None = None
