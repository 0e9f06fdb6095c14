"""The seams between the loop and the outside: the model, storage, channels, the ops world.

The runtime depends on these protocols only; ``storage/``, ``bot/`` and the CLI
provide the implementations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from agent.models import (
    Answered,
    AuditEvent,
    Claim,
    Delivery,
    DueReview,
    Effect,
    Event,
    GateDecision,
    Lease,
    LeaseClaim,
    Lesson,
    Loaded,
    Outbound,
    Outgoing,
    PlannedStep,
    PostedMessage,
    ProposedStep,
    PruneCounts,
    Reading,
    Review,
    ReviewRecord,
    Rule,
    RuleSuspension,
    RunState,
    RunSummary,
    ScheduledPost,
    Step,
    TakeoverReading,
)
from agent.models.inbox import Inbound
from agent.models.metrics import Metrics, MetricsQuery
from agent.models.tokens import ApiToken, AskedRecord, TaskRecord
from agent.tools import ToolRegistry

Purpose = Literal["plan", "revise", "summarize", "refine", "classify", "propose"]


class LLMRequest(BaseModel):
    """One chat completion the loop needs.

    ``messages`` is what a real model sees (OpenAI chat format). ``context`` holds
    the same facts as structured data, so the offline model can answer without
    parsing prose. A model answers with the message content (a JSON object as text).
    """

    model_config = ConfigDict(defer_build=True)  # built when the loop first asks a model

    purpose: Purpose
    messages: list[dict[str, str]]
    context: dict[str, Any] = Field(default_factory=dict)
    answer_schema: dict[str, Any] | None = None
    """The JSON schema of the answer (enums included), for models that can be held to one."""


class ChatModel(Protocol):
    name: str

    async def complete(self, request: LLMRequest) -> str: ...


class ClassifyContext(BaseModel):
    model_config = ConfigDict(defer_build=True)

    task: str
    anchor: str
    steps: list[Step] = Field(default_factory=list)
    step: int | None = None
    output: str | None = None
    known: dict[str, list[str]] = Field(default_factory=dict)
    """Parameters of the plan's tools whose values are known (enums), with those values."""


class Brain(Protocol):
    """The LLM-backed decisions the loop makes. Implemented by ``agent.brain.LLMBrain``."""

    async def plan(
        self,
        task: str,
        tools: ToolRegistry,
        *,
        feedback: list[str],
        rejected: list[PlannedStep],
        completed: list[Step],
        max_steps: int,
        ask_below: float = 0.0,
        lessons: Sequence[Lesson] = (),
    ) -> list[ProposedStep]:
        """A validated plan, made with what ``lessons`` (from earlier corrections) teach (raises PlanError
        when none can be had; PlannerQuestion when the
        planner is less sure than ``ask_below`` and asks a person instead; NothingToDo when no tool can do
        any part of the task)."""
        ...

    async def revise_step(
        self, task: str, step: Step, tools: ToolRegistry, *, feedback: str, suggested_fix: str | None
    ) -> dict[str, Any]:
        """New, validated params for a step (raises ReviseError)."""
        ...

    async def summarize(self, task: str, steps: list[Step], notes: list[str]) -> str: ...

    async def refine(self, task: str, output: str, feedback: str, steps: list[Step]) -> str: ...

    async def classify(self, text: str, context: ClassifyContext) -> Reading:
        """Never raises: unreadable model output falls back to retry_step."""
        ...

    async def propose(self, instruction: str, task: str, steps: list[Step], tools: ToolRegistry) -> TakeoverReading:
        """Human takeover: turn one instruction into at most one step."""
        ...


