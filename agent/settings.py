"""Settings read from the environment (``TANDEM_*``), once, in ``main``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_core import PydanticCustomError
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.errors import ConfigError
from agent.logs import FORMATS, LEVELS, Format, Level

DEMO_TOOLS = "demo.tools"
"""The demo toolset: a simulated ops world in which nothing real is touched."""

S = TypeVar("S", bound=BaseSettings)


class LogSettings(BaseSettings):
    """The two log settings, readable on their own: ``main`` sets up logging before anything else."""

    model_config = SettingsConfigDict(env_prefix="TANDEM_", extra="ignore")

    log_level: Level | None = Field(
        default=None, description="TANDEM_LOG_LEVEL; unset: INFO for serve/socket/dev, WARNING for the rest"
    )
    log_format: Format = Field(default="text", description="text or json (TANDEM_LOG_FORMAT)")

    @field_validator("log_level", mode="before")
    @classmethod
    def _level_any_case(cls, value: object) -> object:
        return None if value in (None, "") else _one_of(value, LEVELS, str.upper)

    @field_validator("log_format", mode="before")
    @classmethod
    def _format_any_case(cls, value: object) -> object:
        return "text" if value in (None, "") else _one_of(value, FORMATS, str.lower)


def _one_of(value: object, allowed: tuple[str, ...], case: Callable[[str], str]) -> str:
    """``value`` in the spelling of ``allowed`` (any case, spaces around ignored), or the error naming the choices."""
    if isinstance(value, str) and case(value.strip()) in allowed:
        return case(value.strip())
    raise PydanticCustomError("one_of", "should be one of {allowed}", {"allowed": ", ".join(allowed)})


class CoreSettings(LogSettings):
    model_config = SettingsConfigDict(env_prefix="TANDEM_", extra="ignore")

    db: str = Field(default="./tandem.db", description="SQLite file (TANDEM_DB)")
    model: str = Field(default="offline", description="any litellm model string, or 'offline' (TANDEM_MODEL)")
    llm_api_base: str | None = Field(default=None, description="base URL for the model (TANDEM_LLM_API_BASE)")
    llm_timeout: float = Field(default=60.0, gt=0, description="seconds one model call may take (TANDEM_LLM_TIMEOUT)")
    tools: str | None = Field(
        default=None,
        description="comma-separated tool modules (TANDEM_TOOLS); unset: the demo toolset, which serve/socket refuse",
    )
    step_timeout: float = Field(default=30.0, gt=0, description="seconds a step may run (TANDEM_STEP_TIMEOUT)")
    step_lease: float = Field(
        default=30.0, gt=0, description="seconds a process's claim on running work lasts unrenewed (TANDEM_STEP_LEASE)"
    )
    config: str | None = Field(default=None, description="policy TOML file (TANDEM_CONFIG; default ./tandem.toml)")
    scheduler_interval: float = Field(default=15.0, gt=0, description="seconds between deadline checks")
    inbox_lease: float = Field(
        default=10.0, gt=0, description="seconds before a received click whose process died is replayed (renewed)"
    )
    inbox_poll: float = Field(default=2.0, gt=0, description="seconds between looks for received clicks to replay")
    # Mail (the mail package): reminders, escalations and `email:` handoffs, sent only when smtp_url is set.
    smtp_url: SecretStr | None = Field(
        default=None, description="smtp://user:pass@host:587?starttls=1 or smtps://… (TANDEM_SMTP_URL)"
    )
    mail_from: str = Field(default="", description="the From address of Tandem's mail (TANDEM_MAIL_FROM)")
    mail_secret: SecretStr | None = Field(default=None, description="signs the links in mail (TANDEM_MAIL_SECRET)")
    public_url: str = Field(
        default="", description="where people reach tandem serve, e.g. https://tandem.example.com (TANDEM_PUBLIC_URL)"
    )
    mail_link_ttl: float = Field(default=7 * 86400.0, gt=0, description="seconds a mailed link works")

    @field_validator("model", mode="before")
    @classmethod
    def _blank_is_offline(cls, value: object) -> object:
        return value if value not in (None, "") else "offline"

    @field_validator("tools", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip(" ,") else value

    @property
    def tool_modules(self) -> list[str]:
        return [m.strip() for m in (self.tools or DEMO_TOOLS).split(",") if m.strip()]

    @property
    def demo(self) -> bool:
        """Whether the demo toolset is loaded (its results are simulated)."""
        return DEMO_TOOLS in self.tool_modules


def read_settings(factory: Callable[[], S]) -> S:
    """Settings from the environment; a bad value is a :class:`ConfigError` that names its variable."""
    try:
        return factory()
    except ValidationError as exc:
        problems = []
        for error in exc.errors():
            variable = _variable(error["loc"])
            secret = any(word in variable for word in ("TOKEN", "SECRET", "KEY"))
            given = "" if secret else f" (got {str(error['input'])[:80]!r})"
            problems.append(f"{variable}: {error['msg']}{given}")
        raise ConfigError(
            f"Invalid setting {'; '.join(problems)}. Fix it in the environment and start again."
        ) from None


def _variable(loc: tuple[int | str, ...]) -> str:
    """The environment variable behind a field: its alias (a channel's token variable) or ``TANDEM_`` + its name."""
    name = str(loc[0]) if loc else "?"
    return name if name.isupper() else f"TANDEM_{name.upper()}"
