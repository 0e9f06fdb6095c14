"""What people can do with runs, as services every channel calls: each chat platform and the terminal alike.

A channel parses its input (a click, a thread reply, a slash command, a CLI flag) into
one of these calls and renders the :data:`Outcome` its own way (an ephemeral, a toast,
a line on stderr). The rules live behind these calls, in the runtime and the policy;
no channel decides who may act or what text may approve.

Every call that fails for a reason a person should hear returns it as an outcome
(:class:`Refused`, :class:`AlreadyDecided`, :class:`NeedsButton`, :class:`NotApplied`)
instead of raising, so each channel handles all of them: ``match`` + ``assert_never``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import TypeVar

from agent.commands import GroupsOf, NoSuchRun, no_groups
from agent.errors import ConcurrentUpdate, NotAllowed, StaleDecision, TandemError, UseTheButton
from agent.messages import decided_verb, nothing_pending
from agent.models import (
    Answer,
    Approve,
    Correct,
    Decision,
    Intent,
    Origin,
    Reading,
    RunState,
)
from agent.offline import cancels
from agent.outcomes import (
    AlreadyDecided,
    Answered,
    Applied,
    Asked,
    LessonForgotten,
    NeedsButton,
    NotApplied,
    Outcome,
    Refused,
    RuleRevoked,
    RuleWidened,
)
from agent.ports import Store
from agent.runtime import Runtime
from agent.standing import StandingChanges

__all__ = [
    "INTENTS",
    "UseCases",
    "AlreadyDecided",
    "Answered",
    "Applied",
    "Asked",
    "LessonForgotten",
    "NeedsButton",
    "NotApplied",
    "Outcome",
    "Refused",
    "RuleRevoked",
    "RuleWidened",
]  # with the outcomes (:mod:`agent.outcomes`), for every channel
T = TypeVar("T")
INTENTS: tuple[Intent, ...] = ("replan", "retry_step", "refine_output")  # the corrections a form may pick
CANCEL_ATTEMPTS = 5  # a stop that loses a race to another process is tried again on the fresh run this often


class UseCases(StandingChanges):
    """start, approve, approve_always, answer, decide, say, override, clarify, reply_to_question, cancel; the rule
    and lesson changes of :class:`~agent.standing.StandingChanges`; the read commands of
    :class:`~agent.commands.Commands` (list, runs, status, rules, lessons, report, post_report)."""

    def __init__(self, runtime: Runtime, store: Store, groups_of: GroupsOf = no_groups) -> None:
        super().__init__(store, runtime.safety, groups_of, runtime.clock)
        self.runtime = runtime

    # --- decisions on a review -------------------------------------------------------------

    async def decide(self, review_id: str, decision: Decision, by: str, *, reading: Reading | None = None) -> Outcome:
        """Apply ``decision`` to the review ``review_id`` (it must be the one pending)."""
        record = await self.store.get_review(review_id)
        if record is None:
            return NotApplied("This request is unknown or was removed; nothing changed.", "unknown_review")
        try:
            groups = await self.groups_of(by)
            state = await self.runtime.decide(
                record.run_id, decision, by, review_id=review_id, groups=groups, reading=reading
            )
        except NotAllowed as exc:
            return Refused(exc.refusal)
        except StaleDecision as exc:
            return await self._stale(review_id, exc)
        except UseTheButton as exc:
            return NeedsButton(str(exc), exc.review_id)
        except TandemError as exc:
            return NotApplied(str(exc))
        return Applied(state, reading)

    async def approve(self, review_id: str, by: str) -> Outcome:
        return await self.decide(review_id, Approve(), by)

    async def approve_always(self, review_id: str, by: str) -> Outcome:
        """Approve, and let the step's tool run without asking where the run lives, as far as the policy
        lets (never a deploy, never under a quorum: the machine decides and stores the rule with the approval)."""
        return await self.decide(review_id, Approve(remember=True), by)

    async def answer(self, review_id: str, value: str, by: str) -> Outcome:
        """Answer a tool's or the planner's question (counts only on a question)."""
        return await self.decide(review_id, Answer(value=value), by)

    async def decline(self, review_id: str, by: str) -> Outcome:
        """Decline to answer an MCP server's question (the server gets ``decline``); refused on any other."""
        return await self.decide(review_id, Answer(value=None, declined=True), by)

    # --- free text ---------------------------------------------------------------------------

    async def say(
        self, run_id: str, text: str, by: str, *, review_id: str | None = None, rejecting: bool = False
    ) -> Outcome:
        """A person's free text at the pending review: read it, then apply it, or ask when unsure; a reply
        that only asks something is answered in the run's thread and changes nothing.

        ``rejecting``: the text came with "Request changes" (a modal, ``--reject``), so it is never
        applied as an approval: a reading of approve is asked about, with no Approve to pick.
        What the thread shows ("Read as …", the question) is written with the decision
        itself, so a refused reply shows nothing in public.
        """
        try:
            reading, decision, review_id = await self.runtime.read(run_id, text, review_id=review_id)
        except StaleDecision as exc:
            return AlreadyDecided(str(exc), exc.decided_by, exc.decided_at)
        except TandemError as exc:
            return NotApplied(str(exc))
        if decision is None:
            assert reading is not None
            return await self.reply_to_question(run_id, review_id, reading, text, by)
        contradicts = rejecting and reading is not None and reading.intent == "approve"
        if reading is not None and (self.runtime.unsure(reading) or contradicts):
            return await self.clarify(run_id, review_id, reading, text, by, decision, rejecting=rejecting)
        return await self.decide(review_id, decision, by, reading=reading)

    async def override(self, review_id: str, text: str, by: str, intent: Intent | None = None) -> Outcome:
        """ "Not what I meant": the reading of ``by``'s reply at ``review_id`` was wrong, and ``text`` says what
        they meant. Only whoever may steer the run is heard: the misread is audited (what the report counts),
        then ``text`` applies to whatever the run waits for now, as the chosen ``intent`` or read as free text.
        Refused before anything but the refusal is written."""
        record = await self.store.get_review(review_id)
        if record is None:
            return NotApplied("This request is unknown or was removed; nothing changed.", "unknown_review")
        groups = await self.groups_of(by)
        state = await _refusable(self.runtime.note_override(record.run_id, record.id, by, groups=groups))
        if not isinstance(state, RunState):
            return state
        if state.pending is None:
            return AlreadyDecided(nothing_pending(state))
        if intent is not None:
            return await self.decide(
                state.pending.id, Correct(intent=intent, target_step=record.step, feedback=text), by
            )
        return await self.say(state.id, text, by, review_id=state.pending.id)

    async def reply_to_question(self, run_id: str, review_id: str, reading: Reading, text: str, by: str) -> Outcome:
        """Answer a question asked at the review, in the run's thread; nothing changes (refused like a
        correction would be)."""
        groups = await self.groups_of(by)
        answering = self.runtime.answer(run_id, review_id, text, by, step=reading.target_step, groups=groups)
        answer = await _refusable(answering)
        return answer if not isinstance(answer, str) else Answered(reading, text, answer)

    async def clarify(
        self,
        run_id: str,
        review_id: str,
        reading: Reading,
        text: str,
        by: str,
        decision: Decision,
        *,
        rejecting: bool = False,
    ) -> Outcome:
        """Ask ``by`` what they meant, with one choice per reading; refused like the decision would be."""
        groups = await self.groups_of(by)
        asking = self.runtime.clarify(
            run_id, review_id, reading, text, by, decision, groups=groups, rejecting=rejecting
        )
        failed = await _refusable(asking)
        return failed if failed is not None else Asked(reading, text)

    # --- runs ----------------------------------------------------------------------------------

    async def start(self, task: str, requester: str, origin: Origin | None = None) -> Applied | NotApplied:
        """Start a run of ``task`` for ``requester`` where ``origin`` says (the terminal when ``None``), and
        drive it to its first pause. A run followed in a chat is stored with its card as its first outbox
        row: the channel posts it, and the run's thread begins there (nothing is posted from here). A card
        that can never be posted stops the run and tells the requester (see ``agent.runtime.unshown``)."""
        try:
            return Applied(await self.runtime.start(task, requester, origin=origin))
        except TandemError as exc:
            return NotApplied(str(exc))

    async def cancel(self, run_id: str, by: str, reason: str = "") -> Outcome:
        """Stop a run, waiting or working; the requester and whoever may approve it may.

        Losing a race to another process (a replica committed to the run between this one's read
        and its write, so nothing of this call was written) is not the person's problem: the stop
        is tried again on the run as it is now, and if the run ended meanwhile, that is the answer.
        """
        groups = await self.groups_of(by)
        for attempt in range(1, CANCEL_ATTEMPTS + 1):
            try:
                state = await self.runtime.cancel(run_id, by, reason, groups=groups)
            except NotAllowed as exc:
                return Refused(exc.refusal)
            except (StaleDecision, ConcurrentUpdate) as exc:
                # The run moved on (its review was answered, or it advanced) in another process.
                fresh, _ = await self.store.load(run_id)
                if fresh.finished:
                    return await self._ended(run_id)
                if attempt == CANCEL_ATTEMPTS:
                    return NotApplied(f"Run {run_id} kept changing while Tandem tried to stop it ({exc}) Try again.")
                continue
            except TandemError as exc:
                return NotApplied(str(exc))
            return Applied(state)
        raise AssertionError("unreachable")

    async def cancel_named(self, ref: str, where: str | None, by: str, reason: str = "") -> Outcome | NoSuchRun:
        """``cancel RUN`` typed in a chat or the terminal: the run ``ref`` names, if ``where`` may see it (another
        place's run is unknown there and nothing is written); then :meth:`cancel`'s own checks."""
        run_id = await self.find(ref, where)
        return run_id if isinstance(run_id, NoSuchRun) else await self.cancel(run_id, by, reason)

    async def stop_asked(self, run_id: str, text: str, by: str) -> Outcome | None:
        """A reply that asks to stop ("just cancel this", "取消吧") while the run works and nothing waits for a
        decision: the stop, as :meth:`cancel` does it (same rules). None for any other text."""
        if not cancels(text):
            return None
        return await self.cancel(run_id, by, reason=" ".join(text.split())[:300])

    async def _ended(self, run_id: str) -> AlreadyDecided:
        """A stop that came after the run had ended: who ended it, and when, where the trail says."""
        state, _ = await self.store.load(run_id)
        if state.status != "cancelled":  # done or failed
            return AlreadyDecided(f"Run {run_id} already ended ({state.status}); there is nothing to stop.")
        for line in reversed(await self.store.events(run_id)):
            stopped = line.kind == "cancel_requested" or (
                line.kind == "decided" and (line.payload.get("decision") or {}).get("kind") == "cancel"
            )
            if stopped:
                return AlreadyDecided(f"Run {run_id} was already cancelled.", line.actor, line.at, "cancelled")
        return AlreadyDecided(f"Run {run_id} was already cancelled.")

    async def _stale(self, review_id: str, exc: StaleDecision) -> AlreadyDecided:
        if exc.decided_by is None:
            return AlreadyDecided(str(exc))
        answered = await self.store.get_review(review_id)
        verb = decided_verb(answered.answer if answered else None)
        return AlreadyDecided(str(exc), exc.decided_by, exc.decided_at, verb)


async def _refusable(work: Awaitable[T]) -> T | Refused | AlreadyDecided | NotApplied:
    """What ``work`` returns, or why it did not take effect (refused, already decided, failed)."""
    try:
        return await work
    except NotAllowed as exc:
        return Refused(exc.refusal)
    except StaleDecision as exc:
        return AlreadyDecided(str(exc), exc.decided_by, exc.decided_at)
    except TandemError as exc:
        return NotApplied(str(exc))