class RunsStore(Protocol):
    """Runs and their audit history. Every write is one transaction; a backend must keep
    optimistic concurrency (``commit`` against a stale version raises ConcurrentUpdate and
    writes nothing) and answer a review at most once (StaleDecision names who answered first)."""

    async def create(
        self,
        state: RunState,
        events: list[AuditEvent],
        opened: Review | None = None,
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
    ) -> int:
        """Store a new run at version 1 (with its first review, outbox rows and step lease), or raise
        :class:`~agent.errors.RunExists`, writing nothing, when its id is taken."""
        ...

    async def commit(
        self,
        state: RunState,
        version: int,
        events: list[AuditEvent],
        *,
        opened: Review | None = None,
        answered: Answered | None = None,
        closed: str | None = None,
        reschedule: bool = False,
        rules: Sequence[Rule] = (),
        lessons: Sequence[Lesson] = (),
        suspended: Sequence[RuleSuspension] = (),
        outbox: Outbound | None = None,
        lease: LeaseClaim | None = None,
        durable: bool = True,
    ) -> int:
        """Persist one transition read at ``version``; returns the new version.
        ``answered`` is (review id, by, at, answer); ``lease`` (owner, until) or None to clear it.
        ``durable=False``: committed and seen by all like any other, but the call need not wait for
        the disk; the next durable write (by anyone, to the database) takes it to disk with it. Its
        ``outbox`` messages are kept back (held, yet written) until the run's next durable commit,
        which gives them out before its own, a card update last; or :meth:`release_outgoing`."""
        ...

    async def load(self, run_id: str) -> Loaded:
        """The run and its version (raises UnknownRun)."""
        ...

    async def find(self, prefix: str) -> list[str]:
        """Ids of runs starting with ``prefix`` (at most 3: enough to tell it is ambiguous)."""
        ...

    async def events(self, run_id: str) -> list[AuditEvent]: ...

    async def list_runs(
        self, *, status: str | None = None, channel: str | None = None, limit: int = 50
    ) -> list[RunSummary]:
        """Newest first."""
        ...

    async def runs_in_flight(self) -> list[str]:
        """Runs that were working (not finished, not waiting on a person)."""
        ...

    async def lease(self, run_id: str) -> Lease | None: ...

    async def version(self, run_id: str) -> int | None:
        """The run's version as stored now (None: no such run); a cheap look whether it moved on."""
        ...

    async def renew_lease(self, run_id: str, owner: str, until: float) -> bool:
        """False when ``owner`` no longer holds the run's lease."""
        ...

    async def append_events(self, run_id: str, events: list[AuditEvent], outbox: Outbound | None = None) -> None: ...

    async def run_for_thread(self, thread: str) -> str | None:
        """The run whose origin has this ``thread`` key (``Origin.thread``), if any."""
        ...

    async def card_posted(self, run_id: str, thread: str) -> bool:
        """The run's card is posted and its thread is ``thread`` (``Origin.thread``): its origin, as loaded,
        says so from now on. False when the run had a thread already."""
        ...


class ReviewsStore(Protocol):
    """Stored reviews, as decisions and the scheduler read them."""

    async def get_review(self, review_id: str) -> ReviewRecord | None: ...

    async def due_reviews(self, now: float, limit: int = 500) -> list[DueReview]:
        """Pending reviews whose deadline or reminder time is at or before ``now``."""
        ...


class RulesStore(Protocol):
    """Standing "always allow" rules of a channel."""

    async def add_rule(self, rule: Rule) -> None: ...

    async def rules(self, channel: str) -> list[Rule]:
        """The channel's rules in force, oldest first."""
        ...

    async def revoke_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        """The rule revoked, or None when no such rule is in force."""
        ...

    async def widen_rule(self, rule_id: str, by: str, at: float) -> Rule | None:
        """The rule in force made tool-wide (who and when kept on it), or None when no scoped rule ``rule_id``
        is in force."""
        ...

    async def suspend_rule(self, suspension: RuleSuspension) -> Rule | None:
        """The rule suspended (kept, no longer in force), or None when no such rule is in force."""
        ...

    async def gate_history(self, channel: str, shape: str, tool: str, limit: int) -> list[GateDecision]:
        """The latest ``limit`` decisions at gates of the call ``shape`` in ``channel``, and suspensions of
        ``tool``'s rules there (tool-wide ones, and scoped ones of this ``shape``), newest first, from the
        audit trail."""
        ...


