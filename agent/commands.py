"""The read commands (``list``, ``runs``, ``status``, ``rules``, ``lessons``, ``report``): one use case each,
returning a channel-neutral outcome that every chat platform and the terminal only render.

Who may see what is decided here, once: a chat sees the runs, rules and lessons of its own place; the terminal
(``where`` is ``None``) sees every one on its machine (see :meth:`~agent.policy.SafetyPolicy.may_see`). A run
another place owns is answered exactly like an unknown one, so a command never tells that it exists."""

from __future__ import annotations

import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

from agent.errors import ConfigError, UnknownRun
from agent.listing import RunTable, run_table
from agent.models import AuditEvent, Lesson, Rule, RunState, Status
from agent.models.metrics import MetricsQuery
from agent.outcomes import NotApplied
from agent.policy import SafetyPolicy
from agent.ports import Store
from agent.report import Report, build_report, since_time
from agent.weekly import post_now

GroupsOf = Callable[[str], Awaitable[Sequence[str]]]
"""The user groups a person belongs to (``@oncall``); resolved by the channel's directory."""

MIN_PREFIX = 4
"""How many characters of a run id a chat command needs (the terminal takes any unambiguous prefix)."""

ENDED = ("done", "cancelled", "failed")
DEFAULT_SINCE = "7d"
"""The period a report covers when the asker names none."""


async def no_groups(_: str) -> Sequence[str]:
    """Group membership where a channel knows none beyond the policy's own ``[groups]``."""
    return ()


@dataclass(frozen=True)
class RunList:
    """``list``: the unfinished runs of a place, newest first, and which of them wait on the asker."""

    runs: tuple[RunState, ...]
    waiting_on_asker: frozenset[str]

    def mine(self) -> tuple[RunState, ...]:
        return tuple(s for s in self.runs if s.id in self.waiting_on_asker)


@dataclass(frozen=True)
class RunStatus:
    """``status RUN``: the run and everything that happened to it, oldest first."""

    state: RunState
    events: tuple[AuditEvent, ...]


@dataclass(frozen=True)
class NoSuchRun:
    """``status RUN`` named no run this place may see (none, several, too short a prefix, or another place's).
    ``several``: the runs this place may see that an ambiguous prefix starts (empty in every other case)."""

    ref: str
    several: tuple[str, ...] = ()


@dataclass(frozen=True)
class RuleList:
    """``rules``: the always-allow rules in force of a place: the policy file's, then people's, oldest first."""

    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class LessonList:
    """``lessons``: the lessons in force of a place, newest first."""

    lessons: tuple[Lesson, ...]


@dataclass(frozen=True)
class BadPeriod:
    """``report PERIOD`` named no period Tandem can read; ``error`` says what is wrong with it."""

    error: str


@dataclass(frozen=True)
class ReportPosted:
    """``report --post``: the report is on its way to ``channel`` (the running bot delivers it)."""

    channel: str


