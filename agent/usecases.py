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

import logging
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Literal, TypeVar

from agent.commands import Commands, GroupsOf, no_groups
from agent.errors import ConcurrentUpdate, NotAllowed, StaleDecision, TandemError, UseTheButton
from agent.messages import RULE_IN_POLICY, decided_verb, nothing_pending
from agent.models import (
    Answer,
    Approve,
    AuditEvent,
    Correct,
    Decision,
    Intent,
    Lesson,
    Origin,
    Reading,
    Risk,
    Rule,
    RunState,
)
from agent.models.rules import POLICY_RULE
from agent.offline import cancels
from agent.ports import Store
from agent.refusal import Refusal
from agent.runtime import Runtime

log = logging.getLogger("tandem.rules")
T = TypeVar("T")
INTENTS: tuple[Intent, ...] = ("replan", "retry_step", "refine_output")  # the corrections a form may pick
CANCEL_ATTEMPTS = 5  # a stop that loses a race to another process is tried again on the fresh run this often


@dataclass(frozen=True)
class Applied:
    """The decision took effect; ``state`` is the run as the call left it."""

    state: RunState
    reading: Reading | None = None


@dataclass(frozen=True)
class Asked:
    """Free text was not read surely enough to act on: the person is asked what they meant (nothing changed)."""

    reading: Reading
    text: str


@dataclass(frozen=True)
class Answered:
    """Free text only asked something: the answer (from the run's plan, reasons and outputs) was posted in
    the run's thread, and nothing changed; the review is still pending."""

    reading: Reading
    text: str
    answer: str


@dataclass(frozen=True)
class Refused:
    """The policy does not let this person do this; nothing changed (the refusal is audited)."""

    refusal: Refusal


@dataclass(frozen=True)
class AlreadyDecided:
    """The review was decided before (by ``by``, at ``at``), or the run moved on."""

    message: str
    by: str | None = None
    at: float | None = None
    verb: str = "decided"


@dataclass(frozen=True)
class NeedsButton:
    """Free text may not approve this review (an exec or deploy gate): its own button or ``--approve`` does."""

    message: str
    review_id: str


@dataclass(frozen=True)
class NotApplied:
    """Anything else that stopped the call (an unknown run or review, an unreadable reply…); nothing changed."""

    message: str
    why: Literal["unknown_review", "unknown_rule", "unknown_lesson", "failed"] = "failed"


@dataclass(frozen=True)
class RuleRevoked:
    rule: Rule


@dataclass(frozen=True)
class RuleWidened:
    """The rule covers every target of its tool from now on (who widened it, and when, is kept on it)."""

    rule: Rule


@dataclass(frozen=True)
class LessonForgotten:
    """The lesson is no longer used: the next plan starts without it. ``run``: the run whose thread was told."""

    lesson: Lesson
    run: str | None = None


Outcome = Applied | Asked | Answered | Refused | AlreadyDecided | NeedsButton | NotApplied


class UseCases(Commands):
    """start, approve, approve_always, answer, decide, say, override, clarify, reply_to_question, cancel, revoke_rule,
    widen_rule, lessons, forget_lesson, waiting_for, history."""

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

    async def revoke_rule(self, rule_id: str, by: str, where: str | None) -> RuleRevoked | Refused | NotApplied:
        """Revoke a standing rule of ``where`` (whoever set it, or any approver; see ``may_revoke``)."""
        if rule_id.startswith(POLICY_RULE):
            return NotApplied(RULE_IN_POLICY)
        rules = await self.store.rules(where or "")
        rule = next((r for r in rules if r.id == rule_id), None)
        if rule is None:
            return NotApplied("That rule is unknown here or was already revoked; nothing changed.", "unknown_rule")
        if not self.runtime.safety.may_revoke(rule, by, await self.groups_of(by)):
            return Refused(Refusal(by, "revoke this rule", (rule.created_by,), note=" (or an approver)"))
        revoked = await self.store.revoke_rule(rule_id, by, self.runtime.clock())
        if revoked is None:
            return NotApplied("That rule is unknown here or was already revoked; nothing changed.", "unknown_rule")
        return RuleRevoked(revoked)

    async def widen_rule(self, rule_id: str, by: str, where: str | None) -> RuleWidened | Refused | NotApplied:
        """Widen a scoped rule of ``where`` to every target of its tool: an explicit choice of whoever may
        revoke it (see ``may_revoke``), checked first; never for a deploy or a tool that needs several
        approvals (see ``may_widen``). Who widened it, and when, is kept on the rule."""
        rule = next((r for r in await self.rules(where or "") if r.id == rule_id.strip().strip("`")), None)
        if rule is None:
            return NotApplied("That rule is unknown here or no longer in force; nothing changed.", "unknown_rule")
        if rule.from_policy:
            return NotApplied(RULE_IN_POLICY)
        if not self.runtime.safety.may_revoke(rule, by, await self.groups_of(by)):
            return Refused(Refusal(by, "widen this rule", (rule.created_by,), note=" (or an approver)"))
        risk = self.runtime.tools.get(rule.tool).risk if rule.tool in self.runtime.tools else Risk.DEPLOY
        why_not = self.runtime.safety.may_widen(rule, risk)
        if why_not is not None:
            return NotApplied(why_not)
        widened = await self.store.widen_rule(rule.id, by, self.runtime.clock())
        if widened is None:
            return NotApplied("That rule is unknown here or no longer in force; nothing changed.", "unknown_rule")
        log.info("rule %s (%s) widened to every target by %s", widened.id, widened.tool, by)
        return RuleWidened(widened)

    async def forget_lesson(
        self, lesson_id: str, by: str, where: str | None, *, run_id: str | None = None
    ) -> LessonForgotten | Refused | NotApplied:
        """Stop using a lesson of ``where`` (who taught it, an approver, or the requester of ``run_id`` when
        that run used it; see ``may_forget``). Audited on that run when one is named."""
        lesson = await self.store.get_lesson(lesson_id.strip().strip("`"))
        unknown = NotApplied("That lesson is unknown here or was already forgotten; nothing changed.", "unknown_lesson")
        if lesson is None or not lesson.active or (where is not None and lesson.scope != where):
            return unknown
        run = None
        if run_id is not None:
            try:
                run, _ = await self.store.load(run_id)
            except TandemError:
                run = None
        if not self.runtime.safety.may_forget(lesson, by, await self.groups_of(by), run):
            return Refused(Refusal(by, "forget this lesson", (lesson.by,), note=" (or an approver)"))
        at = self.runtime.clock()
        forgotten = await self.store.forget_lesson(lesson.id, by, at)
        if forgotten is None:
            return unknown
        told = run is not None and any(u.id == lesson.id for u in run.lessons_applied)
        if run is not None and told:  # its thread is told, and its review and card lose the button
            await self.runtime.forgot_lesson(run.id, lesson.id, by, at)
        elif run is not None:
            line = AuditEvent(at=at, actor=by, kind="lesson_forgotten", payload={"lesson": lesson.id})
            await self.store.append_events(run.id, [line])
        return LessonForgotten(forgotten, run.id if run is not None and told else None)

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
