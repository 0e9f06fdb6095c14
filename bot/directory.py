"""Which Slack user groups a person is in, for approver lists that name groups.

Members come from ``usergroups.users.list`` (cached for a few minutes); where
Slack does not answer (no ``usergroups:read`` scope, a local workspace), the
policy's static ``[groups]`` table is used instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from agent.config import PolicyConfig
from agent.models import Principal
from bot.origin import SLACK

log = logging.getLogger("tandem.bot")
TTL = 300.0


class Directory:
    def __init__(
        self, client: AsyncWebClient, config: PolicyConfig, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.client = client
        self.config = config
        self.clock = clock
        self._members: dict[str, tuple[float, frozenset[str]]] = {}

    def _groups(self) -> set[str]:
        entries = (Principal.parse(p) for people in self.config.approvers.values() for p in people)
        named = {p.id for p in entries if p.platform == SLACK and p.is_group}
        return named | set(self.config.groups)

    async def members(self, group: str) -> frozenset[str]:
        cached = self._members.get(group)
        if cached is not None and self.clock() - cached[0] < TTL:
            return cached[1]
        static = frozenset(self.config.groups.get(group, ()))
        try:
            resp = await self.client.usergroups_users_list(usergroup=group)
            users = frozenset(resp.get("users") or ()) | static
        except SlackApiError as exc:
            log.info("usergroups.users.list for %s failed (%s); using the policy's [groups]", group, exc)
            users = static
        self._members[group] = (self.clock(), users)
        return users

    async def groups_of(self, user: str) -> list[str]:
        return [g for g in sorted(self._groups()) if user in await self.members(g)]
