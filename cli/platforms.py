"""The chat platforms this build installs: importing this module registers each with the core.

Every entry point imports it before it loads a policy or a run (a policy names people by their
platform's ids; a stored run's origin finds its class by its platform's tag). A new platform is
its own package that registers itself on import, plus one line here.
"""

from __future__ import annotations

from agent.models.inboxed import PLATFORM as INBOX
from agent.models.platforms import Platform
from bot.origin import PLATFORM as SLACK
from feishu.origin import PLATFORM as FEISHU
from mail.origin import PLATFORM as MAIL

INSTALLED: tuple[Platform, ...] = (INBOX, SLACK, FEISHU, MAIL)
"""In the order they registered: the order ids are tried in, and reports find a channel in."""
