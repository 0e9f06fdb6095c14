"""The inbox's settings: its session secret from the environment, and ``tandem dev``'s person switcher.

``TANDEM_INBOX_SECRET`` signs the inbox's session cookie and its CSRF tokens. Set it (any long random string,
the same on every replica): without it each process makes up its own, so people sign in again after a restart.
``TANDEM_INBOX_SLACK_CLIENT_ID`` and ``TANDEM_INBOX_SLACK_CLIENT_SECRET`` (the Slack app's client id and secret;
not ``SLACK_CLIENT_ID``, which would turn Bolt's multi-workspace OAuth on) let people sign in with Slack; with
Feishu set up, people sign in with Feishu too. ``TANDEM_INBOX_URL`` is the inbox's public address (the sign-in's
way back), when the server is reached through a proxy that does not say where it was reached.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.settings import read_settings

log = logging.getLogger("tandem.inbox")

People = Callable[[], Mapping[str, str]]
"""The people a person switcher offers: id -> name."""

_SWITCHER: ContextVar[People | None] = ContextVar("tandem_inbox_switcher", default=None)


class InboxSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TANDEM_", extra="ignore")

    inbox_secret: SecretStr | None = Field(
        default=None, description="signs sessions and CSRF tokens (TANDEM_INBOX_SECRET)"
    )
    inbox_secure_cookies: bool = Field(
        default=False, description="send the inbox's cookies over HTTPS only (TANDEM_INBOX_SECURE_COOKIES)"
    )
    inbox_url: str | None = Field(
        default=None, description="the inbox's public address, e.g. https://tandem.example.com/inbox (TANDEM_INBOX_URL)"
    )
    inbox_slack_client_id: str | None = Field(
        default=None, description="the Slack app's client id, for Sign in with Slack (TANDEM_INBOX_SLACK_CLIENT_ID)"
    )
    inbox_slack_client_secret: SecretStr | None = Field(
        default=None, description="the Slack app's client secret (TANDEM_INBOX_SLACK_CLIENT_SECRET)"
    )
    switcher: People | None = Field(default=None, exclude=True)
    """``tandem dev`` only: sign in as any of these people, no password (never read from the environment)."""

    def session_secret(self) -> str:
        if self.inbox_secret is not None and self.inbox_secret.get_secret_value().strip():
            return self.inbox_secret.get_secret_value()
        if self.switcher is None:
            log.warning("TANDEM_INBOX_SECRET is not set: the inbox's sessions end when this process stops")
        return secrets.token_urlsafe(32)


def inbox_settings() -> InboxSettings:
    """The settings a served inbox uses: the environment's, with the person switcher when ``tandem dev`` set one."""
    switcher = _SWITCHER.get()
    if switcher is not None:  # tandem dev reads nothing from the environment
        nothing = {
            "inbox_secret": None,
            "inbox_url": None,
            "inbox_slack_client_id": None,
            "inbox_slack_client_secret": None,
        }
        return InboxSettings.model_construct(**nothing, inbox_secure_cookies=False, switcher=switcher)
    return read_settings(InboxSettings)


@contextmanager
def switching(people: People) -> Iterator[None]:
    """While open, an inbox mounted in this context signs people in by picking one of ``people`` (``tandem dev``)."""
    token = _SWITCHER.set(people)
    try:
        yield
    finally:
        with suppress(ValueError):  # left in another context than it was entered in: nothing to undo there
            _SWITCHER.reset(token)
