"""Model settings read from the environment: TANDEM_LLM_TIMEOUT reaches the model, a bad value is named."""

from __future__ import annotations

import pytest

from agent.errors import ConfigError
from agent.llm import LiteLLMModel, make_model
from agent.settings import CoreSettings, read_settings


def test_llm_timeout_setting_reaches_the_litellm_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_MODEL", "openai/test-model")
    monkeypatch.setenv("TANDEM_LLM_TIMEOUT", " 240 ")
    settings = read_settings(CoreSettings)

    model = make_model(settings.model, settings.llm_api_base, settings.llm_timeout)

    assert isinstance(model, LiteLLMModel)
    assert model.timeout == 240.0


def test_llm_timeout_setting_unset_keeps_sixty_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TANDEM_LLM_TIMEOUT", raising=False)
    model = make_model("openai/test-model", None, read_settings(CoreSettings).llm_timeout)

    assert isinstance(model, LiteLLMModel)
    assert model.timeout == 60.0


@pytest.mark.parametrize(
    ("given", "problem"),
    [("0", "greater than 0"), ("-5", "greater than 0"), ("soon", "valid number")],
)
def test_llm_timeout_setting_invalid_is_refused_by_name(
    monkeypatch: pytest.MonkeyPatch, given: str, problem: str
) -> None:
    monkeypatch.setenv("TANDEM_LLM_TIMEOUT", given)

    with pytest.raises(ConfigError, match=f"TANDEM_LLM_TIMEOUT: .*{problem}.*got '{given}'"):
        read_settings(CoreSettings)
