"""Always-allow rules: "approve and always allow" on a step review, and revoking a rule."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from agent.models import Approve
from blocks import ids
from blocks.text import mention
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

    app.action(ids.APPROVE_ALWAYS)(on_approve_always)
    app.action(ids.REVOKE_RULE)(on_revoke_rule)


async def approve_always(deps: Deps, client: AsyncWebClient, click: BlockActions) -> None:
    """Approve the step and let its tool run without asking in this channel, where the policy allows
    (never a deploy, never under a quorum); the machine decides and stores the rule with the approval."""
    await decide_click(deps, client, click, Approve(remember=True))


async def revoke_rule(deps: Deps, client: AsyncWebClient, rule_id: str, user: str, channel: str | None) -> None:
    """Revoke a rule of this channel, where the policy lets ``user`` (see ``SafetyPolicy.may_revoke``)."""
    rules = await deps.store.rules(channel or "")
    rule = next((r for r in rules if r.id == rule_id), None)
    groups = await deps.directory.groups_of(user)
    if rule is not None and not deps.runtime.safety.may_revoke(rule, user, groups):
        await ephemeral(client, channel, user, messages.RULE_NOT_YOURS.format(user=mention(rule.created_by)))
        return
    revoked = await deps.store.revoke_rule(rule_id, user, deps.clock()) if rule else None
    if revoked is None:
        await ephemeral(client, channel, user, messages.UNKNOWN_RULE)
        return
    await ephemeral(client, channel, user, messages.RULE_REVOKED.format(tool=revoked.tool))
