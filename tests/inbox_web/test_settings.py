from __future__ import annotations

import pytest

from agent.errors import ConfigError
from inbox_web.settings import inbox_settings, switching


def test_inbox_settings_bad_value_names_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_INBOX_SECURE_COOKIES", "sometimes")
    with pytest.raises(ConfigError, match="TANDEM_INBOX_SECURE_COOKIES"):
        inbox_settings()


def test_inbox_settings_under_tandem_dev_read_nothing_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TANDEM_INBOX_SLACK_CLIENT_ID", "a-real-slack-app")
    monkeypatch.setenv("TANDEM_INBOX_SECRET", "from-a-shell-set-up-for-production")
    with switching(lambda: {"U0ALICE": "alice"}):
        settings = inbox_settings()
    assert settings.inbox_slack_client_id is None and settings.inbox_secret is None
    assert settings.switcher is not None and settings.switcher() == {"U0ALICE": "alice"}
    assert inbox_settings().inbox_slack_client_id == "a-real-slack-app"  # outside tandem dev: the environment's
