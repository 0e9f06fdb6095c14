"""Who approves what, as a Slack card's footer says it: only Slack's own people and groups, as mentions
Slack draws by name (a policy may name people on other platforms too; a Slack reader cannot reach them)."""

from __future__ import annotations

from collections.abc import Sequence

from agent.config import PolicyConfig
from agent.models import Principal, Risk
from blocks.text import slack_mention
from bot import messages
from bot.origin import SLACK


def approvers(config: PolicyConfig) -> str | None:
    """``exec+ <@U0BOB>; deploy+ <!subteam^S1>`` (None: no approvers, the requester decides)."""
    if not config.has_approvers:
        return None
    parts = []
    for level, entries in sorted(config.approvers.items(), key=lambda kv: Risk.parse(kv[0])):
        people = [Principal.parse(entry) for entry in entries]
        if not people:
            continue
        here = [slack_mention(p) for p in people if p.platform == SLACK]
        elsewhere = sorted({p.platform for p in people if p.platform != SLACK})
        names = ", ".join(here) if here else messages.APPROVERS_ELSEWHERE.format(where=", ".join(elsewhere))
        parts.append(f"{level}+ {names}")
    return "; ".join(parts)


def answerers(entries: Sequence[str]) -> str:
    """Who may answer a handoff, as mentions Slack draws by name (people elsewhere named by their platform)."""
    people = [Principal.parse(entry) for entry in entries]
    here = [slack_mention(p) for p in people if p.platform == SLACK]
    elsewhere = sorted({p.platform for p in people if p.platform != SLACK})
    if elsewhere:
        here.append(messages.ANSWERERS_ELSEWHERE.format(where=", ".join(elsewhere)))
    return ", ".join(here)
