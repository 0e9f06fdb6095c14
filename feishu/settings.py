"""Feishu/Lark settings on top of the core ``TANDEM_*`` ones, read once at start-up."""

from __future__ import annotations

from pydantic import AliasChoices, Field, SecretStr

from agent.delivery import LEASE
from agent.errors import ConfigError
from agent.settings import CoreSettings

FEISHU_API_URL = "https://open.feishu.cn"
"""Feishu's Open API; Lark's is ``https://open.larksuite.com``."""

ENV = {
    "app_id": "FEISHU_APP_ID",
    "app_secret": "FEISHU_APP_SECRET",
    "verification_token": "FEISHU_VERIFICATION_TOKEN",
    "encrypt_key": "FEISHU_ENCRYPT_KEY",
}


def _env(name: str) -> AliasChoices:
    return AliasChoices(ENV[name], name)


class FeishuSettings(CoreSettings):
    app_id: str | None = Field(default=None, validation_alias=_env("app_id"))
    app_secret: SecretStr | None = Field(default=None, validation_alias=_env("app_secret"))
    verification_token: SecretStr | None = Field(default=None, validation_alias=_env("verification_token"))
    encrypt_key: SecretStr | None = Field(default=None, validation_alias=_env("encrypt_key"))
    api_url: str = Field(default=FEISHU_API_URL, validation_alias=AliasChoices("FEISHU_API_URL", "api_url"))
    card_update_interval: float = Field(default=1.0, ge=0, description="seconds between run card edits")
    delivery_poll: float = Field(default=1.0, gt=0, description="seconds between outbox checks")
    delivery_lease: float = Field(
        default=LEASE, gt=0, description="seconds a delivery's claim lasts unrenewed (renewed while it is sent)"
    )
    max_skew: float = Field(default=300.0, gt=0, description="seconds a signed request may be old")

    @property
    def configured(self) -> bool:
        """Whether anyone set Feishu up (then every secret must be there)."""
        return any(self.secret(name) for name in ENV)

    def require(self, *, webhook: bool = True) -> None:
        """Fail at start-up, naming the variables, when a setting is missing or empty.

        The webhook needs all four: without the Encrypt Key Feishu neither encrypts nor signs
        requests, and a static token in the body would be the only check. The long connection
        (``webhook=False``) needs the app id and secret only: they authenticate the connection.
        """
        needed = ENV if webhook else {k: ENV[k] for k in ("app_id", "app_secret")}
        missing = [env for name, env in needed.items() if not self.secret(name).strip()]
        if missing:
            raise ConfigError(
                f"Missing {', '.join(missing)}: set {'them' if len(missing) > 1 else 'it'} in the environment "
                "(see README: Running in Feishu)."
            )

    def secret(self, name: str) -> str:
        value: SecretStr | str | None = getattr(self, name)
        if isinstance(value, SecretStr):
            return value.get_secret_value()
        return value or ""