class LessonsStore(Protocol):
    """What corrections taught, kept beyond their runs (written by ``commit(lessons=…)``, which
    retires the lessons in force with the same :attr:`~agent.models.Lesson.key`)."""

    async def lessons(self, scope: str | None = None, *, active: bool = True, limit: int = 100) -> list[Lesson]:
        """Newest first; of one scope (``""``: the terminal) or of all (``None``); only those in force
        when ``active``."""
        ...

    async def find_lessons(self, scope: str, text: str, limit: int = 20) -> list[Lesson]:
        """Lessons in force of ``scope`` sharing words with ``text`` (full-text search), best match first."""
        ...

    async def get_lesson(self, lesson_id: str) -> Lesson | None: ...

    async def forget_lesson(self, lesson_id: str, by: str, at: float) -> Lesson | None:
        """Stop using a lesson; the lesson as it was, or None when none by that id is in force."""
        ...


class ChatStore(Protocol):
    """What a chat channel keeps: messages it posted, and keys of events it already handled."""

    async def claim_delivery(self, key: str, at: float) -> bool:
        """True the first time ``key`` is seen."""
        ...

    async def save_message(
        self, key: str, run_id: str, channel: str, ts: str, blocks: list[dict[str, Any]] | None = None
    ) -> None: ...

    async def message(self, key: str) -> PostedMessage | None: ...


class OutboxStore(Protocol):
    """The outbox: messages written with their transition, delivered after it."""

    async def due_deliveries(self, channel: str, now: float, lease: float, limit: int = 100) -> list[Delivery]:
        """Due pending rows and rows whose sender's lease ran out, oldest first."""
        ...

    async def claim_delivery_row(self, delivery_id: int, now: float, lease: float) -> Claim:
        """Compare-and-set: of two claims on one row only one wins."""
        ...

    async def renew_delivery_row(self, delivery_id: int, held_since: float, now: float) -> bool:
        """Keep a claim alive while its send is under way: move its stamp from ``held_since`` (the claim's
        ``now``, or the last renewal's) to ``now``. False when the row is no longer held with that stamp
        (sent, given back, or taken over by another worker once the lease ran out)."""
        ...

    async def delivered(self, delivery_id: int, at: float) -> None: ...

    async def retry_delivery(self, delivery_id: int, attempts: int, next_at: float, error: str) -> None: ...

    async def fail_delivery(self, delivery_id: int, attempts: int, error: str) -> None: ...

    async def add_outgoing(self, run_id: str, channel: str, messages: Sequence[Outgoing], at: float) -> None: ...

    async def release_outgoing(self, run_id: str) -> None:
        """Give out the messages of a run's commits that did not wait for the disk (``durable=False``), in
        a durable write of its own: what the run's next durable commit would otherwise do."""
        ...

    async def busy_deliveries(self, channel: str, now: float) -> int:
        """How many rows wait to be sent and are due by ``now`` (rows being sent are not counted)."""
        ...

    async def undelivered(self, run_id: str) -> list[Delivery]: ...

    async def undelivered_runs(self, run_ids: Sequence[str]) -> dict[str, int]: ...

    async def redeliver(self, run_id: str, now: float) -> int: ...

    async def delivery_status(self, run_id: str, kind: str, review_id: str | None) -> str | None: ...

    async def unshown_runs(self) -> list[tuple[str, str]]:
        """Runs whose card was given up on (its ``started`` row failed) and whose requester was not told yet
        (no ``not_started`` row): each with the card's last error."""
        ...


