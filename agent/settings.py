"""Settings read from the environment (``TANDEM_*``), once, in ``main``."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class CoreSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="TANDEM_", extra="ignore")

    db: str = Field(default="./tandem.db", description="SQLite file (TANDEM_DB)")
    model: str = Field(default="offline", description="any litellm model string, or 'offline' (TANDEM_MODEL)")
    llm_api_base: str | None = Field(default=None, description="base URL for the model (TANDEM_LLM_API_BASE)")
    tools: str = Field(default="agent.demo_tools", description="comma-separated tool modules (TANDEM_TOOLS)")
    step_timeout: float = Field(default=30.0, gt=0, description="seconds a step may run (TANDEM_STEP_TIMEOUT)")
    config: str | None = Field(default=None, description="policy TOML file (TANDEM_CONFIG; default ./tandem.toml)")
    scheduler_interval: float = Field(default=15.0, gt=0, description="seconds between deadline checks")

    @field_validator("model", mode="before")
    @classmethod
    def _blank_is_offline(cls, value: object) -> object:
        return value if value not in (None, "") else "offline"

    @property
    def tool_modules(self) -> list[str]:
        return [m.strip() for m in self.tools.split(",") if m.strip()]
