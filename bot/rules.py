"""Always-allow rules: "approve and always allow" on a step review, revoking a rule, widening one."""

from __future__ import annotations

from typing import assert_never

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.messages import rule_what, rule_widened
from agent.models import Approve
from agent.usecases import NotApplied, Refused, RuleRevoked, RuleWidened
from blocks import ids
from blocks.text import escape, mention
from bot import messages
from bot.decisions import decide_click
from bot.deps import Deps
from bot.intake import on_click
from bot.payloads import BlockActions
from bot.replies import ephemeral


def register(app: AsyncApp, deps: Deps) -> None:
    @on_click
    async def on_approve_always(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(approve_always(deps, client, click), name="action:approve_always")

    @on_click
    async def on_revoke_rule(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(revoke_rule(deps, client, click.action.value or "", click.user.id, click.channel_id), name="rule")

    @on_click
    async def on_widen_rule(click: BlockActions, client: AsyncWebClient) -> None:
        deps.spawn(widen_rule(deps, client, click.action.value or "", click.user.id, click.channel_id), name="rule")

    app.action(ids.APPROVE_ALWAYS)(on_approve_always)
    app.action(ids.REVOKE_RULE)(on_revoke_rule)
    app.action(ids.WIDEN_RULE)(on_widen_rule)


async def approve_always(deps: Deps, client: AsyncWebClient, click: BlockActions) -> None:
    """Approve the step and let its tool run without asking in this channel for the step's targets, where the
    policy allows (never a deploy, never under a quorum); the machine decides and stores the rule with the approval."""
    await decide_click(deps, client, click, Approve(remember=True))


async def revoke_rule(deps: Deps, client: AsyncWebClient, rule_id: str, user: str, channel: str | None) -> None:
    """Revoke a rule of this channel, where the policy lets ``user`` (see ``SafetyPolicy.may_revoke``)."""
    outcome = await deps.usecases.revoke_rule(rule_id, user, channel)
    match outcome:
        case RuleRevoked(rule=rule):
            await ephemeral(client, channel, user, messages.RULE_REVOKED.format(what=escape(rule_what(rule))))
        case Refused(refusal=refusal):
            await ephemeral(client, channel, user, _not_yours(refusal.users, "revoke"))
        case NotApplied():
            await ephemeral(client, channel, user, messages.UNKNOWN_RULE)
        case _:
            assert_never(outcome)


async def widen_rule(deps: Deps, client: AsyncWebClient, rule_id: str, user: str, channel: str | None) -> None:
    """Widen a scoped rule of this channel to every target of its tool, where the policy lets ``user``
    (the same people who may revoke it; never a deploy, never under a quorum)."""
    outcome = await deps.usecases.widen_rule(rule_id, user, channel)
    match outcome:
        case RuleWidened(rule=rule):
            await ephemeral(client, channel, user, escape(rule_widened(rule, user)))
        case Refused(refusal=refusal):
            await ephemeral(client, channel, user, _not_yours(refusal.users, "widen"))
        case NotApplied(message=message, why=why):
            await ephemeral(client, channel, user, messages.UNKNOWN_RULE if why == "unknown_rule" else escape(message))
        case _:
            assert_never(outcome)


def _not_yours(setters: tuple[str, ...], verb: str) -> str:
    return messages.RULE_NOT_YOURS.format(user=mention(setters[0] if setters else ""), verb=verb)