class PostsStore(Protocol):
    """Scheduled report posts: stored like review deadlines, each claimed once across processes."""

    async def schedule_post(self, post: ScheduledPost, now: float) -> None:
        """Keep ``post`` (once per key); scheduled posts of the future under another key are dropped
        (the policy moved the post)."""
        ...

    async def due_posts(self, now: float) -> list[ScheduledPost]:
        """Scheduled posts whose time (``until``) is at or before ``now``, oldest first."""
        ...

    async def claim_post(self, key: str, outbox: Outbound, at: float) -> bool:
        """Mark the post posted and write ``outbox`` in one transaction; False when another process
        (or an earlier tick) already did."""
        ...


class MetricsStore(Protocol):
    """Collaboration metrics, computed by the store from the audit trail (never counted elsewhere)."""

    async def metrics(self, query: MetricsQuery) -> Metrics:
        """Every figure of :class:`~agent.models.metrics.Metrics` for the runs started in the
        query's window that match its filters."""
        ...


class InboxStore(Protocol):
    """Requests kept before they are acknowledged, and applied from there (see :mod:`agent.inbox`)."""

    async def receive_inbound(self, item: Inbound, lease_until: float) -> bool:
        """Keep ``item`` (held until ``lease_until``); False when a row with its key exists (a duplicate)."""
        ...

    async def claim_inbound(
        self, sources: tuple[str, ...], now: float, lease_until: float, limit: int = 20
    ) -> list[Inbound]:
        """Pending rows of ``sources`` whose lease ran out by ``now``, oldest first, each now held until
        ``lease_until`` by this caller alone (its ``attempts`` counted)."""
        ...

    async def renew_inbound(self, key: str, lease_until: float) -> None: ...

    async def settle_inbound(self, key: str, status: Literal["done", "failed"], at: float) -> None: ...


class TokensStore(Protocol):
    """API tokens for software calling Tandem (see :mod:`agent.tokens`), kept by the hash of the token."""

    async def create_token(self, token: ApiToken) -> bool:
        """Keep ``token``; False when its name (or, by a chance never seen, its hash) is taken."""
        ...

    async def token_by_hash(self, token_hash: str) -> ApiToken | None: ...

    async def list_tokens(self) -> list[ApiToken]:
        """Every token, revoked ones too, oldest first."""
        ...

    async def revoke_token(self, name: str, by: str, at: float) -> bool:
        """Revoke the named token; False when there is none by that name still in force."""
        ...

    async def keep_asked(self, record: AskedRecord) -> AskedRecord:
        """Keep a handoff asked through the API; with an idempotency key its token used before, the handoff
        kept then (and nothing is written)."""
        ...

    async def asked(self, run_id: str) -> AskedRecord | None: ...

    async def keep_task(self, record: TaskRecord) -> TaskRecord:
        """Keep a run started over A2A; when its token's message started one before, that one (nothing written)."""
        ...

    async def task_by_id(self, run_id: str) -> TaskRecord | None: ...

    async def task_by_message(self, token: str, message_id: str) -> TaskRecord | None: ...


class Store(
    RunsStore,
    ReviewsStore,
    RulesStore,
    LessonsStore,
    ChatStore,
    OutboxStore,
    PostsStore,
    MetricsStore,
    InboxStore,
    TokensStore,
    Protocol,
):
    """Everything the runtime, the channels and the CLI need from storage
    (implemented by ``storage.facade.AsyncStore``; tests/storage/test_contract.py is the contract)."""

    @property
    def is_open(self) -> bool: ...

    async def ping(self) -> None:
        """Raise when the database cannot be reached."""
        ...

    async def prune(self, before: float, *, dry_run: bool) -> PruneCounts:
        """Delete runs finished before ``before`` with all their rows (see ``tandem prune``)."""
        ...


@dataclass(frozen=True)
class Change:
    """One persisted transition, as observers see it."""

    state: RunState
    effects: list[Effect]
    event: Event | None = None  # None when the run was just created
    actor: str = "tandem"
    answered: str | None = None  # the review this transition answered


class Observer(Protocol):
    """Told about every persisted transition (a channel posts reviews, updates cards)."""

    async def on_change(self, change: Change) -> None: ...