class Commands:
    """The read use cases, and posting the report now (:class:`~agent.usecases.UseCases` offers them too). Needs
    only the store and the safety policy, so the terminal's read-only commands run them without a model or tools."""

    def __init__(
        self,
        store: Store,
        safety: SafetyPolicy,
        groups_of: GroupsOf = no_groups,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.store = store
        self.safety = safety
        self.groups_of = groups_of
        self.clock = clock

    async def list_runs(self, asker: str, where: str | None) -> RunList:
        """The open runs of ``where`` and those waiting on ``asker`` (as approver, assignee or requester)."""
        groups = await self.groups_of(asker)
        runs = tuple(await self.open_runs(where))
        waiting = frozenset(s.id for s in runs if self.safety.waits_on(s, asker, groups))
        return RunList(runs, waiting)

    async def runs(self, where: str | None, *, status: Status | None = None, limit: int = 50) -> RunTable:
        """Every run ``where`` may see, ended or not, newest first (the terminal's ``tandem runs``)."""
        return await run_table(self.store, self.safety, where, status=status, limit=limit)

    async def status(self, ref: str, where: str | None) -> RunStatus | NoSuchRun:
        """The run ``ref`` names, if ``where`` may see it, with its history."""
        run_id = await self.find(ref, where)
        if isinstance(run_id, NoSuchRun):
            return run_id
        state, events = await self.history(run_id)
        return RunStatus(state, tuple(events))

    async def rule_list(self, where: str) -> RuleList:
        return RuleList(tuple(await self.rules(where)))

    async def lesson_list(self, where: str | None, limit: int = 100) -> LessonList:
        return LessonList(tuple(await self.lessons(where, limit)))

    async def report(
        self,
        since: str,
        where: str | None,
        *,
        requester: str | None = None,
        channel: str | None = None,
        tool: str | None = None,
    ) -> Report | BadPeriod:
        """``report [7d|30d|DATE]``: the figures of ``where``'s runs (a chat never sees another's; the terminal,
        ``None``, sees every place's, or only ``channel``'s), or of the runs ``requester`` started, or in which a
        step of ``tool`` was reviewed or ran, against the period before."""
        now = self.clock()
        try:
            start = since_time(since or DEFAULT_SINCE, now)
        except ConfigError as exc:
            return BadPeriod(str(exc))
        place = where if where is not None else channel
        query = MetricsQuery(since=start, until=now, channel=place, requester=requester, tool=tool)
        current, previous = await self.store.metrics(query), await self.store.metrics(query.previous())
        return build_report(current, previous, self.safety.config.report)

    async def post_report(self, since: float, until: float) -> ReportPosted | NotApplied:
        """Post the report of every run started in ``[since, until)`` to the policy's ``[report] channel`` now
        (its own post, not the week's): written to the outbox, which the running bot delivers."""
        try:
            post = await post_now(self.store, self.safety.config.report, since, until, uuid.uuid4().hex[:12])
        except ConfigError as exc:
            return NotApplied(str(exc))
        return ReportPosted(post.channel)

    # --- the queries the commands (and the channels' buttons) are built from ------------------

    async def find(self, ref: str, where: str | None) -> str | NoSuchRun:
        """Which run a (possibly shortened, possibly back-quoted) id means, if exactly one is visible from
        ``where`` (a channel sees its own runs; ``None``, the terminal, sees all); the one rule every channel
        and the terminal's ``answer``, ``resume`` and ``redeliver`` find a run by. In a channel a prefix
        needs at least :data:`MIN_PREFIX` characters; nowhere does an empty one name a run (an unset ``$RUN``
        must not pick the only run there is)."""
        ref = ref.strip().strip("`")
        if not ref or (where is not None and len(ref) < MIN_PREFIX):
            return NoSuchRun(ref)
        matches = []
        for run_id in await self.store.find(ref):
            state, _ = await self.store.load(run_id)
            if self.safety.may_see(state, where):
                matches.append(run_id)
        if ref in matches:
            return ref
        if len(matches) == 1:
            return matches[0]
        return NoSuchRun(ref, tuple(matches))

    async def see(self, run_id: str, where: str | None) -> RunState | None:
        """The run, if it exists and may be shown at ``where`` (its details, e.g. a review's evidence)."""
        try:
            state, _ = await self.store.load(run_id)
        except UnknownRun:
            return None
        return state if self.safety.may_see(state, where) else None

    async def rules(self, where: str) -> list[Rule]:
        """The always-allow rules in force of ``where``: the policy file's, then people's, oldest first."""
        return [*self.safety.configured_rules(where), *await self.store.rules(where)]

    async def lessons(self, where: str | None = None, limit: int = 100) -> list[Lesson]:
        """The lessons in force of ``where`` (every place's when ``None``: the terminal), newest first."""
        return await self.store.lessons(where, limit=limit)

    async def open_runs(self, where: str | None = None, limit: int = 100) -> list[RunState]:
        """Unfinished runs, newest first, of ``where`` (every place when ``None``)."""
        states = []
        for summary in await self.store.list_runs(channel=where, limit=limit):
            if summary.status not in ENDED:
                state = (await self.store.load(summary.id))[0]
                if self.safety.may_see(state, where):
                    states.append(state)
        return states

    async def waiting_for(self, who: str, where: str | None = None, limit: int = 100) -> list[RunState]:
        """Runs whose pending review waits on ``who`` (as an approver, an assignee, or the requester)."""
        groups = await self.groups_of(who)
        return [s for s in await self.open_runs(where, limit) if self.safety.waits_on(s, who, groups)]

    async def history(self, run_id: str) -> tuple[RunState, list[AuditEvent]]:
        """The run and everything that happened to it, oldest first."""
        state, _ = await self.store.load(run_id)
        return state, await self.store.events(run_id)
