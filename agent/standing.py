"""The use cases that change what stands beyond a run: revoking or widening an always-allow rule, forgetting a
lesson. Each checks who may do it before anything is written and answers with an outcome, never raising."""

from __future__ import annotations

import logging

from agent.commands import Commands
from agent.errors import TandemError
from agent.messages import RULE_IN_POLICY
from agent.models import AuditEvent, Risk
from agent.models.rules import POLICY_RULE
from agent.outcomes import LessonForgotten, NotApplied, Refused, RuleRevoked, RuleWidened
from agent.refusal import Refusal
from agent.runtime import Runtime

log = logging.getLogger("tandem.rules")


class StandingChanges(Commands):
    """Rules and lessons: who set one (or an approver) may end it; see :class:`~agent.policy.SafetyPolicy`."""

    runtime: Runtime

    async def revoke_rule(self, rule_id: str, by: str, where: str | None) -> RuleRevoked | Refused | NotApplied:
        """Revoke a standing rule of ``where`` (whoever set it, or any approver; see ``may_revoke``)."""
        if rule_id.startswith(POLICY_RULE):
            return NotApplied(RULE_IN_POLICY)
        rules = await self.store.rules(where or "")
        rule = next((r for r in rules if r.id == rule_id), None)
        if rule is None:
            return NotApplied("That rule is unknown here or was already revoked; nothing changed.", "unknown_rule")
        if not self.safety.may_revoke(rule, by, await self.groups_of(by)):
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
        if not self.safety.may_revoke(rule, by, await self.groups_of(by)):
            return Refused(Refusal(by, "widen this rule", (rule.created_by,), note=" (or an approver)"))
        risk = self.runtime.tools.get(rule.tool).risk if rule.tool in self.runtime.tools else Risk.DEPLOY
        why_not = self.safety.may_widen(rule, risk)
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
        if not self.safety.may_forget(lesson, by, await self.groups_of(by), run):
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
