"""Slack settings on top of the core ``TANDEM_*`` ones."""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr

from agent.delivery import LEASE
from agent.errors import ConfigError
from agent.settings import CoreSettings

SLACK_API_URL = "https://slack.com/api/"


class SlackSettings(CoreSettings):
    bot_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("SLACK_BOT_TOKEN", "bot_token"))
    signing_secret: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("SLACK_SIGNING_SECRET", "signing_secret")
    )
    app_token: SecretStr | None = Field(default=None, validation_alias=AliasChoices("SLACK_APP_TOKEN", "app_token"))
    api_url: str = Field(default=SLACK_API_URL, validation_alias=AliasChoices("SLACK_API_URL", "api_url"))
    card_update_interval: float = Field(default=1.0, ge=0, description="seconds between run card edits")
    delivery_poll: float = Field(default=1.0, gt=0, description="seconds between outbox checks")
    delivery_lease: float = Field(
        default=LEASE, gt=0, description="seconds a delivery's claim lasts unrenewed (renewed while it is sent)"
    )

    def require(self, *names: str) -> None:
        """Fail at start-up, naming the variable, when a secret is missing or empty."""
        env = {"bot_token": "SLACK_BOT_TOKEN", "signing_secret": "SLACK_SIGNING_SECRET", "app_token": "SLACK_APP_TOKEN"}
        missing = []
        for name in names:
            value = getattr(self, name)
            if value is None or not value.get_secret_value().strip():
                missing.append(env[name])
        if missing:
            raise ConfigError(
                f"Missing {', '.join(missing)}: set {'them' if len(missing) > 1 else 'it'} in the environment "
                "(see README: creating the Slack app from manifest.yml)."
            )

    def secret(self, name: str) -> str:
        value: SecretStr | None = getattr(self, name)
        return value.get_secret_value() if value is not None else ""
